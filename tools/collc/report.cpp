//===- report.cpp - collc --report: a plan's traffic on its torus ---------===//
//
// The cost model (lib/Cost) predicts from a formula per algorithm; this
// report measures the plan itself: the runtime's own expansion of every
// rank (runtime/src/linkload.c), routed as the network routes. The two side
// by side show where a formula misses what a schedule does.
//
//===----------------------------------------------------------------------===//
#include "tools/collc/report.h"

#include "collc/linkload.h"
#include "lib/Cost/CostModel.h"
#include "collc/Passes/Passes.h"

#include "llvm/Support/Format.h"

#include <cstdint>

using namespace collc;

namespace {

/// Up to this many ranks every rank is expanded; above, kSampled of them
/// (a direct alltoall on 4096 ranks routes 16.7 M messages: about a second).
constexpr int64_t kMaxExpanded = 4096;
constexpr int kSampled = 256;

} // namespace

void collc::printPlanReport(sched::PlanOp op, const collrt_plan_t *plan,
                            llvm::raw_ostream &os) {
  coll::TopologyAttr t = op.getTopology();
  int64_t m = 4096;
  if (auto bytes = op.getBlockBytes(); bytes && bytes->size() == 2 && (*bytes)[1] > 0 &&
                                       (*bytes)[1] <= (int64_t{1} << 30))
    m = (*bytes)[1];
  std::string shape;
  for (int64_t n : t.getShape())
    shape += (shape.empty() ? "" : "x") + std::to_string(n);
  os << "report: " << op.getAlgorithm() << " " << op.getCollective() << " on " << shape;
  if (t.getRanksPerNode() > 1)
    os << " x " << t.getRanksPerNode() << " ranks per node";
  os << ", " << m << " B blocks, "
     << (t.getSwitched() ? "switch" : t.getAdaptive() ? "adaptive routing" : "dimension-order routing")
     << "\n";
  if (t.getSwitched()) {
    os << "  (a switch has no links to route over; see --explain)\n";
    return;
  }
  int64_t ranks = t.getRanksPerNode();
  for (int64_t n : t.getShape())
    ranks *= n;
  collrt_link_load_input_t in = {m, t.getAdaptive() ? 1 : 0,
                                 ranks <= kMaxExpanded ? static_cast<int>(ranks) : kSampled};
  collrt_link_load_t r;
  collrt_diag_t diag = {};
  if (collrt_link_load(plan, &in, &r, &diag) != COLLRT_OK) {
    os << "  link loads not computed: " << diag.message << "\n";
    return;
  }
  static const char *axis = "xyz";
  std::string hot;
  if (r.hot_bytes > 0) {
    hot = std::string(1, axis[r.hot_dim]) + (r.hot_dir > 0 ? "+" : "-");
    if (r.expanded == r.ranks) {
      uint32_t node = r.hot_node;
      hot += " from node (";
      for (size_t d = 0; d < t.getShape().size(); ++d) {
        hot += (d ? "," : "") + std::to_string(node % t.getShape()[d]);
        node /= t.getShape()[d];
      }
      hot += ")";
    } else {
      hot += " (every link of that class)";
    }
  }
  double mean = r.links ? r.link_bytes / r.links : 0;
  os << llvm::format("  hottest link: %s, %.0f B = %.1f us; mean over %u links %.0f B\n",
                     hot.empty() ? "none" : hot.c_str(), r.hot_bytes, r.hot_us, r.links, mean);
  os << llvm::format("  network messages: %llu per rank at most = %.1f us of alpha; "
                     "%llu in all; scratch %lld B per rank at most\n",
                     static_cast<unsigned long long>(r.max_messages), r.alpha_us,
                     static_cast<unsigned long long>(r.messages),
                     static_cast<long long>(r.max_scratch));
  double predicted = r.alpha_us + r.hot_us;
  os << llvm::format("  predicted: %.1f us (alpha + hottest link)", predicted);
  if (op.getCollective() == "alltoall" || op.getCollective() == "alltoallv") {
    AlltoallBound bound = alltoallBound(topologySpecOf(t), m);
    if (!bound.cut.empty())
      os << llvm::format("; bound %.1f us (%s) = %.1f%% of it", bound.us, bound.cut.c_str(),
                         percentOfPeak(bound.us, predicted));
  }
  os << "\n";
  if (r.expanded == r.ranks)
    os << "  (every one of the " << r.ranks << " ranks expanded and routed)\n";
  else
    os << "  (" << r.expanded << " of " << r.ranks
       << " ranks expanded, loads per link class scaled up: exact for traffic the same "
          "from every node up to translation)\n";
}

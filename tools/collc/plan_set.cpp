//===- plan_set.cpp - collc --plan-set ------------------------------------===//
#include "tools/collc/plan_set.h"

#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/Dialect/Sched/SchedOps.h"
#include "collc/Passes/Passes.h"
#include "lib/Algorithms/Algorithm.h"
#include "lib/Frontend/SpecToColl.h"
#include "lib/Plan/PlanEmitter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <limits>

using namespace mlir;
using namespace collc;

namespace {

/// The bands are searched up to this block size; the last band has no upper
/// end (a plan's range [lo, INT64_MAX] is "lo bytes and up").
constexpr int64_t kLargestPricedBytes = int64_t(1) << 24;
constexpr int64_t kAndUp = std::numeric_limits<int64_t>::max();

/// A byte range of one op and the algorithm, with its decided parameters,
/// that the cost model picks throughout it.
struct Band {
  int64_t lo, hi;
  Candidate pick;
};

/// Two picks are one band when they would build the same plan.
std::string decisionKey(const Candidate &c) {
  std::string key = c.estimate.algorithm + "/" + std::to_string(c.decision.fifoDepth) + "/" +
                    c.decision.order.value_or("") + "/" +
                    std::to_string(c.decision.seed.value_or(0)) + "/" +
                    std::to_string(c.decision.parts.value_or(0));
  for (int64_t m : c.decision.mesh)
    key += "x" + std::to_string(m);
  return key;
}

/// One collective of the set: an op and, for allreduce, the reduction its
/// plans' REDUCE steps combine with (the plan records it; a library serving
/// MPI_Allreduce matches the call's operation and type against it).
struct SetEntry {
  CollectiveKind kind;
  const char *reduceOp = "", *datatype = "";
};

/// The allreduce reductions a plan set carries: the sums and extrema of the
/// types applications reduce most (a residual, a norm, a count, a
/// convergence test); other pairs fall back to MPI.
constexpr std::pair<const char *, const char *> kSetReductions[] = {
    {"sum", "double"}, {"sum", "float"}, {"sum", "int"}, {"sum", "long"},
    {"max", "double"}, {"min", "double"}, {"max", "int"}, {"min", "int"},
};

/// "alltoall", "allreduce.sum.double": the entry's plans' name prefix and
/// the op column of the listing.
std::string entryName(const SetEntry &entry) {
  std::string name = stringifyCollectiveKind(entry.kind).str();
  if (entry.kind == CollectiveKind::Allreduce)
    name += std::string(".") + entry.reduceOp + "." + entry.datatype;
  return name;
}

Spec specFor(const Spec &machine, const SetEntry &entry, int64_t lo, int64_t hi) {
  Spec spec;
  spec.topology = machine.topology;
  spec.collective.kind = entry.kind;
  spec.collective.minBytes = lo;
  spec.collective.maxBytes = hi;
  if (entry.kind == CollectiveKind::Allreduce) {
    spec.collective.reduceOp = entry.reduceOp;
    spec.collective.datatype = entry.datatype;
  }
  return spec;
}

/// The cost model's pick for blocks (contributions) of `bytes`.
std::optional<Candidate> pickAt(const Spec &machine, const SetEntry &kind, int64_t bytes) {
  Weighing weighing = weighAlgorithms(specFor(machine, kind, bytes, bytes));
  if (weighing.weighed.empty())
    return std::nullopt;
  return weighing.weighed.front();
}

/// The bands of `kind` on the machine, tiling [0, and up): the pick is
/// priced at every power of two up to kLargestPricedBytes, and where it
/// changes between two of them the smallest size with the new pick is found
/// by bisection.
std::vector<Band> bandsOf(const Spec &machine, const SetEntry &kind) {
  std::vector<Band> bands;
  std::optional<Candidate> first = pickAt(machine, kind, 1);
  if (!first)
    return bands;
  bands.push_back({0, kAndUp, *first});
  int64_t priced = 1; // the largest size known to take the last band's pick
  for (int64_t next = 2; next <= kLargestPricedBytes; next *= 2) {
    std::optional<Candidate> at = pickAt(machine, kind, next);
    while (at && decisionKey(*at) != decisionKey(bands.back().pick)) {
      int64_t same = priced, changed = next;
      while (changed - same > 1) {
        int64_t mid = same + (changed - same) / 2;
        std::optional<Candidate> m = pickAt(machine, kind, mid);
        (m && decisionKey(*m) == decisionKey(bands.back().pick) ? same : changed) = mid;
      }
      bands.back().hi = changed - 1;
      bands.push_back({changed, kAndUp, *pickAt(machine, kind, changed)});
      priced = changed;
    }
    priced = next;
  }
  return bands;
}

/// The spec that builds `pick`'s plan for [lo, hi]: its algorithm with the
/// parameters it was priced on, so the plan is the one the model chose.
Spec bandSpec(const Spec &machine, const SetEntry &kind, const Band &band) {
  Spec spec = specFor(machine, kind, band.lo, band.hi);
  CollectiveSpec &c = spec.collective;
  const Decision &d = band.pick.decision;
  c.algorithm = band.pick.estimate.algorithm;
  c.fifoDepth = d.fifoDepth;
  c.order = d.order;
  if (d.seed)
    c.seed = static_cast<uint64_t>(*d.seed);
  c.dimRingsParts = d.parts;
  c.meshParts.assign(d.mesh.begin(), d.mesh.end());
  return spec;
}

/// A plan built, verified and encoded; or failure with its errors emitted.
FailureOr<PlanPtr> buildPlan(MLIRContext &context, const Spec &spec, StringRef symbol,
                             int64_t verifyRanks) {
  Location loc = FileLineColLoc::get(&context, symbol, 1, 1);
  OwningOpRef<ModuleOp> module = buildCollModule(spec, symbol, &context, loc);
  if (!module)
    return failure();
  PassManager pm(&context);
  buildCollcPipeline(pm, /*verifyRanks=*/0);
  if (failed(pm.run(*module)))
    return failure();
  auto plans = module->getBody()->getOps<sched::PlanOp>();
  if (plans.empty())
    return module->emitError("no plan was built");
  sched::PlanOp planOp = *plans.begin();
  if (verifyRanks <= 0)
    planOp.setUnverified(true);
  FailureOr<PlanPtr> plan = emitPlan(planOp);
  if (failed(plan) || (verifyRanks > 0 && failed(verifyEncodedPlan(planOp, plan->get(), verifyRanks))))
    return failure();
  return plan;
}

LogicalResult writeBytes(StringRef path, const collrt_plan_t *plan) {
  std::string error;
  auto file = mlir::openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "collc: error: " << error << "\n";
    return failure();
  }
  size_t length = 0;
  const uint8_t *bytes = collrt_plan_bytes(plan, &length);
  file->os().write(reinterpret_cast<const char *>(bytes), length);
  file->keep();
  return success();
}

std::string bandText(const Band &band) {
  if (band.hi == kAndUp)
    return band.lo == 0 ? "any size" : "[" + std::to_string(band.lo) + " B, and up]";
  return "[" + std::to_string(band.lo) + ", " + std::to_string(band.hi) + " B]";
}

std::string ranksText(const collrt_plan_t *plan) {
  return collrt_plan_needs_exact_size(plan)
             ? std::to_string(collrt_plan_topology_ranks(plan)) + " ranks"
             : "any communicator";
}

} // namespace

LogicalResult collc::writePlanSet(MLIRContext &context, const Spec &machine, StringRef dir,
                                  int64_t verifyRanks, llvm::raw_ostream &os) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "collc: error: cannot create the plan-set directory '" << dir
                 << "': " << ec.message() << "\n";
    return failure();
  }
  std::vector<SetEntry> entries = {{CollectiveKind::Alltoall},
                                    {CollectiveKind::Alltoallv},
                                    {CollectiveKind::Allgatherv}};
  for (auto [reduceOp, datatype] : kSetReductions)
    entries.push_back({CollectiveKind::Allreduce, reduceOp, datatype});
  entries.push_back({CollectiveKind::Bcast});
  for (const SetEntry &kind : entries) {
    std::string op = entryName(kind);
    std::vector<Band> bands = bandsOf(machine, kind);
    if (bands.empty()) {
      llvm::errs() << "collc: error: the cost model weighs no algorithm for " << op
                   << " on this machine\n";
      return failure();
    }
    bool anySize = false; // a band plan already serves every communicator
    for (const Band &band : bands) {
      std::string name = op + "." + std::to_string(band.lo) + "-" +
                         (band.hi == kAndUp ? std::string("up") : std::to_string(band.hi)) +
                         "." + band.pick.estimate.algorithm;
      FailureOr<PlanPtr> plan =
          buildPlan(context, bandSpec(machine, kind, band), name, verifyRanks);
      SmallString<128> path(dir);
      llvm::sys::path::append(path, name + ".plan");
      if (failed(plan) || failed(writeBytes(path, plan->get())))
        return failure();
      anySize |= !collrt_plan_needs_exact_size(plan->get()) && bands.size() == 1;
      os << llvm::formatv("{0,-10} {1,-24} {2,-16} {3,-18} {4}\n", op, bandText(band),
                          band.pick.estimate.algorithm, ranksText(plan->get()), path);
    }
    if (anySize)
      continue;
    // The generic plan: the table's first algorithm for the op whose plan
    // serves any communicator, for every size, behind the bands.
    bool generic = false;
    for (const algorithms::AlgorithmRow &row : algorithms::kAlgorithms) {
      if (!row.lowers[algorithmColumn(kind.kind)])
        continue;
      Spec spec = specFor(machine, kind, 0, kAndUp);
      spec.collective.algorithm = row.name.str();
      std::string name = op + ".generic." + row.name.str();
      {
        // an algorithm that does not lower on this machine, or whose plan
        // needs the machine's size, is not the one (asked quietly, without
        // verification; the one chosen is built again and verified)
        ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
        FailureOr<PlanPtr> tried = buildPlan(context, spec, name, /*verifyRanks=*/0);
        if (failed(tried) || collrt_plan_needs_exact_size(tried->get()))
          continue;
      }
      FailureOr<PlanPtr> plan = buildPlan(context, spec, name, verifyRanks);
      if (failed(plan))
        return failure();
      SmallString<128> path(dir);
      llvm::sys::path::append(path, name + ".plan");
      if (failed(writeBytes(path, plan->get())))
        return failure();
      os << llvm::formatv("{0,-10} {1,-24} {2,-16} {3,-18} {4}\n", op, "any size", row.name,
                          ranksText(plan->get()), path);
      generic = true;
      break;
    }
    if (!generic) {
      llvm::errs() << "collc: error: no algorithm of " << op
                   << " builds a plan for any communicator on this machine\n";
      return failure();
    }
  }
  return success();
}

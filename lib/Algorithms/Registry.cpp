//===- Registry.cpp - the algorithm modules of CollAlgorithms.def ---------===//
#include "lib/Algorithms/Algorithm.h"

#include "collc/Dialect/Coll/CollAlgorithms.h"

#include <algorithm>
#include <iterator>

using namespace collc;

namespace collc {
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, ALLREDUCE,     \
                       BCAST, DEPTH)                                               \
  extern const AlgorithmModule MODULE##Module;
#include "collc/Dialect/Coll/CollAlgorithms.def"
} // namespace collc

namespace {
/// The modules, in the order of CollAlgorithms.def: kModules[i] is the
/// module of algorithms::kAlgorithms[i] (name, ops, default depth).
const AlgorithmModule *const kModules[] = {
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, ALLREDUCE,     \
                       BCAST, DEPTH)                                               \
  &MODULE##Module,
#include "collc/Dialect/Coll/CollAlgorithms.def"
};
static_assert(std::size(kModules) == std::size(algorithms::kAlgorithms));
} // namespace

int64_t collc::estimateBytes(const Spec &spec) {
  return spec.collective.maxBytes.value_or(kDefaultEstimateBytes);
}

Decision collc::decideParameters(const Spec &spec, llvm::StringRef name) {
  const CollectiveSpec &coll = spec.collective;
  Decision decision;
  if (coll.fifoDepth && algorithms::takesOption(name, "fifo_depth"))
    decision.fifoDepth = *coll.fifoDepth;
  else if (coll.throttle.value_or("none") == "bisection" &&
           algorithms::takesOption(name, "throttle"))
    // seed 000's eq. 2 at the smallest block the plan serves: the depth
    // that injects no faster than the bisection drains
    decision.fifoDepth = bisectionThrottleDepth(spec.topology, coll.minBytes.value_or(1));
  else
    decision.fifoDepth = algorithms::defaultFifoDepth(name);
  if (algorithms::takesOption(name, "order"))
    decision.order = coll.order.value_or(algorithms::defaultOrder(name).str());
  for (size_t i = 0; i < std::size(kModules); ++i)
    if (algorithms::kAlgorithms[i].name == name && kModules[i]->decide)
      kModules[i]->decide(spec, decision);
  if (decision.order == "random")
    decision.seed = static_cast<int64_t>(coll.seed);
  return decision;
}

void collc::finishReductionEstimate(const Spec &spec, AlgorithmEstimate &estimate) {
  const TopologySpec &topo = spec.topology;
  CollectiveBound bound = spec.collective.kind == CollectiveKind::Bcast
                              ? bcastBound(topo, estimate.bytes)
                              : allreduceBound(topo, estimate.bytes);
  if (bound.us > 0)
    estimate.percentOfPeak = percentOfPeak(bound.us, estimate.timeUs);
}

void collc::finishAlltoallEstimate(const Spec &spec, AlgorithmEstimate &estimate,
                                   const NicLoad *nic) {
  // one node has no link to bound it
  if (double peak = peakAlltoallUs(spec.topology, estimate.bytes); peak > 0)
    estimate.percentOfPeak = percentOfPeak(peak, estimate.timeUs);
  if (nic && spec.topology.nic.kind != NicKind::None)
    estimate.nicSlowdown = nicSlowdown(spec.topology, *nic);
}

Weighing collc::weighAlgorithms(const Spec &spec) {
  AlgorithmEstimate base;
  base.ranks = spec.topology.numRanks();
  base.bytes = estimateBytes(spec);
  base.contention = contention(spec.topology);
  Weighing weighing;
  for (size_t i = 0; i < std::size(kModules); ++i) {
    const algorithms::AlgorithmRow &row = algorithms::kAlgorithms[i];
    if (!row.lowers[algorithmColumn(spec.collective.kind)])
      continue;
    if (std::optional<std::string> why = kModules[i]->whyNotWeighed(spec)) {
      weighing.notWeighed.emplace_back(row.name.str(), std::move(*why));
      continue;
    }
    Candidate &candidate = weighing.weighed.emplace_back();
    candidate.decision = decideParameters(spec, row.name);
    candidate.estimate = base;
    candidate.estimate.algorithm = row.name.str();
    kModules[i]->estimate(spec, candidate.decision, candidate.estimate);
  }
  std::stable_sort(weighing.weighed.begin(), weighing.weighed.end(),
                   [](const Candidate &a, const Candidate &b) {
                     return a.estimate.timeUs < b.estimate.timeUs;
                   });
  return weighing;
}

std::optional<std::string> collc::whyNotSmpCluster(const Spec &spec) {
  if (spec.topology.ranksPerNode == 1)
    return std::string("one rank per node: there is nothing to combine in a node");
  if (spec.topology.numNodes() == 1)
    return std::string("one node: there is no network phase");
  return std::nullopt;
}

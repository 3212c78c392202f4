//===- Balanced.cpp - the direct exchange with ties split -----------------===//
//
// The direct exchange for tori routed dimension by dimension: a block a tie
// away (offset n/2 on an even ring) travels as two halves, one each way, so
// both directions of a ring carry the same load. Lowering:
// lib/Passes/LowerBalanced.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  if (spec.topology.ranksPerNode > 1)
    return std::string("it schedules one rank per node");
  if (tieBlocks(spec.topology) == 0)
    return std::string("no block is a tie away (no even ring routed dimension by "
                       "dimension): it would be the direct exchange");
  return std::nullopt;
}

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  bool even = spec.collective.kind == CollectiveKind::Alltoall || spec.collective.evenCounts;
  e.timeUs = balancedAlltoallUs(spec.topology, e.bytes, decision.fifoDepth, even);
  finishAlltoallEstimate(spec, e);
  e.contention = balancedContention(spec.topology);
  e.fifoDepth = decision.fifoDepth;
  e.order = decision.order.value_or("");
}

} // namespace

namespace collc {
extern const AlgorithmModule BalancedModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

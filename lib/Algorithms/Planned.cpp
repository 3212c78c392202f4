//===- Planned.cpp - seed 004's planned SMP alltoall(v) -------------------===//
//
// Collect a node's blocks in the node arena, one message of C² blocks per
// node pair spread over the node's cores, distribute. Lowering:
// lib/Passes/LowerPlanned.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  if (spec.topology.ranksPerNode == 1)
    return std::string("one rank per node: there is nothing to combine in a node");
  if (spec.topology.numNodes() == 1)
    return std::string("one node: there is no network phase");
  return std::nullopt;
}

void decide(const Spec &, Decision &) {}

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.timeUs = plannedAlltoallvUs(spec.topology, e.bytes);
  finishAlltoallEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule PlannedModule{"planned", whyNotWeighed, decide, estimate};
} // namespace collc

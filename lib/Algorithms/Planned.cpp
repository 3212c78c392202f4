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

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.timeUs = plannedAlltoallvUs(spec.topology, e.bytes);
  finishAlltoallEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule PlannedModule{whyNotSmpCluster, nullptr, estimate};
} // namespace collc

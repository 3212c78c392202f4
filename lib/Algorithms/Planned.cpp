//===- Planned.cpp - seed 004's planned SMP alltoall(v) -------------------===//
//
// Collect a node's blocks in the node arena, one message of C² blocks per
// node pair spread over the node's cores, distribute. Lowering:
// lib/Passes/LowerPlanned.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

#include <algorithm>
#include <cmath>

using namespace collc;

namespace {

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  double c = static_cast<double>(topo.ranksPerNode), n = static_cast<double>(topo.numNodes());
  // the N − 1 node pairs spread over the node's cores, C² blocks a message
  NicLoad nic{std::min(c, n - 1), std::ceil((n - 1) / c), c * c,
              static_cast<double>(decision.fifoDepth)};
  e.timeUs = plannedAlltoallvUs(topo, e.bytes, nic);
  finishAlltoallEstimate(spec, e, &nic);
}

} // namespace

namespace collc {
extern const AlgorithmModule PlannedModule{whyNotSmpCluster, nullptr, estimate};
} // namespace collc

//===- SmpLeader.cpp - seed 002's leader-based SMP alltoall ---------------===//
//
// The cores stage their blocks in the node arena; one leader per node sends
// N − 1 messages of C² blocks straight out of it. Lowering:
// lib/Passes/LowerSmpLeader.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  if (spec.topology.ranksPerNode == 1)
    return std::string("one rank per node: there is no node to lead");
  return std::nullopt;
}

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  double c = static_cast<double>(topo.ranksPerNode), n = static_cast<double>(topo.numNodes());
  // one core, the leader, sends N − 1 messages of the node's C² blocks
  NicLoad nic{1, n - 1, c * c, static_cast<double>(decision.fifoDepth)};
  e.timeUs = smpLeaderAlltoallUs(topo, e.bytes, nic);
  finishAlltoallEstimate(spec, e, &nic);
}

} // namespace

namespace collc {
extern const AlgorithmModule SmpLeaderModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

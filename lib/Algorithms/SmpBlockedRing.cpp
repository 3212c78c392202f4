//===- SmpBlockedRing.cpp - seed 001's SMP blocked-ring allgatherv --------===//
//
// The blocked ring over the node leaders, each leader passing blocks down
// a chain of its node's cores: a pipeline N + C deep instead of P.
// Lowering: lib/Passes/LowerSmpRing.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  if (spec.topology.ranksPerNode == 1)
    return std::string("one rank per node: it would be the blocked ring");
  return std::nullopt;
}

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  e.contention = 1;
  int64_t total = e.ranks * e.bytes;
  int64_t depth = topo.numNodes() + topo.ranksPerNode;
  e.blockBytes = spec.collective.blockBytes.value_or(
      blockedRingBestBlockBytes(topo.network, depth, 0, total));
  e.timeUs = smpRingAllgathervUs(topo.network, topo.numNodes(), topo.ranksPerNode, total,
                                 *e.blockBytes);
}

} // namespace

namespace collc {
extern const AlgorithmModule SmpBlockedRingModule{whyNotWeighed, nullptr,
                                                  estimate};
} // namespace collc

//===- SliceRings.cpp - seed 003's node-team allreduce ---------------------===//
//
// Mamidala et al.'s BG/P allreduce (seed 003): the C cores of a node each
// combine one slice of the node's contributions in shared memory, allreduce
// their slice with the cores of the same local index on the other nodes
// (over every torus dimension's ring, in both directions, or one ring of
// nodes behind a switch), and the slices spread back through shared
// memory. Each node then sends 2m(N − 1)/N bytes spread over its links
// instead of one ring of all P ranks paying 2(P − 1) start-ups. Lowering:
// lib/Passes/LowerSliceRings.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  const TopologySpec &topo = spec.topology;
  if (topo.fabric == Fabric::Torus)
    for (size_t d = 0; d < topo.shape.size(); ++d)
      if (!topo.wrap[d] && topo.shape[d] > 2)
        return std::string("a mesh dimension: a ring along a line routes its wrap-around step "
                           "across the whole line, which the model does not price");
  return std::nullopt;
}

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  // the ranks of a node share its links: each carries C slices' traffic
  e.contention = static_cast<double>(spec.topology.ranksPerNode);
  e.timeUs = sliceRingsAllreduceUs(spec.topology, e.bytes);
  finishReductionEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule SliceRingsModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

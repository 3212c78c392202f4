//===- TwoPhase.cpp - seed 000's two-phase torus alltoall -----------------===//
//
// A line phase along one dimension (messages of a plane's blocks), then a
// plane phase that forwards each arrival as it comes in. Lowering:
// lib/Passes/LowerTwoPhase.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

#include <algorithm>

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  const TopologySpec &topo = spec.topology;
  if (spec.collective.kind != CollectiveKind::Alltoall)
    // a round of the plane phase waits for its largest arrival, so uneven
    // counts leave links idle that the model does not charge; a named
    // `algorithm: two-phase` still builds it
    return std::string("alltoallv: the model does not price the plane phase's idle "
                       "links under uneven counts");
  if (topo.ranksPerNode > 1)
    return std::string("it schedules one rank per node");
  if (topo.shape.size() < 2)
    return std::string("it needs a line and a plane (two dimensions or more)");
  if (topo.fabric != Fabric::Torus)
    return std::string("behind a switch there is no line to route along");
  if (!std::all_of(topo.wrap.begin(), topo.wrap.end(), [](bool w) { return w; }))
    // with a mesh dimension in the plane, the plane phase's rounds load
    // the mesh's middle links like the direct exchange and lose to it in
    // the gaps between rounds, which the model does not see
    return std::string("a dimension does not wrap: the model does not price the plane "
                       "phase's rounds on a mesh");
  return std::nullopt;
}

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.timeUs = twoPhaseAlltoallUs(spec.topology, e.bytes);
  finishAlltoallEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule TwoPhaseModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

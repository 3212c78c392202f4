//===- DimRings.cpp - pipelined neighbour rings, one dimension at a time --===//
//
// Every block cut into parts, at most one per torus dimension longer than
// 1, each part crossing the dimensions in its own order as rings of
// neighbours (the alltoall: lines where a dimension does not wrap). The
// parts are the spec's or the count the model prices cheapest
// (dimRingsParts). Lowering: lib/Passes/LowerDimRings.cpp
// (alltoall) and LowerDimRingsV.cpp (alltoallv).
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

#include <algorithm>

using namespace collc;

namespace {

bool isV(const Spec &spec) { return spec.collective.kind == CollectiveKind::Alltoallv; }

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  const TopologySpec &topo = spec.topology;
  if (topo.ranksPerNode > 1)
    return std::string("it schedules one rank per torus node");
  if (topo.fabric != Fabric::Torus)
    return std::string("behind a switch there are no rings of neighbours");
  // A dimension that does not wrap is a line: the alltoall's stage there
  // exchanges along it both ways (LowerDimRings.cpp); the alltoallv's
  // lowering schedules rings only.
  if (isV(spec) && !std::all_of(topo.wrap.begin(), topo.wrap.end(), [](bool w) { return w; }))
    return std::string("a dimension does not wrap: the alltoallv runs rings only");
  if (topo.routing != Routing::DimensionOrder)
    // adaptive routing balances the links itself: the direct exchange
    // reaches the bound without forwarding every byte through memory
    return std::string("adaptive routing balances the direct exchange's links itself");
  return std::nullopt;
}

void decide(const Spec &spec, Decision &decision) {
  // the spec's parts (the op's verifier, C3, checks the count), or the
  // fastest
  decision.parts = spec.collective.dimRingsParts.value_or(dimRingsParts(
      spec.topology, estimateBytes(spec), isV(spec), spec.collective.evenCounts));
}

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  int64_t parts = *decision.parts;
  e.timeUs = isV(spec) ? dimRingsAlltoallvUs(spec.topology, e.bytes,
                                             spec.collective.evenCounts, parts)
                       : dimRingsAlltoallUs(spec.topology, e.bytes, parts);
  finishAlltoallEstimate(spec, e);
  e.contention = contention(spec.topology, /*balanced=*/true);
  e.parts = parts;
}

} // namespace

namespace collc {
extern const AlgorithmModule DimRingsModule{whyNotWeighed, decide, estimate};
} // namespace collc

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

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.timeUs = smpLeaderAlltoallUs(spec.topology, e.bytes);
  finishAlltoallEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule SmpLeaderModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

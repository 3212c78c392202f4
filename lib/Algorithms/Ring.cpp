//===- Ring.cpp - the ring allreduce: reduce-scatter, then allgather ------===//
//
// Patarasuk and Yuan's bandwidth-optimal allreduce over the ring of all
// ranks: P − 1 reduce-scatter steps of one block of m/P, then P − 1
// allgather steps. Each rank sends 2m(P − 1)/P bytes, the bound of one
// link, but pays 2(P − 1) start-ups: it wins for long messages. Lowering:
// lib/Passes/LowerRing.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &) { return std::nullopt; }

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.contention = 1; // neighbours in a ring share one link each way
  e.timeUs = ringAllreduceUs(spec.topology, e.bytes);
  finishReductionEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule RingModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

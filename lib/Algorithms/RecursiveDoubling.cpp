//===- RecursiveDoubling.cpp - the short-message allreduce -----------------===//
//
// MPICH's recursive doubling (Thakur, Rabenseifner, Gropp 2005): ⌊log2 P⌋
// steps in which partners r and r XOR 2^k exchange their partial results
// and combine them, the lower rank's block first, so that both hold the
// same bits; the P − 2^⌊log2 P⌋ extra ranks fold their contribution into a
// neighbour first and receive the result last. Few steps and whole
// messages: it wins where start-ups dominate. Lowering:
// lib/Passes/LowerRecursiveDoubling.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &) { return std::nullopt; }

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.contention = 1; // one message per rank and step
  e.timeUs = recursiveDoublingAllreduceUs(spec.topology, e.bytes);
  finishReductionEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule RecursiveDoublingModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

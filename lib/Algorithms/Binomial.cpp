//===- Binomial.cpp - the short-message broadcast --------------------------===//
//
// A binomial tree from rank 0 (MPICH's short bcast): rank r receives from
// r minus its lowest set bit and sends on to r + 2^j for every 2^j below
// that bit, the largest subtree first, so the message reaches every rank
// after ⌈log2 P⌉ steps of one whole message. Lowering:
// lib/Passes/LowerBinomial.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &) { return std::nullopt; }

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.contention = 1; // one message per rank and step
  e.timeUs = binomialBcastUs(spec.topology, e.bytes);
  finishReductionEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule BinomialModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

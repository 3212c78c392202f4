//===- PipelinedChain.cpp - the long-message broadcast ---------------------===//
//
// The message in chunks down the chain of ranks 0 → 1 → ... → P − 1, each
// forwarded as soon as it arrived: m·β plus a chunk per hop, the bound of a
// node with one link (a switch). The chunk is computed at bind time from
// the message (chainChunkBytes). Lowering: lib/Passes/LowerPipelinedChain.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &) { return std::nullopt; }

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.contention = 1; // neighbours in a chain share one link
  e.blockBytes = chainChunkBytes(spec.topology.network, e.ranks, e.bytes);
  e.timeUs = pipelinedChainBcastUs(spec.topology, e.bytes);
  finishReductionEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule PipelinedChainModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

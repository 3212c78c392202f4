//===- BlockedRing.cpp - Träff et al.'s pipelined blocked-ring allgatherv -===//
//
// Rank r forwards every contribution to r + 1 in blocks of B bytes; a block
// moves on as soon as it arrives, so the ring is one pipeline over all the
// data. B is the spec's block_bytes or, at run time, the formula of
// blockedRingBestBlockBytes. Lowering: lib/Passes/LowerBlockedRing.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &) { return std::nullopt; }

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  // neighbours in a ring share one link each way
  e.contention = 1;
  int64_t total = e.ranks * e.bytes;
  e.blockBytes = spec.collective.blockBytes.value_or(
      blockedRingBestBlockBytes(topo.network, e.ranks, 0, total));
  e.timeUs = blockedRingAllgathervUs(topo.network, e.ranks, 0, total, *e.blockBytes);
}

} // namespace

namespace collc {
extern const AlgorithmModule BlockedRingModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

//===- Direct.cpp - the direct exchange: every rank to every rank ---------===//
//
// alltoall(v): P − 1 steps, step k to r + k and from r − k (the shift
// order), or the steps shuffled by a shared seed (random), or one torus
// translation per step (dimension). allgatherv: the one contribution to
// every peer. Lowering: lib/Passes/LowerDirect.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &) { return std::nullopt; }

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e);

void decide(const Spec &spec, Decision &decision) {
  const CollectiveSpec &coll = spec.collective;
  if (coll.kind == CollectiveKind::Allgatherv)
    return;
  auto price = [&](const Decision &trial) {
    AlgorithmEstimate e;
    e.bytes = estimateBytes(spec);
    estimate(spec, trial, e);
    return e.timeUs;
  };
  // The FIFO depth, where the spec leaves it open: in the shift order a
  // window of consecutive shifts loads a few directions of a few
  // dimensions at a time, and a short window stalls on its first send's
  // round trip. The model prices the default window and each doubling of
  // it up to every step in flight, and keeps the cheapest (the smallest
  // of equals: a rank's engine tests every request in flight).
  bool searchDepth = !coll.fifoDepth && coll.throttle.value_or("none") == "none" &&
                     decision.order.value_or("shift") == "shift";
  // On a torus a window of consecutive shifts loads a few directions at a
  // time (and, routed dimension by dimension, ties overload one direction
  // of a ring); a shared random order (BG/L's AR strategy) spreads each
  // window over the whole torus and lets a rank's receives overlap its
  // window's bytes, while every step in flight loads each link as the
  // whole pattern does. Where the spec names no order the model keeps the
  // cheaper; an order the user named stays.
  bool weighRandom = !coll.order && coll.algorithm == "auto" &&
                     spec.topology.fabric == Fabric::Torus && spec.topology.numNodes() > 1;
  if (!searchDepth && !weighRandom)
    return;
  Decision shift = decision;
  double shiftUs = price(shift);
  if (searchDepth) {
    int64_t all = std::max<int64_t>(1, spec.topology.numRanks() - 1);
    for (int64_t depth = decision.fifoDepth; depth < all;) {
      depth = std::min(2 * depth, all);
      Decision trial = shift;
      trial.fifoDepth = depth;
      if (double us = price(trial); us < shiftUs * (1 - 1e-9)) {
        shift = trial;
        shiftUs = us;
      }
    }
  }
  if (weighRandom) {
    Decision random = decision;
    random.order = "random";
    decision = price(random) < shiftUs ? random : shift;
    return;
  }
  decision = shift;
}

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  if (spec.collective.kind == CollectiveKind::Allgatherv) {
    e.timeUs = directAllgathervUs(topo, e.bytes);
    return;
  }
  // every core sends one block to each of the P − 1 other ranks
  bool even = spec.collective.kind == CollectiveKind::Alltoall || spec.collective.evenCounts;
  NicLoad nic{static_cast<double>(topo.ranksPerNode),
              static_cast<double>(topo.numRanks() - 1) * countsNonEmpty(even), 1,
              static_cast<double>(decision.fifoDepth)};
  // the seed the random order will draw with (decideParameters records
  // the spec's after deciding)
  e.timeUs = directAlltoallUs(topo, e.bytes, nic, even, decision.order,
                              decision.seed.value_or(static_cast<int64_t>(spec.collective.seed)));
  e.fifoDepth = decision.fifoDepth;
  e.order = decision.order.value_or("");
  finishAlltoallEstimate(spec, e, &nic);
}

} // namespace

namespace collc {
extern const AlgorithmModule DirectModule{whyNotWeighed, decide, estimate};
} // namespace collc

//===- MultiColour.cpp - the torus broadcast of one tree per link direction ===//
//
// The message cut into one piece per colour (a direction of a torus
// dimension), each pipelined in chunks down its own spanning tree, so a
// node takes in the message over all its links instead of one: BG/L's and
// BG/P's rectangle broadcasts. The trees share links on the root's lines
// and planes (multiColourPlan counts the colours on the hottest link),
// which the estimate charges. Lowering: lib/Passes/LowerMultiColour.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  if (spec.topology.fabric == Fabric::Switch)
    return std::string("behind a switch a node has one link: there is no second colour");
  if (spec.topology.numNodes() == 1)
    return std::string("one node: there are no links to colour");
  return std::nullopt;
}

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  MultiColourPlan plan = multiColourPlan(spec.topology, e.bytes);
  e.contention = static_cast<double>(plan.hotLink); // colours on the hottest link
  e.blockBytes = plan.chunkBytes;
  e.colours = plan.colours;
  e.timeUs = multiColourBcastUs(spec.topology, e.bytes);
  finishReductionEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule MultiColourModule{whyNotWeighed, nullptr, estimate};
} // namespace collc

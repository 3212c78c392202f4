//===- ReductionCost.cpp - the cost model of broadcasts and allreduces ---===//
//
// The α–β–γ terms of the broadcast and allreduce schedules and their lower
// bounds, kept apart from the alltoall model (CostModel.cpp): these
// schedules are trees and pipelines of whole messages whose critical path
// is a chain of steps, where the alltoall's are link loads. A step's
// partners sit on one node when the ranks of a node are consecutive and the
// step's rank distance is below the ranks per node, so the model charges
// such steps shared memory's σ + m·γ instead of a network message.
//
//===----------------------------------------------------------------------===//
#include "lib/Cost/CostModel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace collc;

namespace {

double betaUsOf(const NetworkParams &net) { return net.betaNsPerByte * 1e-3; }
double gammaUsOf(const NetworkParams &net) { return net.copyNsPerByte * 1e-3; }

/// One message of m bytes between ranks `distance` apart in rank order:
/// through shared memory when they share a node, else over the network.
double stepUs(const TopologySpec &topo, int64_t distance, double m) {
  const NetworkParams &net = topo.network;
  if (topo.numNodes() == 1 || distance < topo.ranksPerNode)
    return net.shmLatencyUs + m * gammaUsOf(net);
  return net.alphaUs + (m + static_cast<double>(net.headerBytes)) * betaUsOf(net);
}

int64_t floorLog2(int64_t p) {
  int64_t k = 0;
  while ((int64_t(2) << k) <= p)
    ++k;
  return k;
}

} // namespace

int64_t collc::linksIntoNode(const TopologySpec &topo) {
  if (topo.numNodes() == 1)
    return 0;
  if (topo.fabric == Fabric::Switch)
    return 1;
  int64_t links = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d)
    if (topo.shape[d] > 1)
      links += topo.wrap[d] && topo.shape[d] > 2 ? 2 : 1;
  return links;
}

CollectiveBound collc::bcastBound(const TopologySpec &topo, int64_t bytes) {
  CollectiveBound bound;
  int64_t links = linksIntoNode(topo);
  if (!links)
    return bound;
  bound.us = static_cast<double>(bytes) * betaUsOf(topo.network) / static_cast<double>(links);
  bound.why = "m*beta/L, L = " + std::to_string(links) + " link" + (links == 1 ? "" : "s") +
              " into a node";
  return bound;
}

CollectiveBound collc::allreduceBound(const TopologySpec &topo, int64_t bytes) {
  CollectiveBound bound;
  int64_t links = linksIntoNode(topo);
  if (!links)
    return bound;
  double nodes = static_cast<double>(topo.numNodes());
  bound.us = 2 * static_cast<double>(bytes) * (nodes - 1) / nodes * betaUsOf(topo.network) /
             static_cast<double>(links);
  bound.why = "2m(N-1)/N*beta/L, N = " + std::to_string(topo.numNodes()) + " nodes, L = " +
              std::to_string(links) + " link" + (links == 1 ? "" : "s") + " into a node";
  return bound;
}

std::optional<std::string> collc::explainReductionBound(const Spec &spec) {
  int64_t bytes = spec.collective.maxBytes.value_or(kDefaultEstimateBytes);
  CollectiveBound bound;
  if (spec.collective.kind == CollectiveKind::Bcast)
    bound = bcastBound(spec.topology, bytes);
  else if (spec.collective.kind == CollectiveKind::Allreduce)
    bound = allreduceBound(spec.topology, bytes);
  if (bound.why.empty())
    return std::nullopt;
  char line[200];
  std::snprintf(line, sizeof line, "bound: %.1f us (%s)", bound.us, bound.why.c_str());
  return std::string(line);
}

double collc::recursiveDoublingAllreduceUs(const TopologySpec &topo, int64_t bytes) {
  double m = static_cast<double>(bytes), gm = m * gammaUsOf(topo.network);
  int64_t p = topo.numRanks(), steps = floorLog2(p), rem = p - (int64_t(1) << steps);
  double t = gm; // the own contribution into the receive buffer
  for (int64_t k = 0; k < steps; ++k)
    t += stepUs(topo, int64_t(1) << k, m) + 2 * gm;
  if (rem > 0) // fold in (a message and a combination), the result out
    t += 2 * stepUs(topo, 1, m) + gm;
  return t;
}

double collc::binomialBcastUs(const TopologySpec &topo, int64_t bytes) {
  double m = static_cast<double>(bytes);
  int64_t p = topo.numRanks(), steps = floorLog2(p) + ((p & (p - 1)) ? 1 : 0);
  double t = 0;
  for (int64_t k = 0; k < steps; ++k)
    t += stepUs(topo, int64_t(1) << k, m);
  return t;
}

double collc::ringAllreduceUs(const TopologySpec &topo, int64_t bytes) {
  int64_t p = topo.numRanks();
  if (p == 1)
    return static_cast<double>(bytes) * gammaUsOf(topo.network);
  const NetworkParams &net = topo.network;
  double block = static_cast<double>(bytes) / static_cast<double>(p);
  double steps = 2 * static_cast<double>(p - 1);
  double combine = static_cast<double>(p - 1) * block * gammaUsOf(net);
  if (topo.numNodes() == 1)
    return steps * stepUs(topo, 0, block) + combine;
  // Ranks of a node are consecutive: the ring leaves a node at N of its P
  // hops. A rank's step needs only its predecessor's step before, so the
  // network messages of successive steps overlap one another; the chain of
  // hops and the node's link (one block each way a step) bound it.
  double off = static_cast<double>(topo.numNodes()) / static_cast<double>(p);
  double chain = steps * (off * stepUs(topo, topo.ranksPerNode, block) +
                          (1 - off) * stepUs(topo, 0, block)) +
                 combine;
  double link = steps * (block + static_cast<double>(net.headerBytes)) * betaUsOf(net) + net.alphaUs;
  return std::max(chain, link);
}

double collc::sliceRingsAllreduceUs(const TopologySpec &topo, int64_t bytes) {
  const NetworkParams &net = topo.network;
  double m = static_cast<double>(bytes), cores = static_cast<double>(topo.ranksPerNode);
  double gamma = gammaUsOf(net), beta = betaUsOf(net), h = static_cast<double>(net.headerBytes);
  bool switched = topo.fabric == Fabric::Switch;
  size_t dims = topo.shape.size();
  // LowerSliceRings.cpp's kSwitchParts behind a switch
  double parts = switched ? 1 : static_cast<double>(2 * dims);
  // a rank's copies and combinations on the node: the contribution in, the
  // C rows of its slice, its slice out and the others back (one copy with
  // one rank per node); the first part's fold and the last one's spread do
  // not overlap the network
  double local = topo.ranksPerNode > 1 ? 3 * m * gamma : m * gamma;
  double sync = topo.ranksPerNode > 1 ? 2 * net.shmLatencyUs : 0;
  if (topo.numNodes() == 1)
    return local + sync;
  double slice = m / parts / cores, network = 0, steps = 0;
  if (switched) {
    double n = static_cast<double>(topo.numNodes()), block = slice / n;
    // every part's ring of every core crosses the node's one link
    network = 2 * (n - 1) * (net.alphaUs + parts * cores * (block + h) * beta) +
              (n - 1) * block * gamma;
    steps = 2 * (n - 1);
  } else {
    for (size_t rot = 0; rot < dims; ++rot) {
      double piece = slice, rotation = 0;
      for (size_t k = 0; k < dims; ++k) {
        int64_t n = topo.shape[(rot + k) % dims];
        if (n == 1)
          continue;
        piece /= static_cast<double>(n);
        // a ring of 2 carries both directions on its one link
        double sharing = n == 2 ? 2 * cores : cores;
        double ring = static_cast<double>(n - 1);
        rotation += 2 * ring * (net.alphaUs + sharing * (piece + h) * beta) + ring * piece * gamma;
        if (rot == 0)
          steps += 2 * ring;
      }
      network = std::max(network, rotation);
    }
  }
  // the rank's own work is serial: its copies and, per step of every part,
  // a send's and a receive's start-up
  double busy = local + 2 * parts * steps * net.alphaUs;
  return std::max(busy, local / parts + network) + sync;
}

int64_t collc::alphaOverBetaBytes(int64_t alphaPs, int64_t betaPs) {
  return std::max<int64_t>(1, alphaPs / std::max<int64_t>(1, betaPs));
}

int64_t collc::alphaOverBetaBytes(const NetworkParams &net) {
  return alphaOverBetaBytes(std::llround(net.alphaUs * 1e6), std::llround(net.betaNsPerByte * 1e3));
}

int64_t collc::chainChunkBytes(const NetworkParams &net, int64_t ranks, int64_t bytes) {
  double hops = static_cast<double>(std::max<int64_t>(1, ranks - 2));
  return std::max<int64_t>(
      kMinChunkBytes, static_cast<int64_t>(std::sqrt(
                          static_cast<double>(alphaOverBetaBytes(net)) * static_cast<double>(bytes) / hops)));
}

double collc::pipelinedChainBcastUs(const TopologySpec &topo, int64_t bytes) {
  int64_t p = topo.numRanks();
  if (p == 1)
    return static_cast<double>(bytes) * gammaUsOf(topo.network);
  int64_t chunk = chainChunkBytes(topo.network, p, bytes);
  int64_t chunks = std::max<int64_t>(1, (bytes + chunk - 1) / chunk);
  double size = static_cast<double>(std::min(chunk, std::max<int64_t>(bytes, 0)));
  return static_cast<double>(p - 2 + chunks) * stepUs(topo, topo.ranksPerNode, size);
}

MultiColourPlan collc::multiColourPlan(const TopologySpec &topo, int64_t bytes) {
  MultiColourPlan plan;
  int64_t dims = static_cast<int64_t>(topo.shape.size());
  // The colours of LowerMultiColour.cpp: (d, +) on an extent > 1, (d, −)
  // besides on a wrapped extent > 2; (0, +) alone on one node.
  struct Colour {
    int64_t d, s;
  };
  std::vector<Colour> colours;
  for (int64_t d = 0; d < dims; ++d) {
    if (topo.shape[d] > 1)
      colours.push_back({d, 1});
    if (topo.wrap[d] && topo.shape[d] > 2)
      colours.push_back({d, -1});
  }
  if (colours.empty())
    colours.push_back({0, 1});
  plan.colours = static_cast<int64_t>(colours.size());
  // Every colour's tree on the real shape: the directed link into each node
  // from its parent, counted per colour. A ring of 2 has one link per
  // neighbour pair and direction, whichever way a colour walks it.
  int64_t nodes = topo.numNodes();
  std::vector<int64_t> stride(dims, 1);
  for (int64_t e = 1; e < dims; ++e)
    stride[e] = stride[e - 1] * topo.shape[e - 1];
  std::vector<int> load(static_cast<size_t>(nodes * dims * 2), 0);
  plan.hotLink = nodes > 1 ? 0 : 1;
  for (const Colour &colour : colours) {
    for (int64_t node = 1; node < nodes; ++node) {
      int64_t parentDim = -1, walk = 1;
      for (int64_t j = 0; j < dims; ++j) {
        int64_t e = (colour.d + j) % dims;
        int64_t x = node / stride[e] % topo.shape[e];
        if (x != 0) {
          parentDim = e;
          walk = topo.wrap[e] ? colour.s : 1;
        }
      }
      int64_t n = topo.shape[parentDim];
      int64_t x = node / stride[parentDim] % n;
      int64_t parent = node + (((x - walk) % n + n) % n - x) * stride[parentDim];
      int64_t dir = n == 2 ? 0 : (walk > 0 ? 0 : 1);
      int &l = load[static_cast<size_t>((parent * dims + parentDim) * 2 + dir)];
      plan.hotLink = std::max<int64_t>(plan.hotLink, ++l);
    }
  }
  // The lowering's chunk, over the largest piece.
  plan.pieceBytes = (std::max<int64_t>(bytes, 0) + plan.colours - 1) / plan.colours;
  int64_t depth = 1;
  for (int64_t e = 0; e < dims; ++e)
    depth += topo.shape[e] - 1;
  plan.depth = depth;
  plan.chunkBytes = std::max<int64_t>(
      kMinChunkBytes,
      static_cast<int64_t>(std::sqrt(static_cast<double>(
          alphaOverBetaBytes(topo.network) * plan.pieceBytes / (depth * kMultiColourFillWeight)))));
  return plan;
}

double collc::multiColourBcastUs(const TopologySpec &topo, int64_t bytes) {
  const NetworkParams &net = topo.network;
  MultiColourPlan plan = multiColourPlan(topo, bytes);
  double piece = static_cast<double>(plan.pieceBytes);
  double chunk = static_cast<double>(std::min(plan.chunkBytes, std::max<int64_t>(plan.pieceBytes, 1)));
  double chunks = std::ceil(piece / std::max(chunk, 1.0));
  double c = static_cast<double>(plan.colours), rpn = static_cast<double>(topo.ranksPerNode);
  double beta = betaUsOf(net), gamma = gammaUsOf(net), h = static_cast<double>(net.headerBytes);
  // Fill: the first chunk down the deepest path of a tree (Σ (n_e − 1)
  // network hops, sharing the root's lines with hot colours), then across
  // the node.
  double fill = static_cast<double>(std::max<int64_t>(0, plan.depth - 2)) *
                (net.alphaUs + static_cast<double>(plan.hotLink) * (chunk + h) * beta);
  if (topo.ranksPerNode > 1)
    fill += net.shmLatencyUs + chunk * gamma;
  // Drain, the slowest of three resources:
  //   the hottest link, carrying the pieces of hotLink colours;
  //   a handler's receives: every chunk of its ⌈C/R⌉ colours, one message
  //   (α) each (the node's other ranks take theirs from the arena);
  //   a rank's copies out of the arena: the whole message at γ.
  double link = static_cast<double>(plan.hotLink) * chunks * (chunk + h) * beta;
  double receives = std::ceil(c / rpn) * chunks * net.alphaUs;
  double copies = topo.ranksPerNode > 1 ? c * piece * gamma : 0;
  if (topo.numNodes() == 1)
    return fill + copies + (rpn == 1 ? piece * gamma : 0); // no network, no receive
  return fill + std::max({link, receives, copies});
}

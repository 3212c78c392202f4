//===- CostModel.cpp - analytic time of the collective algorithms ---------===//
//
// Formulas are stated in CostModel.h; this file evaluates them.
//
//===----------------------------------------------------------------------===//
#include "lib/Cost/CostModel.h"

#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/plan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <functional>
#include <cmath>
#include <cstdio>

using namespace collc;

/// The spec gives β in ns/B and α in µs; the model works in µs.
static double betaUs(const NetworkParams &net) {
  return net.betaNsPerByte * 1e-3;
}

/// A tie can exist: a wrapped even ring, routed dimension by dimension.
static bool hasTies(const TopologySpec &topo, size_t d) {
  bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
  return topo.fabric == Fabric::Torus && topo.routing == Routing::DimensionOrder &&
         wraps && topo.shape[d] % 2 == 0;
}

/// The forward contention alone: what the bisection bound and the throttle
/// (seed 000's eq. 2) count.
static double forwardContention(const TopologySpec &topo, bool balanced) {
  // Behind a non-blocking switch a node's one link is the only bottleneck.
  if (topo.fabric == Fabric::Switch)
    return static_cast<double>(topo.ranksPerNode);
  double worst = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    double n = static_cast<double>(topo.shape[d]);
    double c = !wraps ? n / 4 : !balanced && hasTies(topo, d) ? (n + 2) / 8 : n / 8;
    worst = std::max(worst, c);
  }
  return worst * static_cast<double>(topo.ranksPerNode);
}

double collc::contention(const TopologySpec &topo, bool balanced) {
  double r = topo.network.reverseLoad;
  if (topo.fabric == Fabric::Switch) // a node's link out also carries the acks of what comes in
    return static_cast<double>(topo.ranksPerNode) * (1 + r);
  double worst = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    int64_t k = topo.shape[d];
    double n = static_cast<double>(k);
    // the cut between the halves ⌊k/2⌋ and ⌈k/2⌉ (alltoallBound): a line
    // crosses it once, a ring twice each way; with ties going +, the + link
    // carries the distances 1..n/2 and the acks of the − link's 1..n/2 − 1
    // A dimension of one node crosses no link; its term (n/8) stands for
    // the node's loopback, which a one-node machine's direct exchange pays.
    double halves = k == 1 ? 0.25 : static_cast<double>((k / 2) * (k - k / 2)) / n;
    double c = !wraps ? halves * (1 + r)
               : !balanced && hasTies(topo, d) ? (n + 2) / 8 + r * (n - 2) / 8
                                               : halves / 2 * (1 + r);
    worst = std::max(worst, c);
  }
  return worst * static_cast<double>(topo.ranksPerNode);
}

int64_t collc::bisectionThrottleDepth(const TopologySpec &topo, int64_t bytes) {
  constexpr double kMaxDepth = 65535; // the largest the format holds (F2)
  double m = static_cast<double>(std::max<int64_t>(1, bytes));
  double beta = topo.network.betaNsPerByte;
  double held = topo.network.alphaUs * 1000 + m * beta; // ns
  double drained = forwardContention(topo, /*balanced=*/true) * m * beta;
  if (!(drained > 0))
    return static_cast<int64_t>(kMaxDepth);
  return static_cast<int64_t>(std::clamp(std::ceil(held / drained), 1.0, kMaxDepth));
}

/// C of the balanced schedule: contention(topo, balanced) but for rings
/// of 2, where a tie's detour would start at the destination itself, so
/// both halves take the router's one link (collc --report on a [2] torus:
/// the same hottest link as the direct exchange, one message more).
double collc::balancedContention(const TopologySpec &topo) {
  double c = contention(topo, /*balanced=*/true);
  for (size_t d = 0; d < topo.shape.size(); ++d)
    if (topo.shape[d] == 2 && hasTies(topo, d))
      c = std::max(c, 0.5 * static_cast<double>(topo.ranksPerNode)); // (2 + 2)/8, no acks against it
  return c;
}

int64_t collc::tieBlocks(const TopologySpec &topo) {
  int64_t untied = 1;
  for (size_t d = 0; d < topo.shape.size(); ++d)
    untied *= topo.shape[d] - (hasTies(topo, d) ? 1 : 0);
  return topo.numNodes() - untied;
}

double collc::nicSlowdown(const TopologySpec &topo, const NicLoad &load) {
  double flows = load.cores * std::min(std::max(1.0, load.depth), std::max(1.0, load.messages));
  return 1 / topo.nic.linkShare(topo.network.linkMBPerS, load.cores, flows);
}

/// The factor on a node link's time (contention() counts its acks) behind
/// the NIC: an offload NIC slows the link itself, acks and all; an onload
/// one limits what the cores inject, which the acks do not load, so the
/// slower of the two binds.
static double nicFactor(const TopologySpec &topo, const NicLoad &load) {
  double slowdown = nicSlowdown(topo, load);
  if (topo.nic.kind == NicKind::Onload)
    return std::max(1.0, slowdown / (1 + topo.network.reverseLoad));
  return slowdown;
}

double collc::nicFillUs(const TopologySpec &topo, const NicLoad &load, int64_t bytes) {
  if (topo.nic.kind != NicKind::Onload)
    return 0;
  double message = load.blocksPerMessage * static_cast<double>(bytes);
  return message / topo.nic.coreMBPerS; // MB/s = B/µs
}

namespace {
/// What the SMP formulas count with: C ranks per node, N nodes, P ranks and
/// the block m, as doubles.
struct SmpSizes {
  double c, n, p, m;
};
SmpSizes smpSizes(const TopologySpec &topo, int64_t bytes) {
  return {static_cast<double>(topo.ranksPerNode), static_cast<double>(topo.numNodes()),
          static_cast<double>(topo.numRanks()), static_cast<double>(bytes)};
}
} // namespace

double collc::linkBlocks(const TopologySpec &topo) {
  double p = static_cast<double>(topo.numRanks());
  // behind a switch only the other nodes' blocks cross a node's link
  return topo.fabric == Fabric::Switch ? p - static_cast<double>(topo.ranksPerNode) : p;
}

double collc::smpLeaderAlltoallUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic) {
  const NetworkParams &net = topo.network;
  auto [c, n, p, m] = smpSizes(topo, bytes);
  return (n - 1) * net.alphaUs + 2 * net.shmLatencyUs +
         linkBlocks(topo) * contention(topo) * (m + static_cast<double>(net.headerBytes) / (c * c)) *
             betaUs(net) * nicFactor(topo, nic) +
         nicFillUs(topo, nic, bytes) + (p + c) * m * net.copyNsPerByte * 1e-3;
}

int64_t MeshRows::cuts() const {
  int64_t cuts = 0;
  for (size_t d = 0; d < parts.size(); ++d)
    cuts += !inRows(d) && !inColumns(d) && shape[d] > 1;
  return cuts;
}

bool MeshRows::rowMajor() const {
  size_t d = 0;
  while (d < parts.size() && inRows(d))
    ++d;
  // d is the cut, or the first dimension in the columns
  for (size_t e = d + 1; e < parts.size(); ++e)
    if (!inColumns(e) && shape[e] > 1)
      return false;
  return true;
}

std::string MeshRows::describe() const {
  std::string text = std::to_string(width) + "x" + std::to_string(height) + " (parts ";
  for (size_t d = 0; d < parts.size(); ++d)
    text += (d ? "," : "") + std::to_string(parts[d]);
  return text + ")";
}

std::optional<MeshRows> collc::meshOfParts(llvm::ArrayRef<int64_t> shape, int64_t ranksPerNode,
                                           llvm::ArrayRef<int64_t> parts) {
  if (parts.size() != shape.size())
    return std::nullopt;
  MeshRows mesh;
  mesh.shape.assign(shape.begin(), shape.end());
  mesh.parts.assign(parts.begin(), parts.end());
  mesh.width = ranksPerNode;
  int64_t p = ranksPerNode;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (parts[d] < 1 || shape[d] % parts[d])
      return std::nullopt;
    mesh.width *= mesh.segment(d);
    p *= shape[d];
  }
  mesh.height = p / mesh.width;
  return mesh;
}

/// Every mesh: each dimension's parts a divisor of its extent, the row-major
/// ones first (a prefix whole in the rows, then one cut), then the others
/// by how many dimensions they cut, so that a tie keeps the simplest.
static std::vector<MeshRows> meshCandidates(llvm::ArrayRef<int64_t> shape, int64_t ranksPerNode) {
  std::vector<MeshRows> all;
  MeshRows mesh;
  mesh.shape.assign(shape.begin(), shape.end());
  mesh.parts.assign(shape.size(), 1);
  std::function<void(size_t)> choose = [&](size_t d) {
    if (d == shape.size()) {
      all.push_back(*meshOfParts(shape, ranksPerNode, mesh.parts));
      return;
    }
    for (int64_t parts = 1; parts <= shape[d]; ++parts)
      if (shape[d] % parts == 0) {
        mesh.parts[d] = parts;
        choose(d + 1);
      }
  };
  choose(0);
  auto rank = [](const MeshRows &m) { return std::make_pair(m.rowMajor() ? 0 : 1, m.cuts()); };
  std::stable_sort(all.begin(), all.end(),
                   [&](const MeshRows &a, const MeshRows &b) { return rank(a) < rank(b); });
  return all;
}

MeshRows collc::vmeshRows(const TopologySpec &topo, int64_t bytes, bool evenCounts) {
  std::vector<MeshRows> candidates = meshCandidates(topo.shape, topo.ranksPerNode);
  // Behind a switch every mesh puts about 2·P·m bytes on a node's link, so
  // the squarest, which pays the fewest receive overheads, is fastest. It
  // is also what a torus whose P has no two factors >= 2 gets.
  const MeshRows *squarest = nullptr;
  for (const MeshRows &mesh : candidates) {
    if (!mesh.rowMajor())
      continue;
    int64_t cost = mesh.width + mesh.height;
    if (!squarest || cost < squarest->width + squarest->height ||
        (cost == squarest->width + squarest->height && mesh.width > squarest->width))
      squarest = &mesh;
  }
  const MeshRows *best = nullptr;
  double bestUs = 0;
  if (topo.fabric == Fabric::Torus)
    for (const MeshRows &mesh : candidates) {
      if (mesh.width < 2 || mesh.height < 2 || mesh.cuts() > 1)
        continue;
      double us = vmeshAlltoallUs(topo, bytes, evenCounts, mesh, NicLoad{}); // no NIC on a torus
      if (!best || us < bestUs * (1 - 1e-9)) {
        best = &mesh;
        bestUs = us;
      }
    }
  return best ? *best : *squarest;
}

/// Coordinates from, from + step, ... below `to`: a dimension's share of a
/// product set for productAlltoallLoad.
static llvm::SmallVector<int64_t, 8> coordinates(int64_t from, int64_t to, int64_t step = 1) {
  llvm::SmallVector<int64_t, 8> set;
  for (int64_t i = from; i < to; i += step)
    set.push_back(i);
  return set;
}

double collc::productAlltoallLoad(const TopologySpec &topo,
                                  llvm::ArrayRef<llvm::SmallVector<int64_t, 8>> sets,
                                  int64_t cores, double *busiestLinks) {
  double members = 1;
  for (const auto &set : sets)
    members *= static_cast<double>(set.size());
  bool adaptive = topo.routing == Routing::Adaptive;
  double reverse = topo.network.reverseLoad;
  double worst = 0, links = 0;
  for (size_t d = 0; d < sets.size(); ++d) {
    int64_t n = topo.shape[d];
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    // load[2·i + dir]: the link from coordinate i one step + (dir 0) or −
    std::vector<double> load(2 * static_cast<size_t>(n), 0.0);
    auto route = [&](int64_t from, int64_t hops, int dir, double weight) {
      for (int64_t h = 0, at = from; h < hops; ++h) {
        int64_t link = dir == 0 ? at : (at - 1 + n) % n; // the link's lower end
        load[2 * static_cast<size_t>(link) + dir] += weight;
        load[2 * static_cast<size_t>(link) + 1 - dir] += weight * reverse; // its acks
        at = (at + (dir == 0 ? 1 : -1) + n) % n;
      }
    };
    // one group's alltoall along the ring
    auto exchange = [&](llvm::ArrayRef<int64_t> group) {
      for (int64_t a : group)
        for (int64_t b : group) {
          if (a == b)
            continue;
          int64_t up = ((b - a) % n + n) % n, down = n - up;
          if (!wraps)
            route(a, std::abs(b - a), b > a ? 0 : 1, 1.0);
          else if (up < down)
            route(a, up, 0, 1.0);
          else if (down < up)
            route(a, down, 1, 1.0);
          else if (adaptive) {
            route(a, up, 0, 0.5);
            route(a, down, 1, 0.5);
          } else if (wrappedStep(a, b, n) > 0) { // SimGrid's tie rule
            route(a, up, 0, 1.0);
          } else {
            route(a, down, 1, 1.0);
          }
        }
    };
    // S_d and its translates by 1, 2, ... that meet no earlier one: the
    // ring's other groups, which exchange at the same time. Callers pass
    // sets whose translates tile the dimension ({0}, all of it, a segment
    // from 0, or every s-th coordinate); on a mesh a translate never
    // wraps past the end.
    std::vector<bool> covered(static_cast<size_t>(n), false);
    for (int64_t shift = 0; shift < n; ++shift) {
      llvm::SmallVector<int64_t, 8> group;
      bool crosses = false;
      for (int64_t a : sets[d]) {
        crosses = crosses || a + shift >= n;
        group.push_back((a + shift) % n);
      }
      if ((crosses && !wraps) ||
          llvm::any_of(group, [&](int64_t at) { return covered[static_cast<size_t>(at)]; }))
        continue;
      for (int64_t at : group)
        covered[static_cast<size_t>(at)] = true;
      exchange(group);
    }
    double ring = *std::max_element(load.begin(), load.end());
    double dimLoad = ring * members / static_cast<double>(sets[d].size());
    // the ring's links at its peak: those one group's exchange waits for
    double atPeak = static_cast<double>(llvm::count_if(
        load, [&](double l) { return l > 0 && l >= ring * (1 - 1e-9); }));
    if (dimLoad > worst * (1 + 1e-9)) {
      worst = dimLoad;
      links = atPeak;
    } else if (dimLoad >= worst * (1 - 1e-9)) {
      links += atPeak;
    }
  }
  if (busiestLinks)
    *busiestLinks = links;
  return worst * static_cast<double>(cores * cores);
}

/// The hops from one member of a group to its farthest other member, the
/// group a product of one set per dimension (as productAlltoallLoad takes
/// them). Each set is an arithmetic progression from 0 (a segment or every
/// s-th coordinate), so the distances between its members are those from 0:
/// the shorter way round on a wrapped ring, straight along a line.
static int64_t farthestHops(const TopologySpec &topo,
                            llvm::ArrayRef<llvm::SmallVector<int64_t, 8>> sets) {
  int64_t hops = 0;
  for (size_t d = 0; d < sets.size(); ++d) {
    int64_t n = topo.shape[d], farthest = 0;
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    for (int64_t b : sets[d])
      farthest = std::max(farthest, wraps ? std::min(b, n - b) : b);
    hops += farthest;
  }
  return hops;
}

double collc::countsNonEmpty(bool evenCounts) {
  // collc-run's random counts are 0 with probability 1/4, and a transfer of
  // length 0 is skipped (docs/plan-format.md)
  return evenCounts ? 1.0 : 0.75;
}

double collc::countsSpread(double blocks, double links) {
  // The collc-run random counts: 0 with probability 1/4, else uniform in
  // [1, N]: mean 3N/8, second moment N²/4, so variance 7N²/64 and
  // CV = (√7·N/8)/(3N/8) = √7/3.
  static const double kCountsCV = std::sqrt(7.0) / 3;
  if (blocks <= 0 || links <= 1)
    return 1;
  return 1 + kCountsCV * std::sqrt(2 * std::log(links)) / std::sqrt(blocks);
}

double collc::vmeshAlltoallUs(const TopologySpec &topo, int64_t bytes, bool evenCounts,
                              const MeshRows &rows, const NicLoad &nicLoad) {
  const NetworkParams &net = topo.network;
  double m = static_cast<double>(bytes);
  double h = static_cast<double>(net.headerBytes);
  double pvx = static_cast<double>(rows.width), pvy = static_cast<double>(rows.height);
  double rowLoad, colLoad;
  double rowLinks = 0, colLinks = 0; // the directed links at each phase's peak
  int64_t rowHops = 0, colHops = 0; // to the farthest peer (a switch: none counted)
  if (topo.fabric == Fabric::Switch) {
    // a node's link carries its C ranks' messages to the other nodes
    double c = static_cast<double>(topo.ranksPerNode);
    rowLoad = c * (pvx - c);
    colLoad = c * (pvy - 1);
    // the links of a row's (a column's) nodes, each way
    rowLinks = 2 * pvx / c;
    colLinks = 2 * pvy;
  } else {
    // along each dimension a row takes a segment from 0, a column that
    // segment's multiples (both tile the ring with their translates)
    llvm::SmallVector<llvm::SmallVector<int64_t, 8>, 3> row, col;
    for (size_t d = 0; d < topo.shape.size(); ++d) {
      int64_t segment = rows.segment(d);
      row.push_back(coordinates(0, segment));
      col.push_back(coordinates(0, topo.shape[d], segment));
    }
    rowLoad = productAlltoallLoad(topo, row, topo.ranksPerNode, &rowLinks);
    rowHops = farthestHops(topo, row);
    colHops = farthestHops(topo, col);
    // A node's C cores are in C different columns over the same nodes (a
    // row holds the node's cores), and the C columns exchange at once.
    colLoad = productAlltoallLoad(topo, col, 1, &colLinks) * static_cast<double>(topo.ranksPerNode);
  }
  double nic = nicFactor(topo, nicLoad);
  // With counts that vary (the model knows only their mean) a phase ends
  // with its busiest link, the most loaded of the links its peak load puts
  // on (countsSpread).
  auto spread = [&](double blocks, double links) {
    return evenCounts ? 1.0 : countsSpread(blocks, links);
  };
  double rowUs =
      rowLoad * (pvy * m + h) * betaUs(net) * nic * spread(rowLoad * pvy, rowLinks);
  double colUs =
      colLoad * (pvx * m + h) * betaUs(net) * nic * spread(colLoad * pvx, colLinks);
  // The receive overhead α per message is the rank's own time, so a phase
  // takes its busiest link's time, its α's, or both, as their overlap
  // allows. Every rank starts the row phase at once, and the flows sharing
  // the busiest link share it fairly, so all end together at rowUs; only
  // then does the rank pay the α of each: rowUs + (Pvx − 1)·α. The column
  // phase starts when the row phase ends at each rank, which differs by
  // rank, so its arrivals spread out and its α's are paid while the others
  // are on the wire: max(colUs, (Pvy − 1)·α), and the α of the last one.
  //
  // A message also takes a hop latency per link. The nearest peer's
  // arrives after one hop, and the α's queue behind it; the farthest's
  // after rowHops (colHops), and only its own α follows: on long rings a
  // column reaches n/2 hops, which short blocks feel.
  // (Peers within a node take no hop; behind a switch the model counts none.)
  double hop = net.hopLatencyUs;
  auto nearest = [&](int64_t farthest) { return farthest > 0 ? hop : 0.0; };
  double rowEnd = std::max((pvx - 1) * net.alphaUs + nearest(rowHops),
                           static_cast<double>(rowHops) * hop + net.alphaUs);
  double cols = pvy > 1 ? std::max(colUs + static_cast<double>(colHops) * hop,
                                   (pvy - 1) * net.alphaUs + nearest(colHops)) +
                              net.alphaUs
                        : 0;
  // The re-sort between the phases is no copy: phase 2's messages gather
  // their blocks (MPI datatypes), which cost nothing beyond the message, so
  // the seed's P·m·γ re-sort is not charged. The only COPY is the own block.
  return rowUs + (pvx > 1 ? rowEnd : 0) + cols + nicFillUs(topo, nicLoad, bytes) +
         m * net.copyNsPerByte * 1e-3;
}

double collc::smpRingAllgathervUs(const NetworkParams &net, int64_t nodes, int64_t cores,
                                  int64_t totalBytes, int64_t blockBytes) {
  // the ring's formula over a pipeline N + C deep, plus the chain's send
  double blocks = static_cast<double>(totalBytes) /
                  static_cast<double>(std::max<int64_t>(1, blockBytes));
  return blockedRingAllgathervUs(net, nodes + cores, 0, totalBytes, blockBytes) +
         blocks * net.shmLatencyUs;
}

double collc::smpAllCoresAlltoallUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic) {
  const NetworkParams &net = topo.network;
  auto [c, n, p, m] = smpSizes(topo, bytes);
  // a core's CPU pays α for each of its N − 1 network sends and N − 1
  // receives: with C blocks a message the overheads, not the bytes, bound
  // short blocks
  return (c - 1) * net.shmLatencyUs + 2 * (n - 1) * net.alphaUs +
         linkBlocks(topo) * contention(topo) * (m + static_cast<double>(net.headerBytes) / c) * betaUs(net) *
             nicFactor(topo, nic) +
         nicFillUs(topo, nic, bytes) + p * m * net.copyNsPerByte * 1e-3;
}

double collc::plannedAlltoallvUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic) {
  const NetworkParams &net = topo.network;
  auto [c, n, p, m] = smpSizes(topo, bytes);
  // collect: C − 1 copies into the arena and a counter
  return (2 * (c - 1) + 2) * net.shmLatencyUs + (n - 1) / c * net.alphaUs +
         linkBlocks(topo) * contention(topo) * (m + static_cast<double>(net.headerBytes) / (c * c)) *
             betaUs(net) * nicFactor(topo, nic) + nicFillUs(topo, nic, bytes) +
         2 * p * m * net.copyNsPerByte * 1e-3;
}

int64_t collc::twoPhaseLine(llvm::ArrayRef<int64_t> shape) {
  int64_t longest = 0;
  for (int64_t d = 1; d < static_cast<int64_t>(shape.size()); ++d)
    if (shape[d] > shape[longest])
      longest = d;
  if (shape.size() == 3)
    for (int64_t d = 0; d < 3; ++d) {
      int64_t a = shape[(d + 1) % 3], b = shape[(d + 2) % 3];
      if (a == b && shape[d] != a)
        return d;
    }
  return longest;
}

double collc::twoPhaseAlltoallUs(const TopologySpec &topo, int64_t bytes) {
  const NetworkParams &net = topo.network;
  int64_t line = twoPhaseLine(topo.shape);
  int64_t lineNodes = topo.shape[line];
  double nl = static_cast<double>(lineNodes);
  double q = static_cast<double>(topo.numNodes()) / nl;
  double m = static_cast<double>(bytes), h = static_cast<double>(net.headerBytes);
  // one line (all coordinates along it, one elsewhere), and one plane
  llvm::SmallVector<llvm::SmallVector<int64_t, 8>, 3> lineSets, planeSets;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    llvm::SmallVector<int64_t, 8> all = coordinates(0, topo.shape[d]), one = {0};
    lineSets.push_back(static_cast<int64_t>(d) == line ? all : one);
    planeSets.push_back(static_cast<int64_t>(d) == line ? one : all);
  }
  // The lowering sends half of a line tie the other way round (its detour):
  // the line's links load as if the router split ties.
  bool detour = hasTies(topo, static_cast<size_t>(line)) && lineNodes >= 4;
  TopologySpec lineTopo = topo;
  if (detour)
    lineTopo.routing = Routing::Adaptive;
  double lineUs = nl * net.alphaUs +
                  productAlltoallLoad(lineTopo, lineSets, 1) * (q * m + h) * betaUs(net);
  double roundUs = (q - 1) * net.alphaUs +
                   productAlltoallLoad(topo, planeSets, 1) * (m + h) * betaUs(net);
  double fillUs = q * (m + h) * betaUs(net);
  // line-bound: the last arrival (the tie, its detour's two legs one after
  // the other) and its round; plane-bound: rounds back to back once the
  // first arrival is in
  double detourUs = detour ? (q - std::floor(q / 2)) * (m + h) * betaUs(net) : 0;
  return std::max(lineUs + detourUs + roundUs, std::max(fillUs, roundUs) + (nl - 1) * roundUs);
}

double collc::balancedAlltoallUs(const TopologySpec &topo, int64_t bytes, int64_t fifoDepth,
                                 bool evenCounts) {
  const NetworkParams &net = topo.network;
  double p = static_cast<double>(topo.numRanks());
  double t = static_cast<double>(tieBlocks(topo));
  double c = balancedContention(topo);
  // A tie block goes as two halves, the second through one intermediate
  // per tie dimension (LowerBalanced.cpp). The blocks a tie away along d
  // number P/n_d, and each of their detours takes a forward in d; the rank
  // at n/2 + 1 along d forwards for two sources (n/2 and its + neighbour),
  // most ranks for one, so the busiest rank forwards 2·F, F = Σ_d P/n_d.
  double forwards = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d)
    if (hasTies(topo, d))
      forwards += p / static_cast<double>(topo.shape[d]);
  double busiest = (p - 1 - t) + 2 * t + 2 * forwards;
  // An average rank sends P + 2t messages, whose overheads precede its share
  // of the busiest link (tie blocks travel as two halves, each with its own
  // message and header); the busiest rank's extra forwards run while the
  // links are busy and show only when its overheads alone take longer.
  double link = c * ((p + t) * static_cast<double>(bytes + net.headerBytes) -
                     t * static_cast<double>(bytes)) *
                betaUs(net);
  // FIFO 0 carries the direct exchange's P − 1 steps in windows
  double sent = countsNonEmpty(evenCounts); // the empty blocks' messages skipped
  return std::max(busiest * sent * net.alphaUs, (p + 2 * t) * sent * net.alphaUs + link) +
         windowStallUs(topo, bytes, p - 1, static_cast<double>(fifoDepth));
}

double collc::dimRingsStageWork(int64_t n, bool ring) {
  if (!ring) {
    // A line's middle link carries, each way, the items of the ⌊n/2⌋ nodes
    // on one side for the ⌈n/2⌉ on the other: that many distances of 8/n
    // units (a line of 2: 4, as a ring of 2).
    return n > 1 ? 8.0 * double(n / 2) * double((n + 1) / 2) / double(n) : 0.0;
  }
  // A ring of 2 is all tie: the router sends both halves the same way, so
  // its one loaded link carries D/2 = 4 units.
  return n == 2 ? 4.0 : n > 1 ? double(n) : 0.0;
}

double collc::dimRingsChainWork(int64_t n, bool ring) {
  // A line's messages go straight to their nodes, all at once: nothing
  // waits for a forward piece.
  if (!ring)
    return 0.0;
  // Step t < h of a ring of n = 2h (or 2h + 1) sends each neighbour the
  // items still to travel, h − t − 1/2 (h − t) distances' worth, beside the
  // one distance it delivers; the two flows share the link until the
  // shorter ends, so the forward piece takes its bytes plus the shorter's.
  // A distance's items are 8/n units.
  int64_t h = n / 2;
  double work = 0;
  for (int64_t t = 1; t < h; ++t) {
    double forward = double(h - t) - (n % 2 == 0 ? 0.5 : 0.0);
    work += forward + std::min(forward, 1.0);
  }
  return work * 8 / double(std::max<int64_t>(n, 1));
}

double collc::dimRingsVStageWork(int64_t n, int64_t ranks, bool spread) {
  double work = dimRingsStageWork(n);
  if (n % 2 == 0 && n > 2) {
    // The tie's detoured half travels as n/2 − 1 forwarding steps after
    // its first leg (LowerDimRingsV.cpp), each carrying half a distance's
    // items (4/n units) once the rest of the stage has left the link: they
    // run alone, one after the other, (n/2 − 1)·4/n = 2 − 4/n units.
    work += 2 - 4 / double(n);
  }
  // A stage ends with its most loaded link, and the next waits for it. With
  // counts that vary (the model knows only their mean) the busiest link
  // carries N = n·P/8 part-blocks (n units of P/8); a ring's ranks move
  // on when their ring's 2n links are done (countsSpread).
  if (!spread)
    return work;
  return work * countsSpread(double(n) * double(ranks) / 8, 2 * double(n));
}

double collc::dimRingsMakespan(llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> orders,
                               llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<bool> wrap,
                               llvm::function_ref<double(int64_t, bool)> stageWork) {
  // Work of a stage: its ring's (or line's) busiest link's load, n_d in
  // units of D/8 on a ring (a ring of 1 has none; stageWork). Parts in the
  // same dimension share its links equally.
  return dimRingsStages(orders, shape, [&](int64_t d, int sharing, int) {
    return stageWork(shape[d], wrap.empty() || wrap[d]) * sharing;
  });
}

double collc::dimRingsStages(llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> orders,
                             llvm::ArrayRef<int64_t> shape, DimRingsStageTime stageTime) {
  size_t np = orders.size(), stages = shape.size();
  std::vector<size_t> stage(np, 0);
  std::vector<double> left(np, 1.0); // of the stage, as a fraction
  // The lowering's hand-off (LowerDimRings.cpp, afterHandOff): a part
  // entering dimension d at stage k > 0 waits until every other part whose
  // stage k − 1 is on d has finished it. Without this rule the model let a
  // part share a dimension the schedule keeps it off, and chose orders the
  // schedule runs slower.
  auto waiting = [&](size_t p) {
    size_t k = stage[p];
    if (k == 0 || k >= stages)
      return false;
    for (size_t q = 0; q < np; ++q)
      if (q != p && orders[q][k - 1] == orders[p][k] && stage[q] <= k - 1)
        return true;
    return false;
  };
  double now = 0;
  for (;;) {
    std::vector<int> sharing(stages, 0);
    std::vector<bool> running(np, false);
    int active = 0;
    bool unfinished = false;
    for (size_t p = 0; p < np; ++p)
      if (stage[p] < stages) {
        unfinished = true;
        if (!waiting(p)) {
          running[p] = true;
          ++active;
          ++sharing[orders[p][stage[p]]];
        }
      }
    if (!unfinished)
      return now;
    // each running stage's duration at today's rates; an empty one (a ring
    // of 1) ends at once
    std::vector<double> duration(np, 0);
    double step = 1e300;
    for (size_t p = 0; p < np; ++p)
      if (running[p]) {
        int64_t d = orders[p][stage[p]];
        duration[p] = stageTime(d, sharing[d], active);
        step = std::min(step, duration[p] > 0 ? left[p] * duration[p] : 0.0);
      }
    if (step >= 1e300) // cannot happen: the earliest unfinished stage never waits
      return 1e300;
    now += step;
    for (size_t p = 0; p < np; ++p)
      if (running[p]) {
        left[p] -= duration[p] > 0 ? step / duration[p] : 1.0;
        if (left[p] <= 1e-12) {
          ++stage[p];
          left[p] = 1.0;
        }
      }
  }
}

collc::DimRingsOrders collc::dimRingsOrders(llvm::ArrayRef<int64_t> shape, int64_t parts,
                                            llvm::ArrayRef<bool> wrap) {
  llvm::SmallVector<int64_t, 3> active, idle;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (shape[d] > 1 ? active : idle).push_back(d);
  if (active.empty()) { // every extent 1: one part, over dimension 0
    active.push_back(0);
    idle.erase(idle.begin());
  }
  size_t np = parts > 0 ? static_cast<size_t>(parts) : active.size();
  // every permutation of the active dimensions, then the idle ones
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>> perms;
  llvm::SmallVector<int64_t, 3> perm = active;
  do {
    llvm::SmallVector<int64_t, 3> order = perm;
    order.append(idle.begin(), idle.end());
    perms.push_back(order);
  } while (std::next_permutation(perm.begin(), perm.end()));
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>> trial(np);
  DimRingsOrders best;
  best.makespan = 1e300;
  std::vector<size_t> pick(np, 0);
  for (;;) {
    for (size_t p = 0; p < np; ++p)
      trial[p] = perms[pick[p]];
    double t = dimRingsMakespan(trial, shape, wrap);
    if (t < best.makespan - 1e-9)
      best = {trial, t};
    size_t p = 0;
    while (p < np && ++pick[p] == perms.size())
      pick[p++] = 0;
    if (p == np)
      break;
  }
  // One part: every order has the same makespan (its stages run one after
  // the other). The ranks leave a stage spread apart, and each step of the
  // next waits for its neighbours, so the longest chain of steps goes first
  // while they are in step.
  if (np == 1)
    std::stable_sort(best.orders[0].begin(), best.orders[0].end(),
                     [&](int64_t a, int64_t b) { return shape[a] > shape[b]; });
  return best;
}

double collc::dimRingsAlltoallUs(const TopologySpec &topo, int64_t bytes, int64_t numParts) {
  const NetworkParams &net = topo.network;
  DimRingsOrders chosen = dimRingsOrders(topo.shape, numParts, topo.wrap);
  double parts = static_cast<double>(chosen.orders.size());
  double p = static_cast<double>(topo.numRanks());
  // a ring's links carry its flows both ways, and each way the other's acks
  double unitUs =
      p * static_cast<double>(bytes) / parts / 8 * betaUs(net) * (1 + net.reverseLoad);
  // A stage on a ring of n: h = ⌊n/2⌋ steps of one hop, 2(2h − 1)
  // messages received (4 a step, 2 in the tie's). On a line of n: one
  // round of n − 1 messages, sent straight to their nodes (LowerDimRings.cpp,
  // emitLineMessages), the farthest n − 1 hops away.
  auto ringAt = [&](size_t d) { return topo.wrap.empty() || topo.wrap[d]; };
  auto roundsOf = [](int64_t n, bool ring) {
    return n < 2 ? 0.0 : ring ? static_cast<double>(n / 2) : 1.0;
  };
  auto hopsOf = [](int64_t n, bool ring) {
    return n < 2 ? 0.0 : static_cast<double>(ring ? n / 2 : n - 1);
  };
  auto receivesOf = [&](int64_t n, bool ring) {
    if (n < 2)
      return 0.0;
    return ring ? 2 * (2 * roundsOf(n, ring) - 1) : static_cast<double>(n - 1);
  };
  double rounds = 0, hops = 0, receives = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    rounds += roundsOf(topo.shape[d], ringAt(d));
    hops += hopsOf(topo.shape[d], ringAt(d));
    receives += receivesOf(topo.shape[d], ringAt(d));
  }
  // Long blocks: the links, and the rounds on the critical path, each a
  // message overhead each way, and their hops (L each).
  double links = chosen.makespan * unitUs + rounds * 2 * net.alphaUs + hops * net.hopLatencyUs;
  // Every part's receives pass through the one rank: their overheads add
  // up and, for short blocks, outlast the links.
  double overheads = parts * receives * net.alphaUs + hops * net.hopLatencyUs;
  // Short blocks: a stage is a chain of h ring steps, each waiting for the
  // forward piece of the step before: its receive overheads (the CPU is
  // shared by every part running at the moment), its
  // hop, and the forward piece's bytes (dimRingsChainWork). The hand-off
  // makes parts cross a dimension one after the other, so a long ring's
  // chain is paid once per part.
  double chains = dimRingsStages(chosen.orders, topo.shape, [&](int64_t d, int sharing,
                                                                int running) {
    int64_t n = topo.shape[d];
    bool ring = ringAt(static_cast<size_t>(d));
    if (n < 2)
      return 0.0;
    double link = dimRingsStageWork(n, ring) * unitUs;
    double chain = running * receivesOf(n, ring) * net.alphaUs +
                   hopsOf(n, ring) * net.hopLatencyUs + dimRingsChainWork(n, ring) * unitUs;
    return std::max(link * sharing, chain);
  });
  return std::max({links, overheads, chains});
}

double collc::dimRingsAlltoallvUs(const TopologySpec &topo, int64_t bytes, bool evenCounts,
                                  int64_t numParts) {
  const NetworkParams &net = topo.network;
  DimRingsOrders chosen = dimRingsOrders(topo.shape, numParts);
  // Uneven counts spread the links' loads (dimRingsVStageWork), but only
  // the hand-off turns that into waiting: with several parts a part enters
  // a dimension only when the other part's stage on it has ended at this
  // rank, i.e. after the ring's slowest link. With one part nothing waits
  // for the ring: a rank's next stage starts when its own messages are in,
  // and its own load is the mean's.
  bool spread = !evenCounts && chosen.orders.size() > 1;
  auto stageWork = [&](int64_t n, bool) {
    return dimRingsVStageWork(n, topo.numRanks(), spread);
  };
  double parts = static_cast<double>(chosen.orders.size());
  double p = static_cast<double>(topo.numRanks());
  double makespan = dimRingsMakespan(chosen.orders, topo.shape, {}, stageWork);
  double receives = 0, critical = 0;
  for (int64_t n : topo.shape) {
    if (n <= 1)
      continue;
    bool split = n % 2 == 0 && n > 2;
    // per part and stage: one message from each ring peer, the detour's
    // second leg, and the one this rank forwards
    receives += static_cast<double>(n - 1) + (split ? 2 : 0);
    // a stage waits for its last arrival: a message start, the hops of the
    // longest route, and the detour's second leg
    critical += (split ? 3 : 1) * net.alphaUs + static_cast<double>(n / 2) * net.hopLatencyUs;
  }
  double links = makespan * p * static_cast<double>(bytes) / parts / 8 * betaUs(net) *
                 (1 + net.reverseLoad);
  double overheads = parts * receives * net.alphaUs;
  return std::max(links, overheads) + critical;
}

int64_t collc::dimRingsParts(const TopologySpec &topo, int64_t bytes, bool alltoallv,
                             bool evenCounts) {
  // Fewer parts than the most only when the model prices them clearly
  // cheaper. Where the longest dimension's links bound every count alike
  // the fluid model cannot tell them apart, but more parts keep more
  // dimensions' links busy at once (their rotation), which it does not
  // price. The margin is the model's own resolution: its estimates aim at
  // ±10% of the time, so two within 5% of each other may be in either order
  // (docs/design.md, "Cost model").
  constexpr double kMargin = 0.05;
  auto price = [&](int64_t parts) {
    return alltoallv ? dimRingsAlltoallvUs(topo, bytes, evenCounts, parts)
                     : dimRingsAlltoallUs(topo, bytes, parts);
  };
  int64_t most = algorithms::dimRingsMaxParts(topo.shape);
  double mostUs = price(most);
  int64_t best = most;
  double bestUs = mostUs;
  for (int64_t parts = most - 1; parts >= 1; --parts)
    if (double us = price(parts); us < bestUs) {
      best = parts;
      bestUs = us;
    }
  return bestUs < mostUs * (1 - kMargin) ? best : most;
}

double collc::pointToPointUs(const NetworkParams &net, int64_t bytes,
                             double contention) {
  return net.alphaUs +
         static_cast<double>(bytes + net.headerBytes) * contention *
             betaUs(net);
}

double collc::meanHops(const TopologySpec &topo) {
  if (topo.fabric == Fabric::Switch)
    return topo.numNodes() > 1 ? 2 : 0; // up to the switch and down
  double hops = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    int64_t n = topo.shape[d];
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    double sum = 0; // over the n offsets (0 included), as the router goes
    for (int64_t o = 0; o < n; ++o)
      sum += static_cast<double>(wraps ? std::min(o, n - o) : o);
    // a line: the mean distance over ordered pairs, Σ_o 2(n − o)·o / n²
    if (!wraps) {
      sum = 0;
      for (int64_t o = 1; o < n; ++o)
        sum += 2.0 * static_cast<double>((n - o) * o) / static_cast<double>(n);
    }
    hops += sum / static_cast<double>(n);
  }
  return hops;
}

double collc::maxHops(const TopologySpec &topo) {
  if (topo.fabric == Fabric::Switch)
    return topo.numNodes() > 1 ? 2 : 0;
  double hops = 0;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    int64_t n = topo.shape[d];
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    hops += static_cast<double>(wraps ? n / 2 : n - 1);
  }
  return hops;
}

double collc::farthestSources(const TopologySpec &topo) {
  double c = static_cast<double>(topo.ranksPerNode);
  if (topo.fabric == Fabric::Switch) // every other node's ranks are two hops away
    return static_cast<double>(topo.numRanks()) - c;
  // per dimension, the offsets at the longest distance: two on an odd ring
  // (±(n − 1)/2), one on an even ring (n/2) and on a line (its far end)
  double sources = c;
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    int64_t n = topo.shape[d];
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    if (wraps && n % 2 == 1 && n > 1)
      sources *= 2;
  }
  return sources;
}

double collc::windowStallUs(const TopologySpec &topo, int64_t bytes, double messages,
                            double depth) {
  const NetworkParams &net = topo.network;
  depth = std::max(1.0, depth);
  double windows = std::ceil(std::max(0.0, messages) / depth);
  if (windows <= 1)
    return 0;
  // A window's first send completes after its overhead, the hops and its
  // own bytes; the rank meanwhile issues the other depth − 1. If that is
  // shorter, it waits for the difference before the next window.
  double roundTrip = net.alphaUs + meanHops(topo) * net.hopLatencyUs +
                     static_cast<double>(bytes + net.headerBytes) * betaUs(net);
  double stall = std::max(0.0, roundTrip - (depth - 1) * net.alphaUs);
  return (windows - 1) * stall;
}

namespace {

/// Routes blocks between the nodes of a torus as its router does
/// (dimension by dimension, x first; the shorter way round a ring; a tie
/// SimGrid's way, or half each way when routing is adaptive), calling
/// visit(link, weight) for every link a block crosses. Links are numbered
/// (node·dims + d)·2 + dir: the link from `node` one step along d, + (dir
/// 0) or − (dir 1), so link ^ 1 is the reverse direction's.
class TorusRoutes {
public:
  explicit TorusRoutes(const TopologySpec &topo)
      : topo(topo), dims(topo.shape.size()), stride(dims, 1),
        adaptive(topo.routing == Routing::Adaptive) {
    for (size_t d = 1; d < dims; ++d)
      stride[d] = stride[d - 1] * topo.shape[d - 1];
  }

  size_t links() const { return static_cast<size_t>(topo.numNodes()) * dims * 2; }

  /// The hops of a route from node a to node b.
  int64_t hops(int64_t a, int64_t b) const {
    int64_t total = 0;
    for (size_t d = 0; d < dims; ++d) {
      int64_t n = topo.shape[d], up = ((coord(b, d) - coord(a, d)) % n + n) % n;
      total += wraps(d) ? std::min(up, n - up) : std::abs(coord(b, d) - coord(a, d));
    }
    return total;
  }

  template <typename Visit> void route(int64_t a, int64_t b, double w, Visit &&visit) const {
    for (size_t d = 0; d < dims; ++d) {
      int64_t n = topo.shape[d], from = coord(a, d), to = coord(b, d);
      if (from == to)
        continue;
      int64_t up = ((to - from) % n + n) % n, down = n - up;
      auto walk = [&](int dir, int64_t hops, double weight) {
        int64_t at = a;
        for (int64_t h = 0; h < hops; ++h) {
          visit((static_cast<size_t>(at) * dims + d) * 2 + dir, weight);
          int64_t x = coord(at, d), nx = ((x + (dir == 0 ? 1 : -1)) % n + n) % n;
          at += (nx - x) * stride[d];
        }
        return at;
      };
      if (!wraps(d)) {
        a = walk(to > from ? 0 : 1, std::abs(to - from), w);
      } else if (up != down) {
        a = walk(up < down ? 0 : 1, std::min(up, down), w);
      } else if (adaptive) { // a tie: half each way, then on from the same coordinate
        walk(0, up, w / 2);
        a = walk(1, down, w / 2);
      } else {
        a = walk(wrappedStep(from, to, n) > 0 ? 0 : 1, up, w);
      }
    }
  }

private:
  int64_t coord(int64_t node, size_t d) const { return node / stride[d] % topo.shape[d]; }
  bool wraps(size_t d) const { return d < topo.wrap.size() ? topo.wrap[d] : true; }

  const TopologySpec &topo;
  size_t dims;
  std::vector<int64_t> stride;
  bool adaptive;
};

} // namespace

double collc::directWindowLinkBlocks(const TopologySpec &topo, int64_t depth,
                                     std::optional<int64_t> randomSeed) {
  int64_t p = topo.numRanks(), c = topo.ranksPerNode;
  double r = topo.network.reverseLoad;
  TorusRoutes routes(topo);
  std::vector<double> load(routes.links(), 0.0);
  auto add = [&](size_t link, double w) { load[link] += w; };
  // step k sends to r + k; the steps k = 1 .. P − 1 in the plan's order
  std::vector<int64_t> steps(static_cast<size_t>(std::max<int64_t>(0, p - 1)));
  if (randomSeed)
    collrt_order_permutation(1, steps.size(), *randomSeed, 0, steps.data());
  else
    std::iota(steps.begin(), steps.end(), int64_t(1));
  double total = 0;
  size_t window = static_cast<size_t>(std::max<int64_t>(1, depth));
  for (size_t first = 0; first < steps.size(); first += window) {
    std::fill(load.begin(), load.end(), 0.0);
    for (size_t i = first; i < std::min(steps.size(), first + window); ++i)
      for (int64_t src = 0, k = steps[i]; src < p; ++src) {
        int64_t a = src / c, b = (src + k) % p / c;
        if (a != b)
          routes.route(a, b, 1.0, add);
      }
    // a link's time: its blocks and the acks of the blocks the other way
    double worst = 0;
    for (size_t l = 0; l < load.size(); ++l)
      worst = std::max(worst, load[l] + r * load[l ^ 1]);
    total += worst;
  }
  return total;
}

double collc::directFirstArrivalBlocks(const TopologySpec &topo) {
  int64_t p = topo.numRanks(), c = topo.ranksPerNode;
  TorusRoutes routes(topo);
  // With every block in flight a link is shared among its flows in
  // inverse proportion to their route's length (a long round trip gets
  // less: TCP's, and SimGrid's CM02, RTT unfairness). A flow of h hops on
  // a link whose flows weigh W = Σ 1/h_f gets 1/(h·W) of it, so its block
  // takes h·W block-times there and arrives after its slowest link's.
  std::vector<double> weight(routes.links(), 0.0);
  for (int64_t src = 0; src < p; ++src)
    for (int64_t dst = 0; dst < p; ++dst) {
      int64_t a = src / c, b = dst / c;
      if (a == b)
        continue;
      double h = static_cast<double>(routes.hops(a, b));
      routes.route(a, b, 1.0 / h, [&](size_t link, double w) { weight[link] += w; });
    }
  double first = std::numeric_limits<double>::infinity();
  for (int64_t a = 0; a < topo.numNodes(); ++a)
    for (int64_t b = 0; b < topo.numNodes(); ++b) {
      if (a == b)
        continue;
      double h = static_cast<double>(routes.hops(a, b)), slowest = 0;
      routes.route(a, b, 1.0, [&](size_t link, double) {
        slowest = std::max(slowest, weight[link]);
      });
      first = std::min(first, h * slowest);
    }
  return std::isfinite(first) ? first : 0;
}

/// Ranks up to which the model routes a direct exchange's windows one by
/// one (P² routes); beyond, the whole exchange's contention stands for
/// every window.
constexpr int64_t kWindowedRanks = 1024;

double collc::directAlltoallUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic,
                               bool evenCounts, const std::optional<std::string> &order,
                               int64_t seed) {
  const NetworkParams &net = topo.network;
  double p = static_cast<double>(topo.numRanks());
  // The links: each window of `depth` steps runs with the links it loads;
  // the next starts as it drains, so the windows' busiest links add up. A
  // window of consecutive shifts loads a few directions of a few
  // dimensions, one of the shared random order a sample of the whole
  // pattern; all steps at once load every link as the whole pattern does
  // (contention). Counts that vary, a switch, a translation order or a
  // large machine: the whole pattern's contention.
  double blocks = linkBlocks(topo) * contention(topo);
  // The shift and the shared random order visit known steps: their
  // windows are routed. The dimension order's translations are not steps
  // of r + k.
  std::string stepOrder = order.value_or("shift");
  bool windowed = evenCounts && topo.fabric == Fabric::Torus &&
                  (stepOrder == "shift" || stepOrder == "random") && topo.numNodes() > 1 &&
                  topo.numRanks() <= kWindowedRanks;
  if (windowed)
    blocks = directWindowLinkBlocks(topo, static_cast<int64_t>(nic.depth),
                                    stepOrder == "random" ? std::optional<int64_t>(seed)
                                                          : std::nullopt);
  // every block its own message (the empty ones skipped)
  double overheads = p * countsNonEmpty(evenCounts) * net.alphaUs;
  double links =
      blocks * static_cast<double>(bytes + net.headerBytes) * betaUs(net) * nicFactor(topo, nic);
  double tail = nicFillUs(topo, nic, bytes) + windowStallUs(topo, bytes, nic.messages, nic.depth);
  // With every step in flight at once a rank receives while its other
  // messages are still on the links. Its receives start with the first
  // arrival (directFirstArrivalBlocks: the shortest routes, which the
  // links favour) and take its overheads from there; the links end with
  // the flows of the longest routes, whose overheads follow them
  // (farthestSources) with their route's hops. The later of the two ends
  // the exchange. A window that drains before the next starts cannot hide
  // its receives behind the next window's bytes, so there they add up; so
  // do they with an onload NIC, whose cores move the bytes they would
  // overlap with. Only where the windows are routed (the arrivals' routes
  // known); elsewhere the whole pattern's contention stands for them.
  if (windowed && nic.depth + 1 >= p && topo.nic.kind != NicKind::Onload) {
    double block = static_cast<double>(bytes + net.headerBytes) * betaUs(net) * nicFactor(topo, nic);
    double receiverBound = directFirstArrivalBlocks(topo) * block + overheads;
    double linkBound = links + farthestSources(topo) * net.alphaUs;
    return std::max(receiverBound, linkBound) + net.alphaUs + maxHops(topo) * net.hopLatencyUs +
           tail;
  }
  // The shared random order's windows each load links all over the torus
  // rather than a few directions in turn as consecutive shifts do, and a
  // rank's next send starts as its oldest completes: its receive overheads
  // run while its window's bytes are on the links, and the later of the
  // two ends the exchange (not with an onload NIC, as above).
  if (windowed && stepOrder == "random" && topo.nic.kind != NicKind::Onload)
    return std::max(overheads, links) + net.alphaUs + maxHops(topo) * net.hopLatencyUs + tail;
  return overheads + links + tail;
}

collc::AlltoallBound collc::alltoallBound(const TopologySpec &topo, int64_t bytes) {
  double c = static_cast<double>(topo.ranksPerNode);
  double n = static_cast<double>(topo.numNodes());
  double m = static_cast<double>(bytes) * betaUs(topo.network);
  AlltoallBound bound; // the forward bytes alone: acks slow an exchange, not the bound
  if (topo.fabric == Fabric::Switch) {
    if (n > 1) {
      bound.us = (n - 1) * c * c * m;
      bound.cut = "a node's link";
    }
    return bound;
  }
  static const char axis[] = "xyz";
  for (size_t d = 0; d < topo.shape.size(); ++d) {
    int64_t k = topo.shape[d];
    if (k < 2)
      continue;
    bool wraps = d < topo.wrap.size() ? topo.wrap[d] : true;
    int64_t lo = k / 2, hi = k - lo;
    // crossing blocks per node-pair slice, over the links that cross one way
    double perNode = static_cast<double>(lo * hi) / static_cast<double>(wraps ? 2 * k : k);
    double us = n * c * c * m * perNode;
    if (us > bound.us || bound.cut.empty()) {
      bound.us = us;
      bound.cut = std::string(1, d < 3 ? axis[d] : '?') + ": " + std::to_string(lo) + "|" +
                  std::to_string(hi) + " of a " + (wraps ? "ring" : "line") + " of " +
                  std::to_string(k);
    }
  }
  return bound;
}

double collc::peakAlltoallUs(const TopologySpec &topo, int64_t bytes) {
  return alltoallBound(topo, bytes).us;
}

std::string collc::explainBound(const AlltoallBound &bound) {
  char line[160];
  std::snprintf(line, sizeof line, "bound: %.1f us (%s)", bound.us, bound.cut.c_str());
  return line;
}

double collc::percentOfPeak(double peakUs, double timeUs) {
  return timeUs > 0 ? 100 * peakUs / timeUs : 0;
}

double collc::directAllgathervUs(const TopologySpec &topo, int64_t bytes) {
  const NetworkParams &net = topo.network;
  double peers = static_cast<double>(topo.numRanks() - 1);
  return peers * net.alphaUs + peers * static_cast<double>(bytes) *
                                   contention(topo) * betaUs(net);
}

int64_t collc::blockedRingBestBlockBytes(const NetworkParams &net,
                                         int64_t ranks, int64_t zeroRanks,
                                         int64_t totalBytes) {
  int64_t spread = ranks + zeroRanks - 2;
  if (spread <= 0)
    return std::max<int64_t>(1, totalBytes);
  double best = std::sqrt(2 * net.alphaUs * static_cast<double>(totalBytes) /
                          (betaUs(net) * static_cast<double>(spread)));
  return std::max<int64_t>(1, std::llround(best));
}

double collc::blockedRingAllgathervUs(const NetworkParams &net, int64_t ranks,
                                      int64_t zeroRanks, int64_t totalBytes,
                                      int64_t blockBytes) {
  double b = static_cast<double>(std::max<int64_t>(1, blockBytes));
  double rounds = static_cast<double>(totalBytes) / b +
                  static_cast<double>(ranks - zeroRanks) / 2;
  return rounds * (net.alphaUs + betaUs(net) * b);
}

std::string collc::explainEstimate(const AlgorithmEstimate &estimate) {
  char line[256];
  int n = std::snprintf(line, sizeof(line),
                        "%s: %.1f us (P=%lld, m=%lld B, C=%.2f",
                        estimate.algorithm.c_str(), estimate.timeUs,
                        static_cast<long long>(estimate.ranks),
                        static_cast<long long>(estimate.bytes),
                        estimate.contention);
  std::string text(line, std::min<size_t>(n, sizeof(line) - 1));
  if (estimate.blockBytes)
    text += ", B=" + std::to_string(*estimate.blockBytes) + " B";
  if (!estimate.shape.empty())
    text += ", mesh " + estimate.shape;
  if (estimate.parts)
    text += ", parts " + std::to_string(*estimate.parts);
  if (estimate.colours)
    text += ", " + std::to_string(*estimate.colours) + " colours";
  if (!estimate.order.empty())
    text += ", " + estimate.order + " order";
  if (estimate.fifoDepth)
    text += ", depth " + std::to_string(*estimate.fifoDepth);
  if (estimate.nicSlowdown) {
    std::snprintf(line, sizeof(line), ", NIC x%.2f", *estimate.nicSlowdown);
    text += line;
  }
  if (estimate.percentOfPeak) {
    std::snprintf(line, sizeof(line), ", %.1f%% of peak",
                  *estimate.percentOfPeak);
    text += line;
  }
  return text + ")";
}

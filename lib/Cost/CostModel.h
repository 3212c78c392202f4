//===- CostModel.h - analytic time of the collective algorithms -*- C++ -*-===//
//
// The BG/L model of Kumar & Heidelberger (docs/design.md) and Träff et al.'s
// blocked-ring model. Times are in microseconds; alpha is in µs per message,
// beta in ns per byte (converted here), m and h in bytes:
//
//   T_ptp      = α + (m + h)·C·β                          (latency L dropped)
//   T_direct   ≈ P·α + P·C·(m + h)·β                      (direct alltoall)
//   T_balanced ≈ max((P − 1 + t + 2F)·α,
//                    (P + 2t)·α + (P + t)·C*·(m + h)·β − t·C*·m·β)
//                (t = blocks a tie away, sent as two halves; F = Σ_d P/n_d
//                over the tie dimensions, the forwards of the detoured
//                halves, twice that at the busiest rank; C* = C with ties
//                balanced)
//   T_peak     = N·C²·m·β·⌊k/2⌋⌈k/2⌉/(2k)                (bisection bound,
//                worst ring of k; /k on a line: alltoallBound)
//   T_agv      ≈ (P−1)·α + (P−1)·m·C·β                    (direct allgatherv)
//   T_ring     = rounds·(α + β·B), rounds = total/B + (P−z)/2
//   B_best     ≈ sqrt(2·α·total / (β·(P+z−2)))
//
// with C the contention of an all-to-all pattern on the topology (see
// contention()). A message between two ranks of one node costs the spec's
// shm_latency_us instead of α: the runtime moves it through node shared
// memory (runtime/src/shm.c), not through MPI. Plain C++: depends only on
// the Spec types.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_COST_COSTMODEL_H
#define COLLC_COST_COSTMODEL_H

#include "lib/Spec/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {

/// Block size the estimates use when the spec gives no 'bytes'.
constexpr int64_t kDefaultEstimateBytes = 4096;

/// Contention C of an all-to-all traffic pattern. A torus dimension of n
/// nodes contributes n/8 (packets travel n/4 hops over 2·P links: the P²·m
/// bytes take P·(n/8)·m·β); a mesh dimension n/4 (half the links cross its
/// bisection). C is the largest dimension's value times ranks per node,
/// because every rank of a node shares the node's links. Behind a switch
/// (fabric: switch) C is the ranks per node alone.
///
/// With dimension-order routing a tie (offset n/2 on an even ring) goes +,
/// so the + links carry the distances 1..n/2: (n+2)/8 instead of n/8 for a
/// direct exchange. `balanced` asks for the contention once ties are split
/// over both directions (adaptive routing, or the balanced schedule).
double contention(const TopologySpec &topo, bool balanced = false);

/// How an exchange drives a node's NIC: `cores` of the node inject, each
/// sending `messages` messages of `blocksPerMessage` blocks and keeping up
/// to `depth` of them in flight (its FIFO depth). Each algorithm module
/// (lib/Algorithms) states its own from its schedule.
struct NicLoad {
  double cores = 1, messages = 0, blocksPerMessage = 1, depth = 1;
};

/// How many times longer the node link's share of an exchange takes behind
/// the spec's NIC than with none (1 without a NIC, and on a torus). A
/// bandwidth-bound exchange fills its window, so the NIC sees
/// flows = cores·min(depth, messages) transfers at once. Onload:
/// 1/min(1, cores·core/link); offload: 1 + congestion·max(0, flows −
/// contexts) (NicParams).
double nicSlowdown(const TopologySpec &topo, const NicLoad &load);

/// Behind an onload NIC, the injection of one message (blocksPerMessage
/// blocks of `bytes`) at one core's rate, which no transfer hides: a core
/// copies a message out before its transfer starts, so its pipeline of
/// messages starts one injection late. Schedules with few large messages a
/// core pay most. 0 otherwise.
double nicFillUs(const TopologySpec &topo, const NicLoad &load, int64_t bytes);

/// C of the balanced schedule: contention(topo, true), but a ring of 2 with
/// ties keeps the direct exchange's C (a tie's detour would start at the
/// destination itself).
double balancedContention(const TopologySpec &topo);

/// Blocks of one rank that are a tie away in some dimension (0 with
/// adaptive routing, a switch, or no even ring).
int64_t tieBlocks(const TopologySpec &topo);

/// T_balanced, see above, plus its FIFO windows' stalls (windowStallUs).
double balancedAlltoallUs(const TopologySpec &topo, int64_t bytes, int64_t fifoDepth,
                          bool evenCounts = true);

/// The mean hops of a message between two nodes: per dimension the mean
/// distance the router takes (the shorter way round a ring; along a line
/// over ordered pairs), summed; 2 behind a switch (up and down).
double meanHops(const TopologySpec &topo);

/// The most hops a route takes (dimension by dimension; two behind a
/// switch).
double maxHops(const TopologySpec &topo);

/// The sources whose blocks take the longest route to one rank: with
/// every step of a direct exchange in flight, their flows share the most
/// links and arrive last.
double farthestSources(const TopologySpec &topo);

/// What a rank waits for its FIFO window: sending `messages` messages of
/// `bytes` with `depth` in flight, it issues a window of depth sends, and
/// the window's first completes after a round trip α + H̄·L + (m + h)·β
/// (overhead, mean hops, its own bytes); the rank spends (depth − 1)·α on
/// the rest. Each window after the first waits for the difference:
///   (⌈messages/depth⌉ − 1)·max(0, α + H̄·L + (m + h)·β − (depth − 1)·α).
/// 0 when the window holds every message, or the overheads cover the trip.
double windowStallUs(const TopologySpec &topo, int64_t bytes, double messages, double depth);

/// T_smp-leader ≈ (N − 1)·α + 2·σ + (P − C)·C*·(m + h/C²)·β + (P + C)·m·γ for
/// seed 002's leader-based alltoall on N nodes of C cores, staged in the
/// node arena: every core copies its P blocks into the arena at once (P·m·γ,
/// the cores in parallel), the leader sends N − 1 network messages of C²
/// blocks (one header each, (P − C)·C blocks a node link) straight out of
/// it, and each core copies the C
/// blocks of a node out as soon as they arrive, so only the last node's
/// copy (C·m·γ) follows the exchange; σ is a counter's latency (filled,
/// then arrived). Sending straight out of the arena is what keeps the
/// leader's own memory out of the path: a gather into its buffer first
/// would add C·P·m·γ before the first byte leaves.
double smpLeaderAlltoallUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic);

/// Seed 000's rule for the two-phase schedule's line: the dimension whose
/// removal leaves a symmetric plane (the other extents equal) if it differs
/// from them, else the longest. The lowering and the model both use it.
int64_t twoPhaseLine(llvm::ArrayRef<int64_t> shape);

/// T_two-phase for seed 000's schedule (line of n_L nodes, plane of Q): the
/// line phase sends n_L − 1 messages of Q blocks, two in flight (offsets 1,
/// n_L − 1, 2, ...), half of a tie's detoured the other way round on a
/// router that breaks ties one way; the plane phase forwards each arrival
/// as it comes in, n_L rounds of a plane alltoall, on other links. So
///   T_line  = n_L·α + L_line·(Q·m + h)·β     (ties split: the detour)
///   T_round = (Q − 1)·α + L_plane·(m + h)·β
///   T = max(T_line + T_detour + T_round,
///           max(Q·(m + h)·β, T_round) + (n_L − 1)·T_round)
/// line-bound: the last arrival (the tie, whose detour's legs run one after
/// the other: T_detour = ⌈Q/2⌉·(m + h)·β) and its round; plane-bound: the
/// rounds back to back once the first arrival is in. L: the busiest link's
/// messages (productAlltoallLoad, acks included).
double twoPhaseAlltoallUs(const TopologySpec &topo, int64_t bytes);

/// The rows of seed 000's virtual mesh (A3). Along each torus dimension d
/// a row takes a segment of shape[d] / parts[d] consecutive coordinates and
/// a column every (shape[d] / parts[d])-th one: parts 1 puts the whole
/// dimension in the rows, parts shape[d] puts it in the columns, anything
/// between cuts it. The cores of a node are always in one row. Pvx (width)
/// = ranks per node × the segments, Pvy (height) = P / Pvx.
/// 8×8×8: 32 × 16, rows on half XY planes (parts {1, 2, 8}); 8×32×16:
/// 128 × 32, rows on XZ planes and columns on Y lines (parts {1, 32, 1}),
/// both as in the seed.
struct MeshRows {
  llvm::SmallVector<int64_t, 4> shape; // the torus's
  llvm::SmallVector<int64_t, 4> parts; // per dimension, see above
  int64_t width = 1;                   // Pvx
  int64_t height = 1;                  // Pvy
  /// Of dimension d: the row's segment; whole in the rows, in the columns.
  int64_t segment(size_t d) const { return shape[d] / parts[d]; }
  bool inRows(size_t d) const { return parts[d] == 1; }
  bool inColumns(size_t d) const { return parts[d] == shape[d] && shape[d] > 1; }
  /// Rows are Pvx consecutive ranks (ranks are numbered core fastest, then
  /// x, y, z): every dimension before some k is whole in the rows, every
  /// one after it whole in the columns. Rank r is then at column r mod Pvx
  /// of row r / Pvx.
  bool rowMajor() const;
  /// Dimensions cut: in both the rows and the columns.
  int64_t cuts() const;
  /// "32x16 (parts 1,2,8)": Pvx x Pvy and the parts, as the spec's `mesh`
  /// takes them; the words --explain prints.
  std::string describe() const;
};
/// The mesh vmesh builds, and the one the model prices. Behind a switch
/// (one link per node, whatever the mesh) the one with Pvx + Pvy smallest,
/// the fewest receive overheads, among meshes of consecutive ranks, the
/// wider on a tie. On a torus the one vmeshAlltoallUs(mesh) prices fastest
/// at `bytes` among the choices of parts with Pvx, Pvy >= 2 that cut at
/// most one dimension (the seed's forms: rows on lines, planes or parts of
/// one): the phases' link loads and receive overheads differ by mesh.
/// Blocks cut along several dimensions (a row of 2×2×2 nodes) are built
/// when the spec's `mesh` asks, but the model does not choose them: their
/// columns cross every dimension, where the product-set load below is the
/// least exact. A short block favours fewer row peers (the row phase's α's
/// are paid after its links), so the model's mesh is often narrower than
/// the seed's. A tie keeps the one enumerated first: consecutive rows, then
/// the fewest cut dimensions.
MeshRows vmeshRows(const TopologySpec &topo, int64_t bytes, bool evenCounts);
/// The mesh of the given parts (the spec's `mesh`); nullopt unless there is
/// one per dimension and each divides its extent.
std::optional<MeshRows> meshOfParts(llvm::ArrayRef<int64_t> shape, int64_t ranksPerNode,
                                    llvm::ArrayRef<int64_t> parts);

/// Messages on the busiest directed link when every rank of a product set
/// of nodes S = S_0 × … × S_{D−1} (S_d: the coordinates it takes along
/// dimension d, `cores` ranks on each node) sends one message to every
/// other rank of S, routed as the topology routes: dimension by dimension,
/// the shorter way round a wrapped dimension (a tie at half an even ring
/// as wrappedStep says under dimension-order routing, half each way when
/// adaptive). A flow crosses dimension d at the coordinates (destination's
/// before d, source's after d), so a d link carries |S|/|S_d| times the load
/// of the alltoall among S_d on its ring, times cores² flows per node pair.
/// Every translate of S_d that partitions the ring runs at the same time
/// (the virtual mesh's other rows and columns), and they share the ring's
/// links where they interleave: 8x8x8's columns take y ∈ {y0, y0 + 4} for
/// each y0 < 4, and the four column families together put 4 messages, not
/// 1, on a y link (collc --report agrees). Each flow also loads the reverse
/// link with network.reverseLoad of itself (its acks). `busiestLinks`, if
/// given, receives how many links of one ring carry the peak load.
double productAlltoallLoad(const TopologySpec &topo,
                           llvm::ArrayRef<llvm::SmallVector<int64_t, 8>> sets,
                           int64_t cores, double *busiestLinks = nullptr);

/// How much longer than its mean load the busiest of `links` links takes
/// when each carries `blocks` blocks whose sizes vary as uneven counts do:
/// the expected maximum of `links` sums of `blocks` independent sizes of
/// coefficient of variation CV is about mean·(1 + CV·√(2 ln links)/√blocks)
/// (the normal approximation of each sum, and the maximum of L normals at
/// √(2 ln L) deviations). CV = √7/3: the spec gives only the mean block, and
/// uneven counts are priced as collc-run's --counts random draws them.
double countsSpread(double blocks, double links);

/// The fraction of blocks that travel as messages: 1 for even counts; 3/4
/// for uneven ones, priced as collc-run's --counts random draws them (a
/// quarter empty), whose empty transfers a plan skips.
double countsNonEmpty(bool evenCounts);

/// T_vmesh ≈ (Pvx − 1)·α + R + max(K, (Pvy − 1)·α) + α + m·γ, with
/// R = L_row·(Pvy·m + h)·β and K = L_col·(Pvx·m + h)·β: seed 000's eq. 4
/// with one message per row and column peer, every byte crossing the
/// network twice, and the receive overheads α where they cannot hide: the
/// row phase starts everywhere at once and its flows end together, so its
/// α's follow R; the column phase's arrivals spread, so its α's overlap K.
/// The seed's re-sort on the intermediate is no copy here (phase 2 gathers
/// through datatypes); m·γ is the own block.
/// L_row and L_col are the busiest link's messages in each phase
/// (productAlltoallLoad over the rows' and the columns' node sets; the
/// columns' times C, a node's C cores being in C columns at once): on an
/// asymmetric torus the two phases load different dimensions (8×4×4: rows
/// on the x rings, columns on y and z), which one contention for the whole
/// torus overstated by 25%. Behind a switch both phases load a node's link
/// with its C ranks' messages. Without `evenCounts` (alltoallv whose counts
/// vary) R and K are charged countsSpread(N, L), N the blocks on that
/// link, L the links of one ring at its peak load. Its
/// `proto` (a per-block size header) is 0 here: block sizes are known at
/// bind (alltoall) or exchanged once per bind (alltoallv).
double vmeshAlltoallUs(const TopologySpec &topo, int64_t bytes, bool evenCounts,
                       const MeshRows &mesh, const NicLoad &nic);

/// T_smp-ring ≈ (total/B + (N + C)/2)·(α + β·B) + (total/B)·α for seed
/// 001's SMP blocked ring on N nodes of C cores: the ring's pipeline is
/// N + C deep instead of P, and a leader sends each block twice (on to the
/// next node and down its chain).
double smpRingAllgathervUs(const NetworkParams &net, int64_t nodes, int64_t cores,
                           int64_t totalBytes, int64_t blockBytes);

/// The blocks of P that a node's busiest link carries per rank in an
/// alltoall: P on a torus (the contention factor places them), P − C behind
/// a switch, where only the other nodes' blocks leave a node (bench/smpi's
/// node-link bound). Every alltoall formula and the peak use it.
double linkBlocks(const TopologySpec &topo);

/// T_smp-all-cores ≈ (C − 1)·σ + 2(N − 1)·α + P·C*·(m + h/C)·β + P·m·γ for
/// seed 002's all-cores alltoall on N nodes of C cores: an intra-node
/// exchange (C − 1 on-node messages, every byte copied once through
/// memory), then every core sends N − 1 messages of C blocks and receives
/// as many, each an overhead on its CPU; the node's link carries what a
/// direct exchange puts on it, with one header per C blocks.
double smpAllCoresAlltoallUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic);

/// T_planned ≈ (2·(C − 1) + 2)·σ + (N − 1)/C·α + (P − C)·C*·(m + h/C²)·β
/// + 2·P·m·γ for seed 004's planned alltoallv: collect in the node arena
/// (C − 1 copies, a counter), one message of C² blocks per node pair (spread
/// over the node's cores; (P − C)·C blocks a node link), distribute (C − 1
/// on-node messages), local blocks directly; every remote byte is staged
/// twice through memory.
double plannedAlltoallvUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic);

/// dim-rings (LowerDimRings.cpp): every block cut into parts, at most one
/// per torus dimension longer than 1 (algorithms::dimRingsMaxParts), each visiting the
/// dimensions in its own order as rings of neighbours. dimRingsMakespan: a
/// fluid model of the stages (a stage on dimension d is n_d units of work
/// on d's links, shared by the parts on d at once); dimRingsOrders: the
/// orders of `parts` parts (0: the most), each a permutation of all
/// dimensions, with the shortest makespan.
/// A stage's work on a ring of n, in units of one part's D/8: the
/// alltoall's neighbour rings (dimRingsStageWork), the alltoallv's ring
/// exchanges with their detoured ties, and with `spread` (uneven counts on
/// `ranks` ranks) their most loaded links (dimRingsVStageWork).
/// On a line (`ring` false) the work is its middle link's load in the same
/// units: ⌊n/2⌋·⌈n/2⌉ distances of 8/n.
double dimRingsStageWork(int64_t n, bool ring = true);
double dimRingsVStageWork(int64_t n, int64_t ranks, bool spread);
/// The alltoall's chain of forward pieces on a ring of n, in the same
/// units: what a stage's last step waits for beyond overheads and hops
/// (ring of 8: 7 of its 8 units).
/// A line forwards nothing: 0.
double dimRingsChainWork(int64_t n, bool ring = true);
/// `wrap` by dimension (empty: every dimension a ring); stageWork(n, ring).
double dimRingsMakespan(llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> orders,
                        llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<bool> wrap = {},
                        llvm::function_ref<double(int64_t, bool)> stageWork = dimRingsStageWork);
/// The stages' schedule under the lowering's hand-off, in any unit: a
/// part's stage on dimension d takes stageTime(d, sharing, running) at the
/// rates of the moment (`sharing` parts on d, `running` in all); returns
/// when the last part is done. dimRingsMakespan is this with link work.
using DimRingsStageTime = llvm::function_ref<double(int64_t d, int sharing, int running)>;
double dimRingsStages(llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> orders,
                      llvm::ArrayRef<int64_t> shape, DimRingsStageTime stageTime);
struct DimRingsOrders {
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>> orders;
  double makespan = 0; // of these orders, in units of one part's D/8
};
DimRingsOrders dimRingsOrders(llvm::ArrayRef<int64_t> shape, int64_t parts = 0,
                              llvm::ArrayRef<bool> wrap = {});
/// The parts dim-rings cuts a block into at `bytes` (alltoallv: the mean
/// block, its counts even or not): the count the model prices cheapest if
/// that is at least 5% below the most parts' price (the model's
/// resolution: half its ±10% aim), else the most. More parts keep more
/// dimensions' links busy at once; fewer send fewer messages, and the
/// hand-off makes the parts cross a dimension one after the other, so
/// short blocks are latency-bound on the chain of ring steps. The
/// lowerings build this count unless the spec's `parts` says.
int64_t dimRingsParts(const TopologySpec &topo, int64_t bytes, bool alltoallv,
                      bool evenCounts);

/// T_dim-rings ≈ max(links, overheads, chains) for `numParts` parts:
///   links     = makespan·(P·m/parts/8)·β + Σ_d ⌊n_d/2⌋·(2α + L), the fluid
///               model's makespan in units of one part's ring load, plus the
///               ring steps on the critical path (a message overhead each
///               way and a hop L each);
///   overheads = parts·R·α + Σ_d ⌊n_d/2⌋·L, the receive overheads of all
///               R = Σ_d 2(2⌊n_d/2⌋ − 1) messages per part, which pass
///               through the one rank;
///   chains    = the stages scheduled under the hand-off (dimRingsStages),
///               a stage of h steps taking its chain of steps: 2(2h − 1)
///               receive overheads times the parts running at the moment
///               (they share the CPU), h hops, and the forward pieces, each
///               sharing its link with the step's delivered piece
///               (dimRingsChainWork); or its links if longer.
/// Short blocks are chain-bound: the hand-off makes the parts cross a long
/// ring one after the other. Headers are not counted; a ring's links carry
/// its flows both ways, each way with the other's acks (× 1 + reverseLoad).
/// A line of n (a dimension that does not wrap) is one round: its work the
/// middle link's (dimRingsStageWork), n − 1 hops, n − 1 receives, no
/// forward pieces.
double dimRingsAlltoallUs(const TopologySpec &topo, int64_t bytes, int64_t parts);
/// dim-rings alltoallv (LowerDimRingsV.cpp): the same parts and orders, each
/// stage an exchange within the ring: the fluid makespan with
/// dimRingsVStageWork, or the receive overheads of (n − 1 + 2) messages per
/// part and even ring, plus per stage a message start (three on an even
/// ring: the detour's two legs) and the hops of the longest route; with
/// uneven counts (the spec's default for alltoallv) and more than one part
/// each stage pays for its most loaded link: the hand-off makes a part wait
/// for the other part's stage on the ring it enters; with one part a rank's
/// next stage waits only for its own messages, whose load is the mean.
double dimRingsAlltoallvUs(const TopologySpec &topo, int64_t bytes, bool evenCounts,
                           int64_t parts);

/// The FIFO depth of `throttle: bisection` (seed 000's throttled direct
/// exchange): eq. 2 drains the network at m/(C·β) bytes per rank and ns
/// (C = contention(topo, balanced): the bisection's), and a message holds
/// its window slot about α + m·β, so ⌈(α + m·β) / (C·m·β)⌉ sends in flight
/// inject at that rate and no faster. In [1, 65535]; 8x8x8 at 4 KiB: 2.
int64_t bisectionThrottleDepth(const TopologySpec &topo, int64_t bytes);

/// T_ptp = α + (m + h)·C·β.
double pointToPointUs(const NetworkParams &net, int64_t bytes,
                      double contention);

/// T ≈ P·α + P·C·(m + h)·β for a direct alltoall of m-byte blocks, plus
/// the NIC's terms and the FIFO window's stalls (windowStallUs over
/// nic.messages with nic.depth); with every step in flight, or the shared
/// random order's sliding window (`seed` draws it), the receive overheads
/// overlap the links and the later of the two ends the exchange.
double directAlltoallUs(const TopologySpec &topo, int64_t bytes, const NicLoad &nic,
                        bool evenCounts = true,
                        const std::optional<std::string> &order = std::nullopt,
                        int64_t seed = 1);

/// The blocks a direct exchange's busiest links carry, window by window:
/// its steps (step k to r + k) in the order the plan visits them (shift:
/// k = 1, 2, ...; with `randomSeed`, the shared random order the runtime
/// draws from it) in windows of `depth`, each window every rank's blocks
/// routed as the topology routes them, the busiest link's forward blocks
/// plus the acks of the blocks the other way, summed over the windows.
double directWindowLinkBlocks(const TopologySpec &topo, int64_t depth,
                              std::optional<int64_t> randomSeed = std::nullopt);

/// With the whole direct exchange in flight, when its first block arrives,
/// in block-times (m + h)·β: links are shared in inverse proportion to the
/// flows' route lengths, so the shortest routes on the least shared links
/// arrive first.
double directFirstArrivalBlocks(const TopologySpec &topo);

/// The lower bound of an alltoall of m-byte blocks, with no startup or
/// header, and the cut that sets it. On a torus or mesh, halving dimension
/// d (extent k) into ⌊k/2⌋ and ⌈k/2⌉ slices of N/k nodes: the blocks that
/// must cross one way, ⌊k/2⌋·⌈k/2⌉·(N/k)²·C²·m, over the links that cross
/// the cut one way, 2·N/k on a ring (N/k on a line):
///   T = N·C²·m·β·⌊k/2⌋⌈k/2⌉ / (2k)   (ring: P·C·(k/8)·m·β when k is even,
///                                      P·C·(k²−1)/(8k)·m·β when odd)
///   T = N·C²·m·β·⌊k/2⌋⌈k/2⌉ / k      (line: P·C·(k/4)·m·β, (k²−1)/(4k))
/// the largest over the dimensions; no routing beats it, and on a ring or
/// line with shortest paths it is the load of the hottest link. Behind a
/// switch, a node's link: (P − C)·C·m·β. One node (no dimension longer
/// than 1): no link, a bound of 0 and an empty cut.
struct AlltoallBound {
  double us = 0;
  std::string cut; // e.g. "x: 2|3 of a ring of 5"
};
AlltoallBound alltoallBound(const TopologySpec &topo, int64_t bytes);
/// "bound: 82.9 us (x: 2|3 of a ring of 5)", as --explain prints it.
std::string explainBound(const AlltoallBound &bound);

/// alltoallBound(...).us, the time --explain and --report compare with.
double peakAlltoallUs(const TopologySpec &topo, int64_t bytes);

/// 100·T_peak / T: how close a time is to the bisection bound.
double percentOfPeak(double peakUs, double timeUs);

/// T ≈ (P−1)·α + (P−1)·m·C·β for a direct allgatherv of m bytes per rank.
double directAllgathervUs(const TopologySpec &topo, int64_t bytes);

/// B ≈ sqrt(2·α·total / (β·(P+z−2))), at least 1 byte; `total` when
/// P+z−2 <= 0 (a single block is then best).
int64_t blockedRingBestBlockBytes(const NetworkParams &net, int64_t ranks,
                                  int64_t zeroRanks, int64_t totalBytes);

/// T = rounds·(α + β·B), rounds = total/B + (P−z)/2 (partial blocks assumed
/// half full) for a blocked ring over P ranks of which z contribute nothing.
double blockedRingAllgathervUs(const NetworkParams &net, int64_t ranks,
                               int64_t zeroRanks, int64_t totalBytes,
                               int64_t blockBytes);

/// The predicted time of one algorithm for a spec.
struct AlgorithmEstimate {
  std::string algorithm; // "direct" | "blocked-ring", as in the spec
  double timeUs = 0;
  int64_t ranks = 0;        // P
  int64_t bytes = 0;        // m: block (alltoall) or contribution per rank
  double contention = 1;    // C
  std::optional<int64_t> blockBytes;   // blocked-ring: B
  std::optional<double> percentOfPeak; // alltoall ops: 100·T_peak/T
  std::string shape;                   // vmesh: the mesh, "Pvx x Pvy"
  std::optional<int64_t> parts;        // dim-rings: the parts of a block
  std::optional<int64_t> colours;      // multi-colour: pieces, one tree each
  std::optional<int64_t> fifoDepth;    // direct, balanced: sends in flight
  std::string order;                   // direct, balanced: the order of the steps
  std::optional<double> nicSlowdown;   // behind a NIC: nicSlowdown
};

/// One line, e.g. "direct: 14618.6 us (P=512, m=4096 B, C=1.00, 92.9% of
/// peak)".
std::string explainEstimate(const AlgorithmEstimate &estimate);

//===----------------------------------------------------------------------===//
// Broadcast and allreduce (ReductionCost.cpp). m is the message (bytes);
// a step between ranks of one node costs σ + m·γ (shared memory), between
// nodes α + (m + h)·β; combining m bytes costs m·γ, like a copy (one pass
// over both operands, no slower than the copy it replaces: the reduce
// kernels are a load, an operation and a store per element).
//===----------------------------------------------------------------------===//

/// Links into the node with the fewest (the one a broadcast reaches last
/// at best): per torus dimension longer than 1, 2 on a ring of more than
/// 2, 1 on a ring of 2 or a line (a line's end node); 1 behind a switch;
/// 0 on one node.
int64_t linksIntoNode(const TopologySpec &topo);

/// The lower bounds --explain prints beside the estimates, over N nodes and
/// L = linksIntoNode links of bandwidth 1/β:
///   bcast      m·β / L: every node but the root's receives m bytes
///   allreduce  2·m·(N − 1)/N·β / L: a node must take in, and give out,
///              (N − 1)/N of the message once for the reduction and once
///              for the result (the reduce-scatter + allgather bound of
///              Patarasuk and Yuan for one link, spread over L)
/// 0 with an empty `why` on one node (no link bounds it).
struct CollectiveBound {
  double us = 0;
  std::string why; // e.g. "m·β/L, L = 6 links into a node"
};
CollectiveBound bcastBound(const TopologySpec &topo, int64_t bytes);
CollectiveBound allreduceBound(const TopologySpec &topo, int64_t bytes);
/// "bound: 12.3 us (m·β/L, L = 6 links into a node)" for an allreduce or
/// bcast spec, std::nullopt for the other ops or one node.
std::optional<std::string> explainReductionBound(const Spec &spec);

/// Recursive doubling (MPICH; seed 003's short allreduce): ⌊log2 P⌋ steps of
/// one exchange and one combination, plus a fold step in and a result step
/// out for the P − 2^⌊log2 P⌋ extra ranks:
///   T = γm + Σ_k (t_k(m) + 2γm) + [rem > 0]·(t(m) + γm + t(m))
/// t_k the step's message (σ + mγ between ranks of one node, α + (m + h)β
/// between nodes), 2γm the combination and the higher partner's copy that
/// keeps the operands' order.
double recursiveDoublingAllreduceUs(const TopologySpec &topo, int64_t bytes);

/// Binomial tree from rank 0: ⌈log2 P⌉ steps along the critical path, each
/// one message of m bytes: T = Σ_k t_k(m).
double binomialBcastUs(const TopologySpec &topo, int64_t bytes);

/// The ring reduce-scatter + allgather (Patarasuk and Yuan): 2(P − 1) steps
/// of one block b = m/P, and P − 1 combinations of a block. A rank's step
/// waits only for its predecessor's step before, so the chain of steps
/// takes its hops one after the other, N/P of them off a node (α + b·β)
/// and the rest on one (σ + b·γ), while the node's link carries a block
/// each way every step; the later of the two ends it:
///   T = max(2(P − 1)·(f·t_net + (1 − f)·t_shm) + (P − 1)·b·γ,
///           2(P − 1)·(b + h)·β + α),  f = N/P (1 with a rank a node)
double ringAllreduceUs(const TopologySpec &topo, int64_t bytes);

/// Seed 003's node-team allreduce (slice-rings) on N nodes of C cores, in
/// Q parts (2·D on a torus, 1 behind a switch), S = m/(Q·C) a core's slice
/// of a part:
///   on node  L = 3·m·γ (the contribution into the arena, the slice's C
///            rows combined, the slice out and the others back; with C = 1
///            one copy, m·γ) and 2σ for the counters
///   torus    each part's stages one dimension of its rotated order: stage k
///            is 2(n_k − 1) steps of α + C·(b_k + h)·β (the node's C slices
///            of one rotation and direction share a link; twice that on a
///            ring of 2, whose two directions are one link) and
///            (n_k − 1)·b_k·γ, b_k = S/(n_0·...·n_k); the slowest rotation
///   switch   one ring of the N nodes per part, the Q·C rings of a node
///            sharing its link: 2(N − 1)·(α + Q·C·(S/N + h)·β) and
///            (N − 1)·(S/N)·γ
///   T = max(L + 2·Q·K·α, L/Q + network) + 2σ: the parts' on-node steps
///   overlap the other parts' rings, except the first fold and the last
///   spread, but a rank's own work is serial: its copies and a send's and a
///   receive's start-up for each of a part's K = Σ 2(n_k − 1) steps.
double sliceRingsAllreduceUs(const TopologySpec &topo, int64_t bytes);

/// The pipelined broadcasts' chunk rule, which their lowerings
/// (LowerPipelinedChain.cpp, LowerMultiColour.cpp) compute at bind time and
/// their estimates reproduce: B = max(kMinChunkBytes, √(α/β·L / (H·w))) for
/// a piece of L bytes down H hops with the fill weighted w. Below 256 B the
/// start-ups dominate whatever the depth (and the verifier's 1000-byte
/// messages still travel in several chunks).
constexpr int64_t kMinChunkBytes = 256;
/// multi-colour's fill weight (LowerMultiColour.cpp says why 4); the chain's is 1.
constexpr int64_t kMultiColourFillWeight = 4;
/// α/β in bytes as a plan folds it from its topology: alpha_ps / beta_ps,
/// at least 1.
int64_t alphaOverBetaBytes(int64_t alphaPs, int64_t betaPs);
/// The same from the spec's network, rounded to picoseconds as the coll
/// dialect's topology attribute is (SpecToColl.cpp).
int64_t alphaOverBetaBytes(const NetworkParams &net);

/// The chunk of the pipelined chain for an m-byte message over P ranks:
/// max(256 B, √(α·m / (β·(P − 2)))), as the lowering computes it at bind.
int64_t chainChunkBytes(const NetworkParams &net, int64_t ranks, int64_t bytes);

/// The pipelined chain from rank 0 in chunks of B: the last rank has the
/// message after P − 2 + ⌈m/B⌉ chunk steps:
///   T = (P − 2 + ⌈m/B⌉)·t(B)
double pipelinedChainBcastUs(const TopologySpec &topo, int64_t bytes);

/// The multi-colour broadcast's shape on a topology (LowerMultiColour.cpp):
/// its colours (C: one per link direction, 2 per wrapped dimension of
/// extent > 2, 1 per other dimension of extent > 1), the most colours that
/// share one directed link (counted over the real trees), the deepest tree
/// path in steps (Σ (n_e − 1) + 1, the on-node hop), the largest piece
/// ⌈m/C⌉ and the chunk max(256, √(α·L/(4·β·depth))) the plan computes at bind.
struct MultiColourPlan {
  int64_t colours = 1;
  int64_t hotLink = 1;
  int64_t depth = 1;
  int64_t pieceBytes = 0;
  int64_t chunkBytes = 256;
};
MultiColourPlan multiColourPlan(const TopologySpec &topo, int64_t bytes);

/// The multi-colour broadcast: each of C pieces pipelined in chunks of B
/// down its own spanning tree,
///   T = (depth − 2)·(α + hot·(B + h)·β) + [R > 1]·(σ + B·γ)
///       + max(hot·⌈L/B⌉·(B + h)·β, ⌈C/R⌉·⌈L/B⌉·α, [R > 1]·m·γ)
/// the fill down the deepest path (a hop's chunk sharing its link with hot
/// colours on the root's lines), then the slowest of the hottest link
/// (hot colours' pieces), a handler's receives (one α per chunk of its
/// colours) and a rank's copies out of the node arena.
double multiColourBcastUs(const TopologySpec &topo, int64_t bytes);

} // namespace collc

#endif // COLLC_COST_COSTMODEL_H

//===- Spec.h - the user's machine + collective description -----*- C++ -*-===//
//
// The in-memory form of a spec.yaml (format v1, see docs/spec.md). The
// parser fills it and reports malformed input as file:line:col diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_SPEC_SPEC_H
#define COLLC_SPEC_SPEC_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace collc {

/// Cost parameters of T_ptp = alpha + (m + h)·C·beta + L. Defaults are BG/L's.
/// The link, hop and shared-memory figures describe the machine for the
/// simulated platform (--emit=platform); the cost model uses alpha, beta and
/// copy, and the hop latency where a chain of neighbour steps (dim-rings)
/// pays one per step.
struct NetworkParams {
  double alphaUs = 1.7;
  double betaNsPerByte = 6.48;
  double copyNsPerByte = 1.6; // gamma
  int64_t headerBytes = 48;   // h
  int64_t protoBytes = 8;     // proto
  double linkMBPerS = 175;    // one link (torus) or a node's link (switch)
  double hopLatencyUs = 1;    // per link traversed
  /// Load a transfer puts on the reverse direction of every link it
  /// crosses, per forward byte: its acknowledgements. SimGrid's TCP model
  /// (network/crosstraffic, on by default) charges 0.05.
  double reverseLoad = 0.05;
  /// Intra-node (shared-memory) transfers; unset bandwidth = 1000/copy.
  std::optional<double> shmMBPerS;
  double shmLatencyUs = 0.1;

  double shmBandwidthMBPerS() const {
    return shmMBPerS ? *shmMBPerS : 1000 / copyNsPerByte;
  }
};

/// How nodes are connected: by the links of the torus/mesh `shape`
/// describes, or each by one link to a non-blocking switch (`shape` then
/// only counts nodes).
enum class Fabric { Torus, Switch };
/// How a torus routes: dimension by dimension, the shorter way round, a tie
/// at half a ring going + except from coordinate n/2 (SimGrid's TORUS:
/// wrappedStep), or adaptively (BG/L), which spreads ties over both
/// directions.
enum class Routing { DimensionOrder, Adaptive };

/// The first hop (+1 or −1) from coordinate `at` to `dst` on a wrapped ring
/// of n, as SimGrid's TorusZone routes it (get_local_route, evaluated at
/// every hop): + when dst lies at most n/2 ahead without wrapping, or when
/// at > n/2 and dst lies at most n/2 ahead across the wrap; − otherwise. So
/// the shorter way round, and a tie (dst = at + n/2) goes + from every
/// coordinate but n/2, whose tie (to 0) goes −: on a ring of 4, the tie
/// 2 -> 0 takes the − link 2 -> 1 and not the + link 2 -> 3 (0 -> 2,
/// 1 -> 3 and 3 -> 1 take their + links). Lowerings that
/// balance ties (dim-rings' alltoallv) and the Full-zone routes collc writes
/// for meshes (lib/Platform) follow this one rule.
inline int64_t wrappedStep(int64_t at, int64_t dst, int64_t n) {
  bool plus = (dst > at && dst <= at + n / 2) || (at > n / 2 && (at + n / 2) % n >= dst);
  return plus ? 1 : -1;
}

/// How a node's network interface behaves as more of its cores use it at
/// once (seed 002). None: the node's link is the only limit, whoever drives
/// it. Onload (QLogic InfiniPath): the CPU moves the bytes, so one core
/// injects at most `coreMBPerS` and more cores raise the node's throughput up
/// to its link. Offload (Mellanox InfiniHost III): the NIC moves the bytes,
/// so one core can fill the link, but the NIC serves `contexts` transfers at
/// full rate and loses throughput beyond them:
/// B(n) = B / (1 + congestion·max(0, n − contexts)) for n transfers in flight.
enum class NicKind { None, Onload, Offload };

/// "" (None), "onload", "offload": the spelling of the spec and of
/// #coll.topology's `nic`.
llvm::StringRef stringifyNicKind(NicKind kind);
std::optional<NicKind> symbolizeNicKind(llvm::StringRef name);

struct NicParams {
  NicKind kind = NicKind::None;
  double coreMBPerS = 0; // onload: one core's injection rate
  int64_t contexts = 16; // offload: transfers served at full rate
  double congestion = 0.01; // offload: throughput lost per transfer beyond them

  /// The node link's rate when `cores` cores inject with `flows` transfers in
  /// flight in all, as a fraction of the link's own rate `linkMBPerS`.
  double linkShare(double linkMBPerS, double cores, double flows) const;
};

struct TopologySpec {
  llvm::SmallVector<int64_t, 3> shape; // nodes per dimension, 1..3 dims
  llvm::SmallVector<bool, 3> wrap;     // same length as shape
  int64_t ranksPerNode = 1;
  Fabric fabric = Fabric::Torus;
  Routing routing = Routing::DimensionOrder;
  NetworkParams network;
  NicParams nic; // fabric: switch only

  int64_t numNodes() const;
  int64_t numRanks() const { return numNodes() * ranksPerNode; }
};

enum class CollectiveKind { Alltoall, Alltoallv, Allgatherv, Allreduce, Bcast };

/// The op's column in CollAlgorithms.def's table (its lowers[] entries):
/// the kinds are declared in the table's column order.
inline int algorithmColumn(CollectiveKind kind) { return static_cast<int>(kind); }

llvm::StringRef stringifyCollectiveKind(CollectiveKind kind);
std::optional<CollectiveKind> symbolizeCollectiveKind(llvm::StringRef name);

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::Alltoall;
  /// Where the spec names the op; compiler diagnostics about the collective
  /// point here.
  llvm::SMLoc opLoc;
  llvm::SMLoc meshLoc;  // where `mesh` was given, for the checks that need the topology
  llvm::SMLoc partsLoc; // where `parts` was given, likewise
  /// Block size (alltoall) or typical contribution (v-ops) the choice is made
  /// for; [minBytes, maxBytes], equal when one value is given.
  std::optional<int64_t> minBytes, maxBytes;
  std::string algorithm = "auto"; // auto | direct | blocked-ring
  /// alltoallv, `counts: even | uneven` (default uneven): whether the blocks
  /// are all about `bytes` or vary around it. Only the cost model reads it:
  /// a schedule whose stages wait for their most loaded link (dim-rings'
  /// alltoallv) pays for uneven counts.
  bool evenCounts = false;
  /// direct and balanced: shift | random | dimension; unset = the algorithm's default
  /// (direct: shift, balanced: random)
  std::optional<std::string> order;
  uint64_t seed = 1;              // order: random
  /// blocked-ring: fixed block size B in bytes; unset = formula at run time.
  std::optional<int64_t> blockBytes;
  /// Sends in flight per FIFO (injection throttling); unset = algorithm default.
  std::optional<int64_t> fifoDepth;
  /// direct and balanced: none | bisection (the FIFO depth from seed 000's
  /// eq. 2); unset = none. Excludes fifoDepth.
  std::optional<std::string> throttle;
  /// two-phase: stage slots at the intermediates (credits); unset = as many
  /// as fit the default budget
  std::optional<int64_t> stages;
  /// dim-rings: waves run one after the other through one wave's scratch;
  /// unset = as few as fit the default budget
  std::optional<int64_t> waves;
  /// vmesh (and auto, should it choose vmesh): the mesh, as parts per torus
  /// dimension (MeshRows: 1 = the whole dimension in the rows, the extent =
  /// in the columns, between = cut); empty = the one the model prices fastest
  std::vector<int64_t> meshParts;
  /// allreduce: the operation and element type every REDUCE step of the
  /// plan combines with, spelled as the plan's one table
  /// (COLLRT_REDUCE_OPS, COLLRT_REDUCE_TYPES); `bytes` is then a whole
  /// number of elements' worth of the message the choice is made for.
  std::string reduceOp = "sum";
  std::string datatype = "double";
  /// bcast: the rank whose message every rank receives (0: a plan records
  /// no root, so only rank 0 is accepted).
  int64_t root = 0;
  /// dim-rings (and auto, should it choose dim-rings): the parts every block
  /// is cut into, at most one per dimension longer than 1; unset = as many
  /// as the model prices fastest
  std::optional<int64_t> dimRingsParts;
};

struct Spec {
  TopologySpec topology;
  CollectiveSpec collective;
};

/// What a spec describes: one collective on a machine (sections topology
/// and collective), or the machine alone (topology: a plan set is made for
/// it, `collc --plan-set`).
enum class SpecKind { Collective, Machine };

/// Parses the spec in buffer `bufferId` of `sourceMgr`. Every error is
/// reported through the SourceMgr at the offending key or value; returns
/// std::nullopt if there was any.
std::optional<Spec> parseSpec(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                              SpecKind kind = SpecKind::Collective);

/// Applies the keys of a network file (a mapping with one section,
/// `network:`, as `collc-run --calibrate` prints it) onto `net`; keys the
/// file does not give keep their value. Errors as parseSpec's; returns
/// false if there was any.
bool parseNetworkFile(llvm::SourceMgr &sourceMgr, unsigned bufferId, NetworkParams &net);

} // namespace collc

#endif // COLLC_SPEC_SPEC_H

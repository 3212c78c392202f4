//===- LowerBalanced.cpp - direct alltoall balanced for routed tori -------===//
//
// A torus that routes dimension by dimension (x, then y, then z), each the
// shorter way round, must break ties: an offset of exactly n/2 on an even
// ring. SimGrid's TORUS (like most deterministic routers) sends a tie the +
// way, except from the source at coordinate n/2, which goes −. Under a direct
// alltoall the + links of an even ring then carry about (n+2)/8 of the
// bisection load instead of n/8: even a perfect exchange reaches at most 67%
// of the bound on a ring of 4 and 80% on a ring of 8. BG/L balanced this with
// adaptive routing in hardware; this schedule does it in software, knowing
// the routing:
//
//   A block whose offset is a tie in the dimensions T = {t1 < ... < tk} (and
//   nowhere else) is split. Its first half goes directly. Its second half
//   takes the same links the other way round in every dimension of T, through
//   a chain of intermediates, one per tie dimension:
//
//     I_j = (d below t_j, s_{t_j} + σ, s above t_j),  σ = −1, or +1 from n/2
//
//   the point where the direct route would start along t_j, moved one hop
//   against the tie's direction. From I_j the offset along t_j is n/2 + 1
//   the other way, whose shorter way is the reverse. Each leg crosses the
//   same rows and columns as the direct route (dimension order is kept), so
//   every link of a direction carries the same load, and no byte travels
//   further than it would have directly. (Checked exhaustively against the
//   routing function: the maximum link load equals P·M/8 blocks on 4, 4x4x4,
//   8x8x8, 8x4x4, 16x8x4, 8x8x16 and 4x2x3, against 67% to 89% for direct.)
//
// FIFO 0 carries the direct exchange (shift, shared random or dimension
// order: directStepPeers; windowed sends and receives as in the direct
// lowering). Leg j of the detours (the message arriving at I_j, or at the
// destination after I_k) travels on FIFO j, so that a forward waiting for
// its arrival holds back only forwards of the same leg; receives there are
// posted up front. A forward waits for its own arrival only.
//
// Everything is enumerated in closed form, so sources, intermediates and
// destinations agree without exchanging anything (alltoall; alltoallv below):
// the offsets with tie set T
// are n/2 in the dimensions of T and, in the others, any offset but the tie
// (digit q_d of a mixed-radix index over n_d − even_d values, skipping n/2);
// an intermediate finds the sources it serves along t_j from its own
// coordinate (at most two: coordinate + 1, unless that is n/2, and n/2 when
// its coordinate is n/2 + 1).
//
// alltoallv. An intermediate does not know the sizes of the halves it
// forwards. The bind-time exchange (plan format v2) tells it once per bind:
// every source PUTs the second half's length of each of its tie blocks to
// each intermediate of that block's chain (table j − 1, index the
// destination: one record per tie block and leg, 192 per rank on 8x8x8).
// Stage slots are then laid out per (tie set, leg) region, candidate
// source u = 0 first, by prefix sums over the region's flows; a sum's bound,
// not a select, skips the flows a rank does not serve (SELECT evaluates both
// arms, and a TABLE entry nobody PUT is an error). That is O(flows) terms per
// slot, evaluated once per bind, never per start.
//
//===----------------------------------------------------------------------===//
#include "dialect/Coll/CollOps.h"
#include "lib/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERBALANCED
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

/// As the direct lowering: enough sends in flight to keep a NIC busy.
constexpr int64_t kDefaultDepth = 16;

class BalancedLowering {
public:
  BalancedLowering(ScheduleBuilder &b, coll::TopologyAttr topology)
      : b(b), ndims(topology.getShape().size()) {
    zero = b.c(0);
    one = b.c(1);
    two = b.c(2);
    r = b.rank();
    for (int64_t d = 0; d < ndims; ++d) {
      n.push_back(b.dim(d));
      half.push_back(b.floordiv(n[d], two));
      // Only a wrapped dimension has two ways round; a mesh has no ties.
      even.push_back(topology.getWrap()[d] ? b.eq(b.mod(n[d], two), zero)
                                           : zero);
      c.push_back(b.coord(r, d));
    }
  }

  /// 1 if `peer` is a tie away from this rank in some dimension.
  Value anyTie(Value peer) {
    Value any;
    for (int64_t d = 0; d < ndims; ++d) {
      Value offset = b.mod(b.sub(b.coord(peer, d), c[d]), n[d]);
      Value tie = b.logicalAnd(even[d], b.eq(offset, half[d]));
      any = any ? b.logicalOr(any, tie) : tie;
    }
    return any;
  }

  /// 1 if every dimension of tie set `t` is an even ring.
  Value allEven(unsigned t) {
    Value all = one;
    for (int64_t d = 0; d < ndims; ++d)
      if (t & (1u << d))
        all = b.logicalAnd(all, even[d]);
    return all;
  }

  /// How many offsets have tie set exactly `t`.
  Value countOf(unsigned t) {
    Value count = one;
    for (int64_t d = 0; d < ndims; ++d)
      if (!(t & (1u << d)))
        count = b.mul(count, b.sub(n[d], even[d]));
    return count;
  }

  /// The offset of index q among those with tie set `t`.
  SmallVector<Value, 3> offsetOf(unsigned t, Value q) {
    SmallVector<Value, 3> offset(ndims);
    for (int64_t d = 0; d < ndims; ++d) {
      if (t & (1u << d)) {
        offset[d] = half[d];
        continue;
      }
      Value radix = b.sub(n[d], even[d]);
      Value digit = b.mod(q, radix);
      q = b.floordiv(q, radix);
      // skip n/2 on an even ring: digits at or above it move up by one
      offset[d] = b.add(digit, b.logicalAnd(even[d], b.ge(digit, half[d])));
    }
    return offset;
  }

  /// a + sign·o, per dimension, mod n.
  SmallVector<Value, 3> shift(ArrayRef<Value> a, ArrayRef<Value> o, bool minus) {
    SmallVector<Value, 3> at;
    for (int64_t d = 0; d < ndims; ++d)
      at.push_back(b.mod(minus ? b.sub(a[d], o[d]) : b.add(a[d], o[d]), n[d]));
    return at;
  }

  /// σ: the hop against a tie's direct direction from coordinate `x` of
  /// dimension `d`: +1 from n/2 (whose tie goes −), −1 elsewhere.
  Value sigma(Value x, int64_t d) {
    return b.sub(b.mul(b.eq(x, half[d]), two), one);
  }

  /// Intermediate I_j of the flow s -> dst for tie dimension `t`.
  SmallVector<Value, 3> via(ArrayRef<Value> s, ArrayRef<Value> dst, int64_t t) {
    SmallVector<Value, 3> at;
    for (int64_t d = 0; d < ndims; ++d)
      at.push_back(d < t    ? dst[d]
                   : d == t ? b.mod(b.add(s[d], sigma(s[d], d)), n[d])
                            : s[d]);
    return at;
  }

  Value rankOf(ArrayRef<Value> coords) { return b.rankAt(coords, zero); }

  ScheduleBuilder &b;
  int64_t ndims;
  Value zero, one, two, r;
  SmallVector<Value, 3> n, half, even, c;
};

/// The tie dimensions of set t, ascending.
SmallVector<int64_t, 3> dimsOf(unsigned t, int64_t ndims) {
  SmallVector<int64_t, 3> dims;
  for (int64_t d = 0; d < ndims; ++d)
    if (t & (1u << d))
      dims.push_back(d);
  return dims;
}

/// Flow (offset index q, candidate source u) that this rank serves as
/// intermediate I_j of tie set `set`, whose tie dimension is `dim`: its
/// source and destination coordinates, and whether this rank serves such a
/// flow at all (it depends on the rank's coordinate along `dim` only).
struct Flow {
  SmallVector<Value, 3> src, dst;
  Value served;
};
/// The source's coordinate along `dim` of candidate u: mine + 1 (σ = −1),
/// or mine − 1 (σ = +1, a source at n/2).
Value candidateSource(BalancedLowering &t, int64_t dim, int64_t u) {
  ScheduleBuilder &b = t.b;
  return b.mod(u == 0 ? b.add(t.c[dim], t.one) : b.sub(t.c[dim], t.one), t.n[dim]);
}
/// Whether this rank serves candidate u along `dim` at all: u = 0 unless
/// mine + 1 is n/2 (whose tie goes −), u = 1 only when mine − 1 is n/2.
Value servesCandidate(BalancedLowering &t, int64_t dim, int64_t u) {
  ScheduleBuilder &b = t.b;
  Value isHalf = b.eq(candidateSource(t, dim, u), t.half[dim]);
  return u == 0 ? b.eq(isHalf, t.zero) : isHalf;
}
Flow flowAt(BalancedLowering &t, unsigned set, int64_t dim, Value q, int64_t u) {
  ScheduleBuilder &b = t.b;
  SmallVector<Value, 3> o = t.offsetOf(set, q);
  Value x = candidateSource(t, dim, u);
  Flow flow;
  flow.served = servesCandidate(t, dim, u);
  flow.src.resize(t.ndims);
  for (int64_t d = 0; d < t.ndims; ++d)
    flow.src[d] = d < dim    ? b.mod(b.sub(t.c[d], o[d]), t.n[d])
                  : d == dim ? x
                             : t.c[d];
  flow.dst = t.shift(flow.src, o, false);
  return flow;
}

/// Where the stage slots of the flows a rank serves as I_j live, and how
/// long each is: the `second` half of a fixed block (alltoall), or what
/// the flow's source PUT (alltoallv).
class SlotLayout {
public:
  SlotLayout(BalancedLowering &t, bool isV, Value second) : t(t), isV(isV), second(second) {}

  /// The length of the flow's second half.
  Value length(int64_t j, const Flow &flow) {
    if (!isV)
      return second;
    return t.b.table(j - 1, t.rankOf(flow.src), t.rankOf(flow.dst));
  }
  /// Bytes of region (set, j) before slot (q, u): alltoall interleaves
  /// the candidates (slot 2q + u); alltoallv puts every u = 0 slot first,
  /// each a prefix sum over the flows before it.
  Value within(unsigned set, int64_t j, int64_t dim, Value q, int64_t u) {
    ScheduleBuilder &b = t.b;
    if (!isV)
      return b.mul(b.add(b.mul(q, t.two), b.c(u)), second);
    return b.inlined([&] {
      Value at = servedSum(set, j, dim, q, u);
      return u == 0 ? at : b.add(servedSum(set, j, dim, t.countOf(set), 0), at);
    });
  }
  /// Bytes of region (set, j).
  Value size(unsigned set, int64_t j, int64_t dim) {
    ScheduleBuilder &b = t.b;
    if (!isV)
      return b.select(t.allEven(set), b.mul(b.mul(t.countOf(set), t.two), second), t.zero);
    return b.inlined([&] {
      return b.add(servedSum(set, j, dim, t.countOf(set), 0),
                   servedSum(set, j, dim, t.countOf(set), 1));
    });
  }

private:
  /// Σ over q' < q of the lengths of flows (q', u), if this rank serves
  /// candidate u of a tie set whose rings are all even (0 otherwise: the
  /// bound, so that no TABLE entry nobody PUT is read).
  Value servedSum(unsigned set, int64_t j, int64_t dim, Value q, int64_t u) {
    ScheduleBuilder &b = t.b;
    Value served = b.logicalAnd(t.allEven(set), servesCandidate(t, dim, u));
    return b.sum(t.zero, b.select(served, q, t.zero), [&](Value q2) {
      return length(j, flowAt(t, set, dim, q2, u));
    });
  }

  BalancedLowering &t;
  bool isV;
  Value second;
};

/// Calls `fn` for every flow this rank serves as intermediate I_j of tie set
/// `set` (tie dimension dims[j-1]), inside the loops and branches that
/// enumerate them: the flow, its scratch slot and length, and its arrival
/// event.
template <typename Fn>
void forEachFlowAt(BalancedLowering &t, SlotLayout &slots, unsigned set, int64_t j, Value base,
                   Fn fn) {
  ScheduleBuilder &b = t.b;
  OpBuilder &builder = b.getBuilder();
  int64_t dim = dimsOf(set, t.ndims)[j - 1];
  OpBuilder::InsertionGuard guard(builder);
  sched::ForOp loop = b.forLoop(t.zero, t.countOf(set));
  Value q = loop.getInductionVar();
  for (int64_t u = 0; u < 2; ++u) {
    OpBuilder::InsertionGuard inner(builder);
    Flow flow = flowAt(t, set, dim, q, u);
    b.ifThen(flow.served);
    Value at = b.add(base, slots.within(set, j, dim, q, u));
    Value slot = b.add(b.mul(q, t.two), b.c(u));
    fn(flow, at, slots.length(j, flow),
       ScheduleBuilder::EventRef{"arrived", {b.c(set * 4 + j), slot}});
  }
}

template <typename OpTy>
LogicalResult lowerBalanced(OpTy op, bool isV) {
  OpBuilder builder(op);
  coll::AlgorithmAttr options = op.getAlgorithm();
  coll::TopologyAttr topology = op.getTopology();
  if (topology.getRanksPerNode() != 1)
    return op.emitError("the balanced alltoall schedules one rank per torus "
                        "node; this topology has ")
           << topology.getRanksPerNode()
           << " ranks per node (use algorithm: direct)";
  int64_t depth = directFifoDepth(op, kDefaultDepth);
  // random by default: the shared shuffled order spreads each step's load
  StringRef order = options.getString("order", "random");
  bool random = order == "random";
  int64_t ndims = topology.getShape().size();
  MLIRContext *ctx = op.getContext();
  // FIFO 0: the direct exchange, windowed both ways. FIFO j (1..ndims+1):
  // leg j of the detours, whose arrivals come in no order a receiver can
  // predict, so receives are posted up front.
  SmallVector<sched::FifoAttr> fifos = {
      sched::FifoAttr::get(ctx, depth, /*recv_depth=*/depth)};
  for (int64_t leg = 1; leg <= ndims + 1; ++leg)
    fifos.push_back(sched::FifoAttr::get(ctx, depth, /*recv_depth=*/0));
  createPlanFor(builder, op, isV ? "alltoallv" : "alltoall", "balanced", fifos, {"arrived"});
  ScheduleBuilder b(builder, op.getLoc());
  BalancedLowering t(b, topology);
  Value r = t.r, p = b.size(), zero = t.zero, one = t.one, two = t.two;
  unsigned sets = 1u << ndims;
  // A block's halves: the first goes directly, the second is detoured.
  // alltoall: every block is m bytes; alltoallv: each its own count.
  auto firstOf = [&](Value count) { return b.floordiv(count, two); };
  auto secondOf = [&](Value count) { return b.sub(count, firstOf(count)); };
  Value m = isV ? Value() : b.count(CountArray::recvcount, r);
  Value second = isV ? Value() : secondOf(m);
  auto recvCount = [&](Value src) { return isV ? b.count(CountArray::recvcount, src) : m; };

  if (isV) {
    // The bind-time exchange: this rank, as a source, tells each
    // intermediate I_j of each of its tie blocks the second half's length.
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    for (unsigned s = 1; s < sets; ++s) {
      SmallVector<int64_t, 3> dims = dimsOf(s, ndims);
      OpBuilder::InsertionGuard section(builder);
      b.ifThen(t.allEven(s));
      sched::ForOp loop = b.forLoop(zero, t.countOf(s));
      SmallVector<Value, 3> dst = t.shift(t.c, t.offsetOf(s, loop.getInductionVar()), false);
      Value d = t.rankOf(dst);
      Value count = b.count(CountArray::sendcount, d);
      for (auto [j, dim] : llvm::enumerate(dims))
        b.put(static_cast<int64_t>(j), d, secondOf(count), t.rankOf(t.via(t.c, dst, dim)));
    }
  }

  // Scratch: per tie set and intermediate stage, a region for the slots of
  // the flows this rank serves there (alltoallv: each region's size one
  // inlined expression, so that its parts are no plan variables).
  SlotLayout slots(t, isV, second);
  DenseMap<std::pair<unsigned, int64_t>, Value> base;
  Value total = zero;
  for (unsigned s = 1; s < sets; ++s) {
    SmallVector<int64_t, 3> dims = dimsOf(s, ndims);
    for (int64_t j = 1; j <= static_cast<int64_t>(dims.size()); ++j) {
      base[{s, j}] = total;
      total = b.add(total, slots.size(s, j, dims[j - 1]));
    }
  }
  builder.create<sched::ScratchOp>(op.getLoc(), total);

  b.phase("direct", 0);
  {
    OpBuilder::InsertionGuard guard(builder);
    Value seed =
        random ? b.c(options.getInt("seed").value_or(1)) : Value();
    sched::ForOp loop = b.forLoop(one, p, seed, /*shared=*/true);
    Value k = loop.getInductionVar();
    auto [dst, src] = directStepPeers(b, r, p, k, order, ndims, /*ranksPerNode=*/1);
    Value recvCountFrom = recvCount(src);
    b.recv(Buffer::recvbuf, b.count(CountArray::recvdispl, src),
           b.select(t.anyTie(src), firstOf(recvCountFrom), recvCountFrom), src, zero);
    Value sendCount = b.count(CountArray::sendcount, dst);
    b.send(Buffer::sendbuf, b.count(CountArray::senddispl, dst),
           b.select(t.anyTie(dst), firstOf(sendCount), sendCount), dst, zero);
  }
  // The own block last: the copy overlaps the messages already in flight.
  b.copy(Buffer::sendbuf, b.count(CountArray::senddispl, r), Buffer::recvbuf,
         b.count(CountArray::recvdispl, r), recvCount(r));

  for (int64_t leg = 1; leg <= ndims + 1; ++leg) {
    builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
    b.phase(("leg" + std::to_string(leg)).c_str(), leg);
    for (unsigned s = 1; s < sets; ++s) {
      SmallVector<int64_t, 3> dims = dimsOf(s, ndims);
      int64_t k = dims.size();
      if (leg > k + 1)
        continue;
      Value tag = b.c(s);
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(t.allEven(s));
      if (leg == 1) {
        // this rank as the source: the second half of each tie block to I_1
        OpBuilder::InsertionGuard section(builder);
        sched::ForOp loop = b.forLoop(zero, t.countOf(s));
        SmallVector<Value, 3> dst =
            t.shift(t.c, t.offsetOf(s, loop.getInductionVar()), false);
        Value d = t.rankOf(dst);
        Value count = b.count(CountArray::sendcount, d);
        b.send(Buffer::sendbuf, b.add(b.count(CountArray::senddispl, d), firstOf(count)),
               secondOf(count), t.rankOf(t.via(t.c, dst, dims[0])), tag);
      }
      if (leg == k + 1) {
        // this rank as the destination: from I_k of each tie source
        OpBuilder::InsertionGuard section(builder);
        sched::ForOp loop = b.forLoop(zero, t.countOf(s));
        SmallVector<Value, 3> src =
            t.shift(t.c, t.offsetOf(s, loop.getInductionVar()), true);
        Value from = t.rankOf(t.via(src, t.c, dims[k - 1]));
        Value count = recvCount(t.rankOf(src));
        b.recv(Buffer::recvbuf,
               b.add(b.count(CountArray::recvdispl, t.rankOf(src)), firstOf(count)),
               secondOf(count), from, tag);
      }
      // this rank as intermediate I_leg: receive leg `leg`
      if (leg <= k)
        forEachFlowAt(t, slots, s, leg, base[{s, leg}],
                      [&](const Flow &flow, Value at, Value length,
                          const ScheduleBuilder::EventRef &arrived) {
          Value from = t.rankOf(leg == 1 ? flow.src : t.via(flow.src, flow.dst, dims[leg - 2]));
          b.recv(Buffer::scratch, at, length, from, tag, arrived);
        });
      // ... and as I_{leg-1}: forward what arrived on leg - 1
      if (leg >= 2)
        forEachFlowAt(t, slots, s, leg - 1, base[{s, leg - 1}],
                      [&](const Flow &flow, Value at, Value length,
                          const ScheduleBuilder::EventRef &arrived) {
          Value to = t.rankOf(leg - 1 == k ? flow.dst : t.via(flow.src, flow.dst, dims[leg - 1]));
          b.sendSignalling(Buffer::scratch, at, length, to, tag, arrived, std::nullopt);
        });
    }
  }
  op.erase();
  return success();
}

struct CollLowerBalancedPass
    : public collc::impl::CollLowerBalancedBase<CollLowerBalancedPass> {
  void runOnOperation() override {
    for (coll::AlltoallOp op : opsWithAlgorithm<coll::AlltoallOp>(getOperation(), {"balanced"}))
      if (failed(lowerBalanced(op, /*isV=*/false)))
        return signalPassFailure();
    for (coll::AlltoallvOp op : opsWithAlgorithm<coll::AlltoallvOp>(getOperation(), {"balanced"}))
      if (failed(lowerBalanced(op, /*isV=*/true)))
        return signalPassFailure();
  }
};

} // namespace

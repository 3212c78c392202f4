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
// each intermediate of that block's chain (one record per tie block and
// leg, 192 per rank on 8x8x8), under the key the intermediate gives that
// flow: ((set·4 + j)·2 + u)·P + q (SlotLayout::key). The intermediate reads
// a slot's length with TABLE_ANY (it knows the flow, not which rank sends
// it) and places the slot after every slot of a lower key with one
// TABLE_SUM: the layout the alltoall has (by set, then stage, candidate
// u = 0 first, then q), with the flows it does not serve taking no bytes
// because nobody PUT them.
//
// The plan is one body: a phase loop over the legs (leg j on FIFO j) and,
// inside, a loop over the tie sets, which reads a set's dimensions from its
// bits at run time (TieSet). 2659 B on any 3-D torus (17.0 KB, alltoallv
// 40.8 KB, with a copy per set and leg).
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERBALANCED
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


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

  /// A tie set, a run-time value (bit d: dimension d is a tie), and what
  /// the schedule reads of it: which dimensions are in it, how many, whether
  /// they are all even rings, and how many offsets have exactly that set.
  /// One loop over the sets replaces a copy of the schedule per set, so the
  /// plan does not grow with the number of dimensions (2^ndims − 1 sets).
  struct TieSet {
    Value set;
    SmallVector<Value, 3> in;
    Value size, allEven, count;
  };
  TieSet tieSet(Value set) {
    TieSet t{set, {}, zero, one, one};
    for (int64_t d = 0; d < ndims; ++d) {
      Value in = b.mod(b.floordiv(set, b.c(int64_t{1} << d)), two);
      t.in.push_back(in);
      t.size = b.add(t.size, in);
      t.allEven = b.logicalAnd(t.allEven, b.select(in, even[d], one));
      t.count = b.mul(t.count, b.select(in, one, b.sub(n[d], even[d])));
    }
    return t;
  }

  /// The j-th (1-based) dimension of the set, ascending (0 if it has fewer).
  Value dimOf(const TieSet &t, Value j) {
    Value dim = zero, before = zero, rank = b.sub(j, one);
    for (int64_t d = 0; d < ndims; ++d) {
      dim = b.add(dim, b.mul(b.c(d), b.logicalAnd(t.in[d], b.eq(before, rank))));
      before = b.add(before, t.in[d]);
    }
    return dim;
  }

  /// The offset of index q among those with tie set `t`: n/2 along the
  /// set's dimensions, a digit of q along the others (radix 1 skips a tie
  /// dimension).
  SmallVector<Value, 3> offsetOf(const TieSet &t, Value q) {
    SmallVector<Value, 3> offset(ndims);
    for (int64_t d = 0; d < ndims; ++d) {
      Value radix = b.select(t.in[d], one, b.sub(n[d], even[d]));
      Value digit = b.mod(q, radix);
      q = b.floordiv(q, radix);
      // skip n/2 on an even ring: digits at or above it move up by one
      offset[d] = b.select(t.in[d], half[d],
                           b.add(digit, b.logicalAnd(even[d], b.ge(digit, half[d]))));
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
  SmallVector<Value, 3> via(ArrayRef<Value> s, ArrayRef<Value> dst, Value t) {
    SmallVector<Value, 3> at;
    for (int64_t d = 0; d < ndims; ++d) {
      Value dd = b.c(d);
      at.push_back(b.select(b.lt(dd, t), dst[d],
                            b.select(b.eq(dd, t), b.mod(b.add(s[d], sigma(s[d], d)), n[d]),
                                     s[d])));
    }
    return at;
  }

  Value rankOf(ArrayRef<Value> coords) { return b.rankAt(coords, zero); }

  ScheduleBuilder &b;
  int64_t ndims;
  Value zero, one, two, r;
  SmallVector<Value, 3> n, half, even, c;
};

/// Flow (offset index q, candidate source u) that this rank serves as
/// intermediate I_j of a tie set, whose tie dimension is `dim`: its
/// source and destination coordinates, and whether this rank serves such a
/// flow at all (it depends on the rank's coordinate along `dim` only).
struct Flow {
  SmallVector<Value, 3> src, dst;
  Value served;
};
/// The source's coordinate along `dim` of candidate u: mine + 1 (σ = −1),
/// or mine − 1 (σ = +1, a source at n/2).
Value candidateSource(BalancedLowering &t, Value dim, int64_t u) {
  ScheduleBuilder &b = t.b;
  Value c = b.pick(dim, t.c), n = b.pick(dim, t.n);
  return b.mod(u == 0 ? b.add(c, t.one) : b.sub(c, t.one), n);
}
/// Whether this rank serves candidate u along `dim` at all: u = 0 unless
/// mine + 1 is n/2 (whose tie goes −), u = 1 only when mine − 1 is n/2.
Value servesCandidate(BalancedLowering &t, Value dim, int64_t u) {
  ScheduleBuilder &b = t.b;
  Value isHalf = b.eq(candidateSource(t, dim, u), b.pick(dim, t.half));
  return u == 0 ? b.eq(isHalf, t.zero) : isHalf;
}
Flow flowAt(BalancedLowering &t, const BalancedLowering::TieSet &set, Value dim, Value q,
            int64_t u) {
  ScheduleBuilder &b = t.b;
  SmallVector<Value, 3> o = t.offsetOf(set, q);
  Value x = candidateSource(t, dim, u);
  Flow flow;
  flow.served = servesCandidate(t, dim, u);
  flow.src.resize(t.ndims);
  for (int64_t d = 0; d < t.ndims; ++d) {
    Value dd = b.c(d);
    flow.src[d] = b.select(b.lt(dd, dim), b.mod(b.sub(t.c[d], o[d]), t.n[d]),
                           b.select(b.eq(dd, dim), x, t.c[d]));
  }
  flow.dst = t.shift(flow.src, o, false);
  return flow;
}

/// Where the stage slots of the flows a rank serves as I_j live, and how
/// long each is: the `second` half of a fixed block (alltoall), or what
/// the flow's source PUT (alltoallv).
class SlotLayout {
public:
  SlotLayout(BalancedLowering &t, bool isV, Value second) : t(t), isV(isV), second(second) {}

  /// The key of flow (q, u) of tie set `set` at I_j, unique per
  /// intermediate (q < P, j < 4, u < 2). alltoallv: the source PUTs the
  /// flow's length under it (table 0), and slots lie in key order: set,
  /// then stage j, then candidate u, then q, as the alltoall's regions.
  Value key(Value set, Value j, Value u, Value q) {
    ScheduleBuilder &b = t.b;
    Value region = b.add(b.mul(b.add(b.mul(set, b.c(4)), j), t.two), u);
    return b.add(b.mul(region, b.size()), q);
  }
  /// The length of the second half of flow (q, u): what its source PUT,
  /// whoever the source is.
  Value length(Value set, Value j, Value q, int64_t u) {
    if (!isV)
      return second;
    return t.b.tableAny(0, key(set, j, t.b.c(u), q));
  }
  /// Where the slot of flow (q, u) of set's stage j begins. alltoall: in
  /// region (set, j), which begins at `base`, the candidates interleaved
  /// (slot 2q + u). alltoallv: after every slot of a lower key, a prefix
  /// sum over what the exchange delivered (flows this rank does not serve
  /// have no entry and take no bytes).
  Value at(Value set, Value j, Value q, int64_t u, Value base) {
    ScheduleBuilder &b = t.b;
    if (isV)
      return b.tableSum(0, t.zero, key(set, j, b.c(u), q));
    return b.add(base, b.mul(b.add(b.mul(q, t.two), b.c(u)), second));
  }
  /// Scratch bytes: every region.
  Value total(Value sets) {
    if (isV)
      return t.b.tableSum(0, t.zero, key(sets, t.zero, t.zero, t.zero));
    return regionsBefore(sets, t.one);
  }
  /// alltoall: where region (set, j) begins; alltoallv: unused (null).
  Value regionsBefore(Value set, Value j) {
    if (isV)
      return Value();
    ScheduleBuilder &b = t.b;
    Value below = b.sum(t.one, set, [&](Value other) {
      BalancedLowering::TieSet s = t.tieSet(other);
      return b.mul(s.size, size(s));
    });
    return b.add(below, b.mul(b.sub(j, t.one), size(t.tieSet(set))));
  }

private:
  /// alltoall: bytes of each of the set's regions (one per tie dimension).
  Value size(const BalancedLowering::TieSet &set) {
    ScheduleBuilder &b = t.b;
    return b.select(set.allEven, b.mul(b.mul(set.count, t.two), second), t.zero);
  }

  BalancedLowering &t;
  bool isV;
  Value second;
};

/// Calls `fn` for every flow this rank serves as intermediate I_j of tie set
/// `set` (tie dimension: the set's j-th), inside the loops and branches that
/// enumerate them: the flow, its scratch slot and length, and its arrival
/// event.
template <typename Fn>
void forEachFlowAt(BalancedLowering &t, SlotLayout &slots, const BalancedLowering::TieSet &set,
                   Value j, Value base, Fn fn) {
  ScheduleBuilder &b = t.b;
  OpBuilder &builder = b.getBuilder();
  Value dim = t.dimOf(set, j);
  OpBuilder::InsertionGuard guard(builder);
  sched::ForOp loop = b.forLoop(t.zero, set.count);
  Value q = loop.getInductionVar();
  for (int64_t u = 0; u < 2; ++u) {
    OpBuilder::InsertionGuard inner(builder);
    Flow flow = flowAt(t, set, dim, q, u);
    b.ifThen(flow.served);
    Value at = slots.at(set.set, j, q, u, base);
    Value slot = b.add(b.mul(q, t.two), b.c(u));
    fn(flow, at, slots.length(set.set, j, q, u),
       ScheduleBuilder::EventRef{"arrived", {b.add(b.mul(set.set, b.c(4)), j), slot}});
  }
}

template <typename OpTy>
LogicalResult lowerBalanced(OpTy op, bool isV, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  coll::TopologyAttr topology = op.getTopology();
  if (failed(requireOneRankPerNode(op, "balanced")))
    return failure();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
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
  Value sets = b.c(int64_t{1} << ndims);
  // A block's halves: the first goes directly, the second is detoured.
  // alltoall: every block is m bytes; alltoallv: each its own count.
  auto firstOf = [&](Value count) { return b.floordiv(count, two); };
  auto secondOf = [&](Value count) { return b.sub(count, firstOf(count)); };
  Value m = isV ? Value() : b.count(CountArray::recvcount, r);
  Value second = isV ? Value() : secondOf(m);
  auto recvCount = [&](Value src) { return isV ? b.count(CountArray::recvcount, src) : m; };

  SlotLayout slots(t, isV, second);
  if (isV) {
    // The bind-time exchange: this rank, as a source, tells each
    // intermediate I_j of each of its tie blocks the second half's length.
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    sched::ForOp each = b.forLoop(one, sets);
    BalancedLowering::TieSet set = t.tieSet(each.getInductionVar());
    b.ifThen(set.allEven);
    sched::ForOp loop = b.forLoop(zero, set.count);
    Value q = loop.getInductionVar();
    SmallVector<Value, 3> dst = t.shift(t.c, t.offsetOf(set, q), false);
    Value count = b.count(CountArray::sendcount, t.rankOf(dst));
    sched::ForOp legs = b.forLoop(one, b.add(set.size, one));
    Value j = legs.getInductionVar();
    // I_j serves this rank as candidate u = 1 when it sits at n/2 along
    // the leg's dimension (its tie goes −), else as u = 0.
    Value dim = t.dimOf(set, j);
    Value u = b.eq(b.pick(dim, t.c), b.pick(dim, t.half));
    b.put(0, slots.key(set.set, j, u, q), secondOf(count), t.rankOf(t.via(t.c, dst, dim)));
  }

  // Scratch: per tie set and intermediate stage, a region for the slots of
  // the flows this rank serves there, in order of set and stage.
  builder.create<sched::ScratchOp>(op.getLoc(), slots.total(sets));

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

  // Leg `leg` of every tie set's detours, on FIFO `leg`: a phase loop over
  // the legs, and in each a loop over the sets (those with at least
  // leg − 1 tie dimensions).
  builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
  sched::ForOp legs = b.forLoop(one, b.c(ndims + 2));
  Value leg = legs.getInductionVar();
  b.phase("legs", 0, leg);
  sched::ForOp each = b.forLoop(one, sets);
  Value tag = each.getInductionVar();
  BalancedLowering::TieSet set = t.tieSet(tag);
  Value k = set.size;
  b.ifThen(b.logicalAnd(set.allEven, b.le(leg, b.add(k, one))));
  Value previous = b.sub(leg, one);
  {
    // this rank as the source: the second half of each tie block to I_1
    OpBuilder::InsertionGuard section(builder);
    b.ifThen(b.eq(leg, one));
    sched::ForOp loop = b.forLoop(zero, set.count);
    SmallVector<Value, 3> dst = t.shift(t.c, t.offsetOf(set, loop.getInductionVar()), false);
    Value d = t.rankOf(dst);
    Value count = b.count(CountArray::sendcount, d);
    b.send(Buffer::sendbuf, b.add(b.count(CountArray::senddispl, d), firstOf(count)),
           secondOf(count), t.rankOf(t.via(t.c, dst, t.dimOf(set, one))), tag);
  }
  {
    // this rank as the destination of sets with leg − 1 tie dimensions:
    // from I_k of each tie source
    OpBuilder::InsertionGuard section(builder);
    b.ifThen(b.eq(k, previous));
    sched::ForOp loop = b.forLoop(zero, set.count);
    SmallVector<Value, 3> src = t.shift(t.c, t.offsetOf(set, loop.getInductionVar()), true);
    Value from = t.rankOf(t.via(src, t.c, t.dimOf(set, previous)));
    Value count = recvCount(t.rankOf(src));
    b.recv(Buffer::recvbuf, b.add(b.count(CountArray::recvdispl, t.rankOf(src)), firstOf(count)),
           secondOf(count), from, tag);
  }
  {
    // this rank as intermediate I_leg: receive leg `leg`
    OpBuilder::InsertionGuard section(builder);
    b.ifThen(b.le(leg, k));
    forEachFlowAt(t, slots, set, leg, slots.regionsBefore(tag, leg),
                  [&](const Flow &flow, Value at, Value length,
                      const ScheduleBuilder::EventRef &arrived) {
      Value from = b.select(b.eq(leg, one), t.rankOf(flow.src),
                            t.rankOf(t.via(flow.src, flow.dst, t.dimOf(set, previous))));
      b.recv(Buffer::scratch, at, length, from, tag, arrived);
    });
  }
  // ... and as I_{leg-1}: forward what arrived on leg - 1, to I_leg or,
  // after the set's last tie dimension, to the destination
  b.ifThen(b.ge(leg, two));
  forEachFlowAt(t, slots, set, previous, slots.regionsBefore(tag, previous),
                [&](const Flow &flow, Value at, Value length,
                    const ScheduleBuilder::EventRef &arrived) {
    Value to = b.select(b.eq(k, previous), t.rankOf(flow.dst),
                        t.rankOf(t.via(flow.src, flow.dst, t.dimOf(set, leg))));
    b.sendSignalling(Buffer::scratch, at, length, to, tag, arrived, std::nullopt);
  });
  return success();
}

struct CollLowerBalancedPass
    : public collc::impl::CollLowerBalancedBase<CollLowerBalancedPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBalancedLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"balanced"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateBalancedLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallOp>(patterns, {"balanced"}, [](coll::AlltoallOp op, OpBuilder &builder) {
    return lowerBalanced(op, /*isV=*/false, builder);
  });
  addCollLowering<coll::AlltoallvOp>(patterns, {"balanced"}, [](coll::AlltoallvOp op, OpBuilder &builder) {
    return lowerBalanced(op, /*isV=*/true, builder);
  });
}

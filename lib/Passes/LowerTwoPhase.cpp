//===- LowerTwoPhase.cpp - seed 000's two-phase torus alltoall ------------===//
//
// Kumar & Heidelberger's two-phase schedule (docs/algorithms/two-phase.md). One
// dimension L is the line, the others the plane. Phase 1 runs along the
// line: rank r sends to the rank of its line at coordinate x2 one message
// combining every block whose destination lies in the plane x2 (the
// intermediate shares the destination's L coordinate). Phase 2 runs in the
// plane: the intermediate forwards each block to its destination. The line
// is the dimension of asymmetry, so that the plane is symmetric (e.g. X of
// 8x4x4), else the longest dimension: the paper's rule.
//
//   * Pipelined: a phase-2 forward waits only for the phase-1 message that
//     brought it (`arrived[i]`), not for the end of phase 1; the rank's own
//     blocks for its plane go first, straight from the send buffer.
//   * Reserved FIFOs: phase 1 on FIFO 0 (the line), phase 2 on FIFO 1 (the
//     plane), so neither waits behind the other.
//   * Arrivals one pair at a time: the line messages go to offsets 1, n−1,
//     2, n−2, ... (arrival k's offset: offsetOf), two in flight, so each
//     pair loads the + and − links alike and the arrivals come in steadily
//     while the plane forwards the earlier ones; the two phases use
//     disjoint links and overlap. With every line message in flight at
//     once they would share the links fairly, all arrive near the end of
//     phase 1, and the phases would run one after the other; in order 1, 2,
//     3, ... one at a time, only one direction of the line would work.
//   * Balanced ties: a router that breaks ties one way (SimGrid: +, − from
//     n/2; not BG/L's adaptive one) loads the + links of an even line with
//     up to n/4 more messages than the bound's n²/8 (ring of 8: 10 against
//     8). The tie arrival's blocks [Q/2, Q) go the other way round
//     through a forwarder (FIFO 2, event `detoured`), as in the balanced
//     alltoall, so both directions carry the bound's load.
//   * The plane phase visits its peers in a shuffled order every rank
//     shares (seed kPlaneSeed; receivers compute their senders' steps), as
//     the direct exchange does: in plane-index order a FIFO's window of
//     sends would crowd one row's links at a time.
//   * Bounded intermediate memory (seed 000 §5): S stage slots of one plane
//     (Q·m bytes) each, reused round robin; the receive of arrival i into
//     the slot of arrival i−S waits until every forward out of it completed
//     (`freed[i−S]`, an event signalled Q−1 times): credits. S is the
//     `stages` option, or as many as fit kScratchBudgetBytes (at least 1, at
//     most the n_L−1 arrivals), computed at bind from the block size: 64 KiB
//     blocks on a 40x32x16 torus (line X, plane 32x16) stage 32 MiB per
//     arrival, so the default keeps 2 of them, 64 MiB.
//   * The block of the arrival meant for the intermediate itself is received
//     straight into the receive buffer (a gathered receive), never staged.
//
// alltoallv. An intermediate does not know the lengths of the blocks it
// stages and forwards. The bind-time exchange (plan format v2) tells it once
// per bind: every source PUTs, to the intermediate at each line offset, the
// length of each block of its plane (table 0, key x·Q + plane index for a
// source at line coordinate x: P − Q records a rank), and its tie's
// forwarder the detoured half's total (table 1). An arrival's blocks are
// laid out in plane order, each at the sum of the lengths before it in the
// same source's keys (`sched.table_sum`: two binary searches over the
// exchange's running sums, not a sum over the blocks before it: binding
// 40x32x16 took 566 ms a rank with that sum, O(n_L·Q²), and takes 58 ms),
// and a stage slot is as large as the largest arrival (a `sched.sum max`),
// so the credits bound memory as for alltoall; evaluated once per bind,
// never per start.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERTWOPHASE
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

/// Line messages in flight: one arrival each way round (see offsetOf).
constexpr int64_t kLineDepth = 2;
/// The plane phase's shared shuffle.
constexpr int64_t kPlaneSeed = 1;

template <typename OpTy>
LogicalResult lowerTwoPhase(OpTy op, bool isV, OpBuilder &builder) {
  coll::TopologyAttr topology = op.getTopology();
  if (failed(requireOneRankPerNode(op, "two-phase")))
    return failure();
  ArrayRef<int64_t> shape = topology.getShape();
  int64_t ndims = shape.size();
  if (ndims < 2)
    return op.emitError("the two-phase alltoall needs a line and a plane: a "
                        "topology of 2 or 3 dimensions (this one has 1)");
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth =
      *options.getInt("fifo_depth"); // decided by selection
  std::optional<int64_t> stages = options.getInt("stages");
  MLIRContext *ctx = op.getContext();
  // Both phases visit their peers in an order the receivers reproduce, so
  // receives are windowed like sends.
  auto fifo = sched::FifoAttr::get(ctx, depth, depth);
  int64_t lineDepth = std::min(depth, kLineDepth);
  auto lineFifo = sched::FifoAttr::get(ctx, lineDepth, lineDepth);
  int64_t line = twoPhaseLine(shape);
  // A router that breaks ties one way (not adaptive) on a wrapped line: the
  // tie arrival's second half takes the detour on FIFO 2, whose receives
  // come in no order a receiver can predict: posted up front.
  bool balanceTies = !topology.getAdaptive() && topology.getWrap()[line];
  SmallVector<sched::FifoAttr> fifos = {lineFifo, fifo};
  SmallVector<StringRef> events = {"arrived", "freed"};
  if (balanceTies) {
    fifos.push_back(sched::FifoAttr::get(ctx, depth, /*recv_depth=*/0));
    events.push_back("detoured");
  }
  createPlanFor(builder, op, isV ? "alltoallv" : "alltoall", "two-phase", fifos, events);
  ScheduleBuilder b(builder, op.getLoc());

  SmallVector<int64_t, 2> plane;
  for (int64_t d = 0; d < ndims; ++d)
    if (d != line)
      plane.push_back(d);
  Value zero = b.c(0), one = b.c(1), r = b.rank();
  SmallVector<Value, 3> n, c;
  for (int64_t d = 0; d < ndims; ++d) {
    n.push_back(b.dim(d));
    c.push_back(b.coord(r, d));
  }
  Value nl = n[line];
  // plane index q = a + n_a·b over the plane dimensions, in order
  Value planeSize = one, own = zero;
  for (int64_t i = static_cast<int64_t>(plane.size()) - 1; i >= 0; --i) {
    planeSize = b.mul(planeSize, n[plane[i]]);
    own = b.add(b.mul(own, n[plane[i]]), c[plane[i]]);
  }
  /// The rank at line coordinate `x` and plane index `q`.
  auto rankAt = [&](Value x, Value q) {
    SmallVector<Value, 3> at(ndims);
    at[line] = x;
    for (int64_t d : plane) {
      at[d] = b.mod(q, n[d]);
      q = b.floordiv(q, n[d]);
    }
    return b.rankAt(at, zero);
  };
  /// The rank of this rank's line at coordinate `x` (its plane index).
  auto onLine = [&](Value x) {
    SmallVector<Value, 3> at(c.begin(), c.end());
    at[line] = x;
    return b.rankAt(at, zero);
  };

  /// The line offset of arrival k (1-based): 1, n−1, 2, n−2, ...: each
  /// pair of arrivals loads the + and the − links alike, so a shallow line
  /// FIFO keeps both directions busy while arrivals come in one by one.
  auto offsetOf = [&](Value k) {
    return b.select(b.eq(b.mod(k, b.c(2)), one), b.floordiv(b.add(k, one), b.c(2)),
                    b.sub(nl, b.floordiv(k, b.c(2))));
  };
  /// The source of arrival k: its offset back along the line.
  auto sourceOf = [&](Value k) {
    return onLine(b.mod(b.sub(c[line], offsetOf(k)), nl));
  };
  // Tie balancing. With n even, arrival n − 1 comes from offset n/2, which
  // the router sends one way (+, or − from n/2): its blocks [0, Q/2) go
  // directly, blocks [Q/2, Q) the other way round, through the forwarder
  // J = S + σ one hop against the tie's direction (σ = −1, or +1 from n/2);
  // from J the offset to the intermediate is n/2 + 1 the other way, whose
  // shorter way is the reverse. Each line link then carries the ring's
  // bound, n²/8 messages' worth, instead of up to n²/8 + n/4 (ring of 8: 8,
  // not 9.5 to 10).
  Value two = b.c(2);
  Value h = b.floordiv(nl, two), half = b.floordiv(planeSize, two);
  Value ties = balanceTies ? b.logicalAnd(b.eq(b.mod(nl, two), zero), b.ge(nl, b.c(4))) : zero;
  Value kTie = b.sub(nl, one); // offsetOf(n − 1) = n/2 when n is even
  auto isTie = [&](Value k) { return b.logicalAnd(ties, b.eq(k, kTie)); };
  /// Arrival k's line message carries blocks [0, directEnd(k)).
  auto directEnd = [&](Value k) { return b.select(isTie(k), half, planeSize); };
  auto sigma = [&](Value x) { return b.sub(b.mul(b.eq(x, h), two), one); };
  /// Candidate u's source line coordinate, for this rank as forwarder J:
  /// mine + 1 (u = 0) unless that is n/2, mine − 1 (u = 1) if that is n/2.
  auto candidate = [&](Value u) {
    return b.mod(b.sub(b.add(c[line], one), b.mul(u, two)), nl);
  };
  auto serves = [&](Value u) {
    return b.logicalAnd(ties, b.eq(b.eq(candidate(u), h), u));
  };

  if (isV) {
    // The bind-time exchange: this rank, as a source, tells the intermediate
    // at each line offset i the length of every block it stages there
    // (table 0, index the plane index; the intermediate's own too, so that
    // its layout is one prefix sum), and its tie's forwarder the detoured
    // half's total (table 1).
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    {
      OpBuilder::InsertionGuard section(builder);
      sched::ForOp offsets = b.forLoop(one, nl);
      Value to = b.mod(b.add(c[line], offsetOf(offsets.getInductionVar())), nl);
      Value via = onLine(to);
      sched::ForOp blocks = b.forLoop(zero, planeSize);
      Value q = blocks.getInductionVar();
      b.put(0, b.add(b.mul(c[line], planeSize), q), b.count(CountArray::sendcount, rankAt(to, q)),
            via);
    }
    if (balanceTies) {
      b.ifThen(ties);
      Value to = b.mod(b.add(c[line], h), nl);
      Value forwarder = onLine(b.mod(b.add(c[line], sigma(c[line])), nl));
      Value bytes = b.sum(half, planeSize, [&](Value q) {
        return b.count(CountArray::sendcount, rankAt(to, q));
      });
      b.put(1, zero, bytes, forwarder);
    }
  }
  Value m = isV ? Value() : b.count(CountArray::recvcount, r);
  /// Length of the block for plane index q in arrival i (alltoallv: what
  /// its source PUT).
  /// Table 0's key of the block for plane index q from the source at line
  /// coordinate x: a source's blocks lie together, in plane order.
  auto keyOf = [&](Value x, Value q) { return b.add(b.mul(x, planeSize), q); };
  auto sourceLine = [&](Value i) { return b.mod(b.sub(c[line], offsetOf(i)), nl); };
  auto lengthOf = [&](Value i, Value q) {
    return isV ? b.table(0, sourceOf(i), keyOf(sourceLine(i), q)) : m;
  };
  /// Bytes of arrival i's staged blocks before plane index q: a place per
  /// plane index (own's unused: one sum, not two around it), alltoallv's
  /// each as long as its block.
  auto before = [&](Value i, Value q) {
    if (!isV)
      return b.mul(q, m);
    Value x = sourceLine(i);
    return b.tableSum(0, keyOf(x, zero), keyOf(x, q));
  };
  // A stage slot holds one arrival: alltoallv's as large as the largest.
  Value stageBytes = isV ? b.maxOf(one, nl, [&](Value i) { return before(i, planeSize); })
                         : b.mul(planeSize, m);
  Value arrivals = b.sub(nl, one);
  Value slots =
      stages ? b.min(b.c(*stages), b.max(arrivals, one))
             : b.max(one, b.min(arrivals,
                                b.floordiv(b.c(kScratchBudgetBytes), b.max(stageBytes, one))));
  // A plane of one rank stages nothing (its block goes straight to the
  // receive buffer) and so frees nothing: no slot is ever reused.
  slots = b.select(b.eq(planeSize, one), b.max(arrivals, one), slots);
  /// Offset of plane index q in the slot of arrival i (1-based).
  auto staged = [&](Value i, Value q) {
    return b.add(b.mul(b.mod(b.sub(i, one), slots), stageBytes), before(i, q));
  };
  // As forwarder J, a region per candidate u after the slots: the blocks
  // [Q/2, Q) it forwards, received and sent on as one contiguous message
  // (only the intermediate needs them apart). alltoallv: its length from
  // table 1; a sum's bound, not a select, skips a candidate not served.
  Value slotBytes = b.mul(slots, stageBytes);
  auto detourBytes = [&](Value u) {
    if (!isV)
      return b.select(serves(u), b.mul(b.sub(planeSize, half), m), zero);
    return b.sum(zero, serves(u), [&](Value) {
      return b.table(1, onLine(candidate(u)), zero);
    });
  };
  /// Where candidate u's region starts: after the slots and region 0.
  auto detourBase = [&](Value u) {
    return b.add(slotBytes, b.mul(u, detourBytes(zero)));
  };
  builder.create<sched::ScratchOp>(
      op.getLoc(), balanceTies ? b.add(detourBase(one), detourBytes(one)) : slotBytes);
  /// A gathered receive of arrival k's blocks [lo, hi) from `from` (tag
  /// `tag`): this rank's own to the receive buffer, the others staged. A
  /// receive into a slot in use waits for the forwards out of it
  /// (freed[k − S]); into a fresh slot on freed[0], which only the
  /// zero-length copy at the start signals, so one body serves both.
  auto receiveArrival = [&](Value k, Value from, Value tag, Value lo, Value hi) {
    Value source = sourceOf(k);
    OpBuilder::InsertionGuard inner(builder);
    b.recvGathered(from, tag, ScheduleBuilder::EventRef{"arrived", {k}},
                   ScheduleBuilder::EventRef{"freed", {b.max(b.sub(k, slots), zero)}});
    sched::ForOp blocks = b.forLoop(lo, hi);
    Value q = blocks.getInductionVar();
    {
      OpBuilder::InsertionGuard mine(builder);
      b.ifThen(b.eq(q, own)); // the block for this rank: delivered
      b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, source),
                b.count(CountArray::recvcount, source));
    }
    b.ifThen(b.ne(q, own)); // the others: staged for phase 2
    b.segment(Buffer::scratch, staged(k, q), lengthOf(k, q));
  };
  /// The gathered segments of blocks [lo, hi) this rank sends to line
  /// coordinate `to`'s plane.
  auto sendBlocks = [&](Value to, Value lo, Value hi) {
    sched::ForOp blocks = b.forLoop(lo, hi);
    Value dst = rankAt(to, blocks.getInductionVar());
    b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, dst),
              b.count(CountArray::sendcount, dst));
  };
  Value directTag = zero, detourTag = one;

  // named after their dimensions, so that the choice of line shows in the IR
  static const char *const names[] = {"x", "y", "z"};
  std::string planeName = "plane ";
  for (int64_t d : plane)
    planeName += names[d];
  b.phase((std::string("line ") + names[line]).c_str(), 0);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.create<sched::CopyOp>(
        op.getLoc(), sched::BufferAttr::get(ctx, Buffer::sendbuf), zero,
        sched::BufferAttr::get(ctx, Buffer::scratch), zero, zero, FlatSymbolRefAttr(),
        ValueRange(), FlatSymbolRefAttr::get(ctx, "freed"), ValueRange{zero});
    sched::ForOp loop = b.forLoop(one, nl);
    Value i = loop.getInductionVar();
    Value to = b.mod(b.add(c[line], offsetOf(i)), nl);
    {
      OpBuilder::InsertionGuard inner(builder);
      b.sendGathered(onLine(to), directTag);
      sendBlocks(to, zero, directEnd(i));
    }
    if (balanceTies) {
      // the tie's second half, to the forwarder, in the same step
      OpBuilder::InsertionGuard inner(builder);
      b.ifThen(isTie(i));
      b.sendGathered(onLine(b.mod(b.add(c[line], sigma(c[line])), nl)), detourTag);
      sendBlocks(to, half, planeSize);
    }
    receiveArrival(i, sourceOf(i), directTag, zero, directEnd(i));
    if (balanceTies) {
      // as forwarder J: the second half of each candidate u's tie
      OpBuilder::InsertionGuard inner(builder);
      b.ifThen(isTie(i));
      Value u = b.forLoop(zero, two).getInductionVar();
      b.ifThen(serves(u));
      b.recv(Buffer::scratch, detourBase(u), detourBytes(u), onLine(candidate(u)),
             detourTag, ScheduleBuilder::EventRef{"detoured", {u}});
    }
  }
  if (balanceTies) {
    builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
    b.phase("detour", 2);
    OpBuilder::InsertionGuard guard(builder);
    {
      // as forwarder J: on to each candidate u's intermediate, once it arrived
      OpBuilder::InsertionGuard inner(builder);
      Value u = b.forLoop(zero, two).getInductionVar();
      b.ifThen(serves(u));
      b.sendSignalling(Buffer::scratch, detourBase(u), detourBytes(u),
                       onLine(b.mod(b.add(candidate(u), h), nl)), detourTag,
                       ScheduleBuilder::EventRef{"detoured", {u}}, std::nullopt);
    }
    // as intermediate: the second half of the tie arrival, from its forwarder
    b.ifThen(ties);
    Value tieSource = b.mod(b.sub(c[line], h), nl);
    receiveArrival(kTie, onLine(b.mod(b.add(tieSource, sigma(tieSource)), nl)), detourTag,
                   half, planeSize);
  }

  builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
  b.phase(planeName.c_str(), 1);
  {
    // j = 0: this rank's own blocks for its plane, from the send buffer;
    // j >= 1: the blocks of arrival j, as soon as it is in.
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp stage = b.forLoop(zero, nl);
    Value j = stage.getInductionVar();
    sched::ForOp peers = b.forLoop(one, planeSize, b.c(kPlaneSeed), /*shared=*/true);
    Value t = peers.getInductionVar();
    Value q = b.mod(b.add(own, t), planeSize);
    Value qs = b.mod(b.sub(own, t), planeSize);
    Value dst = rankAt(c[line], q), peer = rankAt(c[line], qs);
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.eq(j, zero));
      b.send(Buffer::sendbuf, b.count(CountArray::senddispl, dst),
             b.count(CountArray::sendcount, dst), dst, zero);
    }
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.ne(j, zero));
      b.sendSignalling(Buffer::scratch, staged(j, q), lengthOf(j, q), dst, zero,
                       ScheduleBuilder::EventRef{"arrived", {j}},
                       ScheduleBuilder::EventRef{"freed", {j}});
    }
    // from plane peer `peer`: its stage j holds the block of the source j
    // back along its line
    Value back = b.select(b.eq(j, zero), zero, offsetOf(j));
    Value source = rankAt(b.mod(b.sub(c[line], back), nl), qs);
    b.recv(Buffer::recvbuf, b.count(CountArray::recvdispl, source),
           b.count(CountArray::recvcount, source), peer, zero);
  }
  b.copy(Buffer::sendbuf, b.count(CountArray::senddispl, r), Buffer::recvbuf,
         b.count(CountArray::recvdispl, r), b.count(CountArray::recvcount, r));
  return success();
}

struct CollLowerTwoPhasePass
    : public collc::impl::CollLowerTwoPhaseBase<CollLowerTwoPhasePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTwoPhaseLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"two-phase"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateTwoPhaseLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallOp>(patterns, {"two-phase"}, [](coll::AlltoallOp op, OpBuilder &builder) {
    return lowerTwoPhase(op, /*isV=*/false, builder);
  });
  addCollLowering<coll::AlltoallvOp>(patterns, {"two-phase"}, [](coll::AlltoallvOp op, OpBuilder &builder) {
    return lowerTwoPhase(op, /*isV=*/true, builder);
  });
}

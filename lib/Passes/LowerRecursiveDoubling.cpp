//===- LowerRecursiveDoubling.cpp - the short-message allreduce ------------===//
//
// MPICH's recursive doubling (Thakur, Rabenseifner, Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 2005), on any
// communicator size, with the order of every combination fixed by the plan
// so that each rank ends with bitwise the same result:
//
//   fold   P' = 2^⌊log2 P⌋, rem = P − P'. Of the ranks below 2·rem, each
//          even rank r sends its contribution to r + 1 and waits for the
//          result; r + 1 receives it into its receive buffer and combines
//          its own into it: x_r OP x_{r+1}. The others copy their own.
//   steps  the P' remaining ranks renumbered 0..P'−1 (r / 2 below 2·rem,
//          r − rem above); at step k partners n and n XOR 2^k exchange
//          their partial results A (the lower partner's) and B and both
//          compute A OP B: the lower one combines the arrival into its
//          receive buffer; the higher one combines its receive buffer into
//          the arrival (the lower block must be the left operand, and a
//          REDUCE's destination is its left operand) and copies it back.
//   result each odd rank below 2·rem sends the result to r − 1.
//
// So the result is the tree ((x0 OP x1) OP (x2 OP x3)) OP ... over the
// renumbered blocks, lower block first at every node of the tree, the same
// bits on every rank; IEEE addition is commutative, but min, max and the
// loc operations keep one operand on a tie, so the order matters beyond
// sums. Every exchange is one whole message: for short messages, where
// start-ups dominate. Events: acc[i] the receive buffer holds i steps'
// result, arrived[k] and sent[k] step k's messages, mixed[k] the higher
// partner's combination; the one scratch slot is reused by step k + 1 once
// acc[k + 1] is signalled.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERRECURSIVEDOUBLING
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

/// The steps of a recursive doubling over P ranks: masks 2^k for k below
/// 31 (every int communicator), each guarded by 2^k < P'.
constexpr int64_t kMaxSteps = 31;

LogicalResult lowerRecursiveDoubling(coll::AllreduceOp op, OpBuilder &builder) {
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth"); // decided by selection
  StringRef rop = op.getReduceOp(), rtype = op.getDatatype();
  auto fifo = sched::FifoAttr::get(op.getContext(), depth, /*recv_depth=*/depth);
  createPlanFor(builder, op, "allreduce", "recursive-doubling", {fifo},
                {"folded", "acc", "arrived", "sent", "mixed"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), two = b.c(2);
  builder.create<sched::ScratchOp>(op.getLoc(), b.count(CountArray::recvcount, zero));
  b.phase("allreduce", 0);
  Value r = b.rank(), p = b.size();
  Value n = b.count(CountArray::recvcount, r);
  using Ev = ScheduleBuilder::EventRef;
  OpBuilder::InsertPoint top = builder.saveInsertionPoint();

  // P' = the largest power of two <= P; the steps: how many 2^k < P'
  Value pp = b.maxOf(zero, b.c(kMaxSteps), [&](Value j) {
    Value m = b.pow2(j);
    return b.mul(b.le(m, p), m);
  });
  Value steps = b.sum(zero, b.c(kMaxSteps), [&](Value j) { return b.lt(b.pow2(j), pp); });
  Value rem = b.sub(p, pp);
  Value folded = b.lt(r, b.mul(two, rem));
  Value even = b.eq(b.mod(r, two), zero);
  Value out = b.logicalAnd(folded, even);
  Value keeper = b.logicalAnd(folded, b.eq(even, zero));
  Value newRank = b.select(folded, b.floordiv(r, two), b.sub(r, rem));

  // fold: the even rank's contribution first, the keeper's own second
  b.ifThen(out);
  b.send(Buffer::sendbuf, zero, n, b.add(r, one), one);
  b.recv(Buffer::recvbuf, zero, n, b.add(r, one), two);
  builder.restoreInsertionPoint(top);
  b.ifThen(keeper);
  b.recv(Buffer::recvbuf, zero, n, b.sub(r, one), one, Ev{"folded", {zero}});
  b.reduceInto(rop, rtype, Buffer::sendbuf, zero, Buffer::recvbuf, zero, n,
               Ev{"folded", {zero}}, Ev{"acc", {zero}});
  builder.restoreInsertionPoint(top);
  b.ifThen(b.eq(folded, zero));
  b.copyWith(Buffer::sendbuf, zero, Buffer::recvbuf, zero, n, std::nullopt, Ev{"acc", {zero}});
  builder.restoreInsertionPoint(top);

  // the doubling steps
  sched::ForOp loop = b.forLoop(zero, b.c(kMaxSteps));
  Value k = loop.getInductionVar();
  Value mask = b.pow2(k);
  b.ifThen(b.logicalAnd(b.eq(out, zero), b.lt(mask, pp)));
  Value high = b.mod(b.floordiv(newRank, mask), two); // this rank is the higher partner
  Value partnerNew = b.select(high, b.sub(newRank, mask), b.add(newRank, mask));
  Value partner = b.select(b.lt(partnerNew, rem), b.add(b.mul(two, partnerNew), one),
                           b.add(partnerNew, rem));
  Value next = b.add(k, one);
  // the slot is free once the last step's result is in the receive buffer
  b.recvWaiting(Buffer::scratch, zero, n, partner, zero, Ev{"acc", {k}}, Ev{"arrived", {k}});
  b.sendSignalling(Buffer::recvbuf, zero, n, partner, zero, Ev{"acc", {k}}, Ev{"sent", {k}});
  OpBuilder::InsertPoint step = builder.saveInsertionPoint();
  b.ifThen(b.eq(high, zero));
  sched::ReduceOp low = b.reduceInto(rop, rtype, Buffer::scratch, zero, Buffer::recvbuf, zero, n,
                                     Ev{"arrived", {k}}, Ev{"acc", {next}});
  b.addWait(low, "sent", {k});
  builder.restoreInsertionPoint(step);
  b.ifThen(high);
  b.reduceInto(rop, rtype, Buffer::recvbuf, zero, Buffer::scratch, zero, n, Ev{"arrived", {k}},
               Ev{"mixed", {k}});
  sched::CopyOp back = b.copyWith(Buffer::scratch, zero, Buffer::recvbuf, zero, n,
                                  Ev{"mixed", {k}}, Ev{"acc", {next}});
  b.addWait(back, "sent", {k});
  builder.restoreInsertionPoint(top);
  builder.setInsertionPointAfter(loop);

  // the result to the folded-out rank
  b.ifThen(keeper);
  b.send(Buffer::recvbuf, zero, n, b.sub(r, one), two, Ev{"acc", {steps}});
  return success();
}

struct CollLowerRecursiveDoublingPass
    : public collc::impl::CollLowerRecursiveDoublingBase<CollLowerRecursiveDoublingPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateRecursiveDoublingLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns),
                                  ArrayRef<StringRef>{"recursive-doubling"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateRecursiveDoublingLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AllreduceOp>(patterns, {"recursive-doubling"}, lowerRecursiveDoubling);
}

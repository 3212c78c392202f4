//===- LowerRing.cpp - the ring allreduce: reduce-scatter, then allgather -===//
//
// Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
// clusters of workstations" (JPDC 69(2), 2009), the ring Rabenseifner's
// reduce-scatter + allgather takes on any P: the message's E elements are
// cut into P blocks of ⌈E/P⌉ (the last ones short or empty, never splitting
// an element). Rank r sends to r + 1 and receives from r − 1.
//
//   reduce-scatter, step s = 0..P−2: send block (r − s) mod P (its own
//     contribution at s = 0, else the partial it combined at step s − 1);
//     receive block (r − s − 1) mod P into its scratch slot and combine its
//     own contribution into it; at the last step the block is (r + 1) mod P
//     and lands in the receive buffer: rank r holds block r + 1 complete.
//   allgather, step s = 0..P−2: send block (r + 1 − s) mod P, receive block
//     (r − s) mod P into the receive buffer and forward it next step.
//
// Reduction order: block b is x_b OP x_{b+1} OP ... OP x_{b−1}, left to
// right, the ranks in ring order from b (the arrival, the partial, is
// always the left operand); one rank computes it and the allgather copies
// its bytes, so every rank holds the same bits. Each rank sends 2(P − 1)
// blocks of m/P: the bandwidth-optimal allreduce of one link.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

#include "collc/plan.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERRING
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

LogicalResult lowerRing(coll::AllreduceOp op, OpBuilder &builder) {
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth"); // decided by selection
  StringRef rop = op.getReduceOp(), rtype = op.getDatatype();
  // the verifier (C4) admitted only the table's names
  int64_t element = static_cast<int64_t>(
      collrt_reduce_type_size(collrt_reduce_type_from_name(rtype.str().c_str())));
  auto fifo = pipelineFifo(op.getContext(), depth);
  createPlanFor(builder, op, "allreduce", "ring", {fifo}, {"got", "partial", "done", "gathered"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), e = b.c(element);
  // blocks of ⌈E/P⌉ elements, one scratch slot each
  auto blockBytes = [&](Value bytes, Value p) {
    return b.mul(b.ceildiv(b.floordiv(bytes, e), p), e);
  };
  builder.create<sched::ScratchOp>(
      op.getLoc(), b.mul(b.size(), blockBytes(b.count(CountArray::recvcount, zero), b.size())));
  b.phase("ring", 0);
  Value r = b.rank(), p = b.size();
  Value n = b.count(CountArray::recvcount, r);
  Value blk = blockBytes(n, p);
  Value next = b.mod(b.add(r, one), p), prev = b.mod(b.sub(r, one), p);
  auto start = [&](Value block) { return b.min(b.mul(block, blk), n); };
  auto length = [&](Value block) { return b.sub(start(b.add(block, one)), start(block)); };
  auto slot = [&](Value block) { return b.mul(block, blk); };
  using Ev = ScheduleBuilder::EventRef;
  OpBuilder::InsertPoint top = builder.saveInsertionPoint();

  b.ifThen(b.eq(p, one)); // nothing to combine
  b.copy(Buffer::sendbuf, zero, Buffer::recvbuf, zero, n);
  builder.restoreInsertionPoint(top);

  Value last = b.sub(p, b.c(2));
  sched::ForOp scatter = b.forLoop(zero, b.sub(p, one));
  Value s = scatter.getInductionVar();
  Value sent = b.mod(b.sub(r, s), p);
  Value got = b.mod(b.sub(b.sub(r, s), one), p);
  OpBuilder::InsertPoint step = builder.saveInsertionPoint();
  b.ifThen(b.eq(s, zero));
  b.send(Buffer::sendbuf, start(sent), length(sent), next, zero);
  builder.restoreInsertionPoint(step);
  b.ifThen(b.ne(s, zero));
  b.send(Buffer::scratch, slot(sent), length(sent), next, zero, Ev{"partial", {sent}});
  builder.restoreInsertionPoint(step);
  b.ifThen(b.lt(s, last));
  b.recv(Buffer::scratch, slot(got), length(got), prev, zero, Ev{"got", {got}});
  b.reduceInto(rop, rtype, Buffer::sendbuf, start(got), Buffer::scratch, slot(got), length(got),
               Ev{"got", {got}}, Ev{"partial", {got}});
  builder.restoreInsertionPoint(step);
  b.ifThen(b.eq(s, last)); // the block this rank completes
  b.recv(Buffer::recvbuf, start(got), length(got), prev, zero, Ev{"got", {got}});
  b.reduceInto(rop, rtype, Buffer::sendbuf, start(got), Buffer::recvbuf, start(got), length(got),
               Ev{"got", {got}}, Ev{"done", {got}});
  builder.restoreInsertionPoint(top);
  builder.setInsertionPointAfter(scatter);

  sched::ForOp gather = b.forLoop(zero, b.sub(p, one));
  Value g = gather.getInductionVar();
  Value out = b.mod(b.sub(b.add(r, one), g), p);
  Value in = b.mod(b.sub(r, g), p);
  step = builder.saveInsertionPoint();
  b.ifThen(b.eq(g, zero));
  b.send(Buffer::recvbuf, start(out), length(out), next, one, Ev{"done", {out}});
  builder.restoreInsertionPoint(step);
  b.ifThen(b.ne(g, zero));
  b.send(Buffer::recvbuf, start(out), length(out), next, one, Ev{"gathered", {out}});
  builder.restoreInsertionPoint(step);
  b.recv(Buffer::recvbuf, start(in), length(in), prev, one, Ev{"gathered", {in}});
  return success();
}

struct CollLowerRingPass : public collc::impl::CollLowerRingBase<CollLowerRingPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateRingLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"ring"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateRingLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AllreduceOp>(patterns, {"ring"}, lowerRing);
}

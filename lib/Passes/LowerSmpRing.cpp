//===- LowerSmpRing.cpp - seed 001's SMP blocked-ring allgatherv ----------===//
//
// The blocked ring (LowerBlockedRing.cpp) over P = N·C ranks is one pipeline
// P hops deep, and on N nodes of C cores it carries every block into every
// node once per core... and back into its own node. Seed 001 (docs/design.md)
// runs the ring over nodes instead, with one sender and one receiver per
// node; the cores of a node share what arrives. Over point-to-point (the
// transport this plan runs on everywhere) that is three pipelined stages:
//
//   gather (FIFO 0) every core but the node's leader (local rank 0) sends
//          its contribution to the leader in one message;
//   ring   (FIFO 1) the leaders run the blocked ring over the N nodes: a
//          leader sends the blocks of its node's contributions, then
//          forwards those of node n−1, ..., n−(N−2), each block as soon as
//          it arrived (or was gathered), and never receives a block of its
//          own node;
//   chain  (FIFO 2) every block a leader has (its node's, then the ring's,
//          in arrival order) flows down a chain local 0 → 1 → ... → C−1,
//          each core forwarding a block as soon as it arrived.
//
// A block is N + C hops from its farthest receiver instead of P, and each
// block crosses each node boundary once. Stages have their own FIFOs, so the
// leader's ring traffic never waits behind its chain traffic (head-of-line).
// A core's own contribution comes back to it down the chain (a core does not
// copy it: the chain writes the same bytes, and two writers would race).
// Empty contributions send nothing. B is block_bytes, or at bind the ring's
// formula with the pipeline depth N + C − 2 in place of P − 2.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERSMPRING
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


LogicalResult lowerSmpRing(coll::AllgathervOp op, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
  MLIRContext *ctx = op.getContext();
  auto gatherFifo = sched::FifoAttr::get(ctx, depth, 0);
  // both the ring and the chain receive in their sender's order
  auto pipeFifo = pipelineFifo(ctx, depth);
  createPlanFor(builder, op, "allgatherv", "smp-blocked-ring",
                {gatherFifo, pipeFifo, pipeFifo}, {"gathered", "arrived", "chained"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), two = b.c(2), r = b.rank();
  Value cores = b.expr<sched::RanksPerNodeOp>();
  // nodes from the topology, so that the plan runs on exactly N·C ranks
  Value nodes = b.nodes(op.getTopology().getShape().size());
  Value node = b.floordiv(r, cores), local = b.mod(r, cores);
  Value leader = b.mul(node, cores);
  Value isLeader = b.eq(local, zero);
  std::optional<int64_t> fixedBlock = options.getInt("block_bytes");
  Value blockBytes =
      fixedBlock ? b.c(*fixedBlock)
                 : pipelineBlockBytes(b, op.getTopology().getAlphaPs(),
                                      op.getTopology().getBetaPs(),
                                      [&] { return b.add(nodes, cores); });

  /// For every block of owner node `m`'s contributions: calls body(owner,
  /// k, offset, length, c) with the insertion point inside the loops.
  auto forBlocksOf = [&](Value m, function_ref<void(Value, Value, Value, Value, Value)> body) {
    sched::ForOp owners = b.forLoop(zero, cores);
    Value c = owners.getInductionVar();
    Value owner = b.add(b.mul(m, cores), c);
    Value bytes = b.count(CountArray::recvcount, owner);
    sched::ForOp blocks = b.forLoop(zero, b.ceildiv(bytes, blockBytes));
    Value k = blocks.getInductionVar();
    Value start = b.mul(k, blockBytes);
    body(owner, k, b.add(b.count(CountArray::recvdispl, owner), start),
         b.min(blockBytes, b.sub(bytes, start)), c);
  };

  sched::PhaseOp gather = b.phase("gather", 0);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.ne(local, zero));
    b.send(Buffer::sendbuf, zero, b.count(CountArray::recvcount, r), leader, zero);
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLeader);
    b.copy(Buffer::sendbuf, zero, Buffer::recvbuf, b.count(CountArray::recvdispl, r),
           b.count(CountArray::recvcount, r));
    sched::ForOp loop = b.forLoop(one, cores);
    Value c = loop.getInductionVar();
    Value from = b.add(leader, c);
    b.recv(Buffer::recvbuf, b.count(CountArray::recvdispl, from),
           b.count(CountArray::recvcount, from), from, zero,
           ScheduleBuilder::EventRef{"gathered", {c}});
  }

  builder.setInsertionPointAfter(gather);
  sched::PhaseOp ring = b.phase("ring", 1);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLeader);
    Value next = b.mul(b.mod(b.add(node, one), nodes), cores);
    Value prev = b.mul(b.mod(b.sub(node, one), nodes), cores);
    sched::ForOp back = b.forLoop(zero, nodes);
    Value j = back.getInductionVar();
    Value m = b.mod(b.sub(node, j), nodes);
    Value forwards = b.le(j, b.sub(nodes, two)); // the next node does not own it
    forBlocksOf(m, [&](Value owner, Value k, Value offset, Value length, Value c) {
      ScheduleBuilder::EventRef arrived{"arrived", {owner, k}};
      OpBuilder::InsertPoint body = builder.saveInsertionPoint();
      b.ifThen(b.ge(j, one));
      b.recv(Buffer::recvbuf, offset, length, prev, zero, arrived);
      builder.restoreInsertionPoint(body);
      // own node: the leader's block straight from its send buffer, a
      // gathered one once it arrived
      b.ifThen(b.logicalAnd(b.eq(j, zero), forwards));
      {
        OpBuilder::InsertionGuard inner(builder);
        b.ifThen(b.eq(c, zero));
        b.send(Buffer::sendbuf, b.mul(k, blockBytes), length, next, zero);
      }
      b.ifThen(b.ne(c, zero));
      b.send(Buffer::recvbuf, offset, length, next, zero,
             ScheduleBuilder::EventRef{"gathered", {c}});
      builder.restoreInsertionPoint(body);
      b.ifThen(b.logicalAnd(b.ge(j, one), forwards));
      b.send(Buffer::recvbuf, offset, length, next, zero, arrived);
    });
  }

  builder.setInsertionPointAfter(ring);
  b.phase("chain", 2);
  Value down = b.add(r, one), up = b.sub(r, one);
  Value hasNext = b.lt(local, b.sub(cores, one));
  // Every block in the leader's order: its node's (j = 0), then the ring's.
  sched::ForOp back = b.forLoop(zero, nodes);
  Value j = back.getInductionVar();
  Value m = b.mod(b.sub(node, j), nodes);
  forBlocksOf(m, [&](Value owner, Value k, Value offset, Value length, Value c) {
    ScheduleBuilder::EventRef chained{"chained", {owner, k}};
    OpBuilder::InsertPoint body = builder.saveInsertionPoint();
    // the leader starts the chain
    b.ifThen(b.logicalAnd(isLeader, hasNext));
    {
      OpBuilder::InsertionGuard inner(builder);
      b.ifThen(b.logicalAnd(b.eq(j, zero), b.eq(c, zero)));
      b.send(Buffer::sendbuf, b.mul(k, blockBytes), length, down, zero);
    }
    {
      OpBuilder::InsertionGuard inner(builder);
      b.ifThen(b.logicalAnd(b.eq(j, zero), b.ne(c, zero)));
      b.send(Buffer::recvbuf, offset, length, down, zero,
             ScheduleBuilder::EventRef{"gathered", {c}});
    }
    b.ifThen(b.ge(j, one));
    b.send(Buffer::recvbuf, offset, length, down, zero,
           ScheduleBuilder::EventRef{"arrived", {owner, k}});
    builder.restoreInsertionPoint(body);
    // the other cores receive and pass on
    b.ifThen(b.ne(local, zero));
    b.recv(Buffer::recvbuf, offset, length, up, zero, chained);
    b.ifThen(hasNext);
    b.send(Buffer::recvbuf, offset, length, down, zero, chained);
  });
  return success();
}

struct CollLowerSmpRingPass : public collc::impl::CollLowerSmpRingBase<CollLowerSmpRingPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSmpBlockedRingLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"smp-blocked-ring"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateSmpBlockedRingLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AllgathervOp>(patterns, {"smp-blocked-ring"}, lowerSmpRing);
}

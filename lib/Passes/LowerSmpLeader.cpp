//===- LowerSmpLeader.cpp - seed 002's leader-based SMP alltoall ----------===//
//
// On a machine of N nodes with C cores each (ranks_per_node = C, rank r on
// node r / C), the network sees N·C ranks each sending N·C − 1 messages,
// most of them small. Seed 002's leader-based alltoall aggregates per node:
//
//   gather   (FIFO 0) every core sends its whole send buffer to its node's
//            leader (local rank 0) in one message;
//   exchange (FIFO 1) each leader sends every other leader one message with
//            the C·C blocks from its cores to that node's cores, as soon as
//            its cores' buffers have arrived (a join over `gathered`);
//   scatter  (FIFO 2) each leader sends each of its cores one message with
//            the P blocks for it, in source order, each segment waiting for
//            the gather or exchange message that brought it; the leader's
//            own blocks are one gathered copy.
//
// N − 1 network messages per leader instead of C·(N·C − 1) per node, at the
// price of every byte crossing the leader's memory twice (the gather and
// scatter) and of leader memory: 2·C·P·m bytes of scratch. It pays for small
// blocks on many cores (seed 002); the cost model weighs it. Correct for any
// placement of ranks on nodes (it only uses point-to-point messages); fast
// when ranks_per_node matches the machine.
//
//===----------------------------------------------------------------------===//
#include "dialect/Coll/CollOps.h"
#include "dialect/Coll/CollAlgorithms.h"
#include "lib/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERSMPLEADER
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {




void lowerSmpLeader(coll::AlltoallOp op) {
  OpBuilder builder(op);
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = options.getInt("fifo_depth").value_or(algorithms::defaultFifoDepth("smp-leader"));
  MLIRContext *ctx = op.getContext();
  auto gatherFifo = sched::FifoAttr::get(ctx, 1, 0);
  auto exchangeFifo = sched::FifoAttr::get(ctx, depth, depth);
  auto scatterFifo = sched::FifoAttr::get(ctx, depth, 0);
  createPlanFor(builder, op, "alltoall", "smp-leader",
                {gatherFifo, exchangeFifo, scatterFifo}, {"gathered", "exchanged"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), r = b.rank(), p = b.size();
  Value cores = b.expr<sched::RanksPerNodeOp>();
  // nodes from the topology, so that the plan runs on exactly N·C ranks
  Value nodes = b.nodes(op.getTopology().getShape().size());
  Value node = b.floordiv(r, cores), local = b.mod(r, cores);
  Value leader = b.mul(node, cores);
  Value isLeader = b.eq(local, zero);
  Value m = b.count(CountArray::recvcount, r);
  // leader scratch: the gathered buffers (core l's block for rank d at
  // (l·P + d)·m), then the exchanged blocks ((source node·C + c)·C + c')·m
  Value gathered = b.mul(b.mul(cores, p), m);
  builder.create<sched::ScratchOp>(
      op.getLoc(), b.select(isLeader, b.mul(gathered, b.c(2)), zero));
  auto gatheredAt = [&](Value core, Value dst) {
    return b.mul(b.add(b.mul(core, p), dst), m);
  };
  auto exchangedAt = [&](Value srcNode, Value c, Value cp) {
    return b.add(gathered, b.mul(b.add(b.mul(b.add(b.mul(srcNode, cores), c), cores), cp), m));
  };
  /// Segment of the block from local core c of this node (0: this leader's
  /// send buffer) for rank dst, waiting for its gather.
  auto localBlock = [&](Value c, Value dst) {
    {
      OpBuilder::InsertionGuard g(builder);
      b.ifThen(b.eq(c, zero));
      b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, dst), m);
    }
    OpBuilder::InsertionGuard g(builder);
    b.ifThen(b.ne(c, zero));
    b.after("gathered", ValueRange{c});
    b.segment(Buffer::scratch, gatheredAt(c, dst), m);
  };

  b.phase("gather", 0);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.ne(local, zero));
    b.sendGathered(leader, zero);
    sched::ForOp loop = b.forLoop(zero, p);
    Value d = loop.getInductionVar();
    b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, d),
              b.count(CountArray::sendcount, d));
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLeader);
    sched::ForOp loop = b.forLoop(one, cores);
    Value l = loop.getInductionVar();
    b.recv(Buffer::scratch, gatheredAt(l, zero), b.mul(p, m), b.add(leader, l), zero,
           ScheduleBuilder::EventRef{"gathered", {l}});
  }

  builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
  b.phase("exchange", 1);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLeader);
    sched::ForOp loop = b.forLoop(one, nodes);
    Value k = loop.getInductionVar();
    Value toNode = b.mod(b.add(node, k), nodes);
    Value fromNode = b.mod(b.sub(node, k), nodes);
    {
      OpBuilder::InsertionGuard inner(builder);
      b.sendGathered(b.mul(toNode, cores), zero);
      sched::ForOp blocks = b.forLoop(zero, b.mul(cores, cores));
      Value i = blocks.getInductionVar();
      Value c = b.floordiv(i, cores), cp = b.mod(i, cores);
      localBlock(c, b.add(b.mul(toNode, cores), cp));
    }
    b.recv(Buffer::scratch, exchangedAt(fromNode, zero, zero), b.mul(b.mul(cores, cores), m),
           b.mul(fromNode, cores), zero, ScheduleBuilder::EventRef{"exchanged", {fromNode}});
  }

  builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
  b.phase("scatter", 2);
  /// The blocks for local core cp, in source rank order.
  auto blocksFor = [&](Value cp) {
    sched::ForOp loop = b.forLoop(zero, p);
    Value s = loop.getInductionVar();
    Value srcNode = b.floordiv(s, cores), c = b.mod(s, cores);
    Value dst = b.add(leader, cp);
    {
      OpBuilder::InsertionGuard g(builder);
      b.ifThen(b.eq(srcNode, node));
      localBlock(c, dst);
    }
    OpBuilder::InsertionGuard g(builder);
    b.ifThen(b.ne(srcNode, node));
    b.after("exchanged", ValueRange{srcNode});
    b.segment(Buffer::scratch, exchangedAt(srcNode, c, cp), m);
  };
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLeader);
    {
      OpBuilder::InsertionGuard inner(builder);
      sched::ForOp loop = b.forLoop(one, cores);
      Value cp = loop.getInductionVar();
      b.sendGathered(b.add(leader, cp), zero);
      blocksFor(cp);
    }
    // the leader's own blocks: one copy gathered on both sides
    b.copyGathered();
    {
      OpBuilder::InsertionGuard sources(builder);
      blocksFor(zero);
    }
    sched::ForOp loop = b.forLoop(zero, p);
    Value s = loop.getInductionVar();
    b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, s),
              b.count(CountArray::recvcount, s), /*dst=*/true);
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.ne(local, zero));
    b.recvGathered(leader, zero);
    sched::ForOp loop = b.forLoop(zero, p);
    Value s = loop.getInductionVar();
    b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, s),
              b.count(CountArray::recvcount, s));
  }
  op.erase();
}

struct CollLowerSmpLeaderPass
    : public collc::impl::CollLowerSmpLeaderBase<CollLowerSmpLeaderPass> {
  void runOnOperation() override {
    for (coll::AlltoallOp op : opsWithAlgorithm<coll::AlltoallOp>(getOperation(), {"smp-leader"}))
      lowerSmpLeader(op);
  }
};

} // namespace

//===- LowerSmpLeader.cpp - seed 002's leader-based SMP alltoall ----------===//
//
// On a machine of N nodes with C cores each (ranks_per_node = C, rank r on
// node r / C), the network sees N·C ranks each sending N·C − 1 messages,
// most of them small. Seed 002's leader-based alltoall aggregates per node,
// here through the node arena (plan format 4), so that only the leader
// (local rank 0) sends messages at all:
//
//   gather   (FIFO 0) every core copies its send buffer into its row of the
//            arena, in[c][d], then NOTIFYs counter 0 ("filled");
//   exchange (FIFO 1) the leader AWAITs counter 0 and sends every other
//            leader one message gathered straight out of the arena: the C·C
//            blocks from its cores to that node's cores; it receives each
//            node's message into out[A] of the arena;
//   arrivals (FIFO 2) the leader NOTIFYs counter 1 + A once node A's message
//            is in (a FIFO of its own, so that no send waits behind an
//            arrival);
//   scatter  (FIFO 3) every core copies its blocks from its own node out of
//            in[*][it] once counter 0 is full, then, node by node, AWAITs
//            counter 1 + A and copies its C blocks from out[A] (contiguous)
//            into its receive buffer.
//
// N − 1 network messages per leader instead of C·(N·C − 1) per node, and no
// message at all between the ranks of a node: every byte crosses node memory
// twice (into the arena, out of it), as with the leader staging it, but with
// no per-message matching, and the leader's C − 1 gather receives and
// scatter sends are gone. Arena: 2·C·P·m bytes per node (the leader's scratch
// before). The cost model weighs it (seed 002: it pays for small blocks on
// many cores). Bind checks that ranks_per_node matches the machine (the
// arena is shared by the ranks MPI puts on one node).
//
// Arena layout: in[c][d] at (c·P + d)·m (core c's block for rank d); out[A]
// at C·P·m + A·C·C·m, in it the block from core c of node A for core c' at
// (c'·C + c)·m, so that core c' reads its C blocks from A in one piece.
// Counters: 0 = every core's row is in; 1 + A = node A's message is in.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERSMPLEADER
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {




LogicalResult lowerSmpLeader(coll::AlltoallOp op, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
  MLIRContext *ctx = op.getContext();
  auto local = sched::FifoAttr::get(ctx, 1, 0);
  auto exchangeFifo = sched::FifoAttr::get(ctx, depth, depth);
  createPlanFor(builder, op, "alltoall", "smp-leader", {local, exchangeFifo, local, local},
                {"filled", "staged", "arrived", "landed"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), r = b.rank(), p = b.size();
  Value cores = b.expr<sched::RanksPerNodeOp>();
  // nodes from the topology, so that the plan runs on exactly N·C ranks
  Value nodes = b.nodes(op.getTopology().getShape().size());
  Value node = b.floordiv(r, cores), me = b.mod(r, cores);
  Value isLeader = b.eq(me, zero);
  Value m = b.count(CountArray::recvcount, r);
  Value rows = b.mul(b.mul(cores, p), m); // in[*][*], and out[*][*][*]
  b.arena(b.mul(rows, b.c(2)), b.add(nodes, one));
  auto inAt = [&](Value c, Value d) { return b.mul(b.add(b.mul(c, p), d), m); };
  auto outAt = [&](Value from, Value cp, Value c) {
    return b.add(rows, b.mul(b.add(b.mul(b.add(b.mul(from, cores), cp), cores), c), m));
  };
  using Ev = ScheduleBuilder::EventRef;
  Ev filled{"filled", {zero}}, staged{"staged", {zero}};

  b.phase("gather", 0);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.copyWith(std::nullopt, Value(), Buffer::arena, inAt(me, zero), Value(), std::nullopt,
               filled);
    sched::ForOp loop = b.forLoop(zero, p);
    Value d = loop.getInductionVar();
    b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, d), m);
  }
  b.notify(zero, filled);
  b.await(zero, staged);

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
      b.sendGathered(b.mul(toNode, cores), zero, staged);
      // in the order the receiver lays them out: by its core c', then ours
      sched::ForOp blocks = b.forLoop(zero, b.mul(cores, cores));
      Value i = blocks.getInductionVar();
      Value cp = b.floordiv(i, cores), c = b.mod(i, cores);
      b.segment(Buffer::arena, inAt(c, b.add(b.mul(toNode, cores), cp)), m);
    }
    b.recv(Buffer::arena, outAt(fromNode, zero, zero), b.mul(b.mul(cores, cores), m),
           b.mul(fromNode, cores), zero, Ev{"arrived", {fromNode}});
  }

  builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
  b.phase("arrivals", 2);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLeader);
    sched::ForOp loop = b.forLoop(one, nodes);
    Value fromNode = b.mod(b.sub(node, loop.getInductionVar()), nodes);
    b.notify(b.add(one, fromNode), Ev{"arrived", {fromNode}});
  }

  builder.setInsertionPointAfter(builder.getInsertionBlock()->getParentOp());
  b.phase("scatter", 3);
  /// The C blocks from node `from` for this core, into the receive buffer.
  auto intoRecv = [&](Value from) {
    sched::ForOp loop = b.forLoop(zero, cores);
    Value s = b.add(b.mul(from, cores), loop.getInductionVar());
    b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, s), m, /*dst=*/true);
  };
  {
    OpBuilder::InsertionGuard guard(builder);
    b.copyWith(std::nullopt, Value(), std::nullopt, Value(), Value(), staged, std::nullopt);
    {
      OpBuilder::InsertionGuard sources(builder);
      sched::ForOp loop = b.forLoop(zero, cores);
      b.segment(Buffer::arena, inAt(loop.getInductionVar(), r), m);
    }
    intoRecv(node);
  }
  sched::ForOp loop = b.forLoop(one, nodes);
  Value from = b.mod(b.sub(node, loop.getInductionVar()), nodes);
  Ev landed{"landed", {from}};
  b.await(b.add(one, from), landed);
  b.copyWith(Buffer::arena, outAt(from, me, zero), std::nullopt, Value(), Value(), landed,
             std::nullopt);
  intoRecv(from);
  return success();
}

struct CollLowerSmpLeaderPass
    : public collc::impl::CollLowerSmpLeaderBase<CollLowerSmpLeaderPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSmpLeaderLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"smp-leader"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateSmpLeaderLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallOp>(patterns, {"smp-leader"}, lowerSmpLeader);
}

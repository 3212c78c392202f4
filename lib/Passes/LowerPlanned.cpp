//===- LowerPlanned.cpp - seed 004's planned SMP alltoall(v) -------------===//
//
// EPCC's planned alltoallv (docs/algorithms/planned.md) for N nodes of C cores:
// bind is the planning step (the counts are exchanged once, plan format v2's
// bind-time exchange), and every start then sends ONE message per ordered
// node pair, with the node pairs spread evenly over the node's cores:
//
//   collect    (FIFO 0) core c of node A copies, for each "agent" core a of
//              A, its blocks for every rank of the nodes B ≡ a (mod C),
//              B ≠ A, into a's region of the node arena (plan format 4),
//              then NOTIFYs; every core AWAITs the node's copies;
//   exchange   (FIFO 1) agent a of A sends, for each such B, one message with
//              all C·C blocks from A's cores to B's cores to core A mod C of
//              B, gathered straight out of the arena once the node's
//              copies are in; that core stages what it receives;
//   distribute (FIFO 2) core b of B sends each core c' of B one message with
//              the blocks for c' from every node A ≡ b (mod C), as soon as
//              their exchange messages arrived; its own blocks are a copy;
//   local      (FIFO 3) blocks between cores of one node go directly.
//
// About 3(C − 1) + (N − 1)/C messages per core instead of P − 1 (direct) or
// C − 1 + N − 1 (smp-all-cores): the plan for many nodes and short blocks.
//
// The collect stage goes through the arena, not one message per (core,
// agent): a core writes its blocks where the agent reads them, so the
// stage costs copies and a counter instead of C − 1 message overheads.
//
// Staging layouts, from the exchange's tables (no size travels with data):
//   table 0 [d] from s: bytes s sends to d — put by s to the agent that
//           carries (s, d) and to the core of d's node that receives it;
//   table 1 [a·C + c] from c: bytes c collects for agent a (all its blocks
//           for a's nodes; 0 for a = c), told to every core of the node:
//           the arena holds agent a's regions one after the other, in each
//           core c's at the sum of the entries below a·C + c (TABLE_SUM);
//   table 2 [0] from s: bytes s sends to this core's node (this core being
//           the one that receives s's node).
// In core c's region of agent a the blocks lie by (node B, core c'); a
// receiving core's exchange stage (scratch) holds source node A's region
// (the sum of table 2 over A's cores) after those of the earlier nodes, and
// in it the blocks by (c, c'). Each offset sums O(N + C) table entries.
//
// The same schedule serves alltoall (all counts equal): at 8 B on 16 nodes
// of 8 cores it is the fastest alltoall collc has (docs/smpi.md).
// Bind checks that ranks_per_node matches the machine (node_map.c): the
// collect stage goes through the node arena, the distribute stage's
// messages through the shared-memory transport.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERPLANNED
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {







template <typename OpTy>
LogicalResult lowerPlanned(OpTy op, bool isV, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
  MLIRContext *ctx = op.getContext();
  auto fifo = sched::FifoAttr::get(ctx, depth, 0);
  createPlanFor(builder, op, isV ? "alltoallv" : "alltoall", "planned", {fifo, fifo, fifo, fifo},
                {"collected", "exchanged"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), r = b.rank();
  Value C = b.expr<sched::RanksPerNodeOp>();
  // nodes from the topology, so that the plan runs on exactly N·C ranks
  Value N = b.nodes(op.getTopology().getShape().size());
  Value A = b.floordiv(r, C), me = b.mod(r, C);
  auto rankOf = [&](Value node, Value core) { return b.add(b.mul(node, C), core); };
  /// 1 if node `m` is remote from node `from` and carried by agent core `a`.
  auto carried = [&](Value m, Value from, Value a) {
    return b.logicalAnd(b.ne(m, from), b.eq(b.mod(m, C), a));
  };

  // --- the plan: what every rank tells the ranks that carry its blocks ---
  {
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    sched::ForOp nodes = b.forLoop(zero, N);
    Value B = nodes.getInductionVar();
    OpBuilder::InsertionGuard inNode(builder);
    b.ifThen(b.ne(B, A));
    Value agent = rankOf(A, b.mod(B, C));
    Value receiver = rankOf(B, b.mod(A, C));
    Value toNode = b.sum(zero, C, [&](Value c2) {
      return b.count(CountArray::sendcount, rankOf(B, c2));
    });
    b.put(2, zero, toNode, receiver);
    sched::ForOp cores = b.forLoop(zero, C);
    Value d = rankOf(B, cores.getInductionVar());
    Value n = b.count(CountArray::sendcount, d);
    b.put(0, d, n, receiver);
    b.ifThen(b.ne(agent, r));
    b.put(0, d, n, agent);
  }
  {
    // table 1 [a·C + c]: the bytes core c collects for agent a (0 for
    // itself), told to every core of the node: the arena's layout
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    sched::ForOp agents = b.forLoop(zero, C);
    Value a = agents.getInductionVar();
    Value region = b.sum(zero, N, [&](Value m) {
      Value bytes = b.sum(zero, C, [&](Value c2) {
        return b.count(CountArray::sendcount, rankOf(m, c2));
      });
      return b.select(b.logicalAnd(carried(m, A, a), b.ne(a, me)), bytes, zero);
    });
    sched::ForOp cores = b.forLoop(zero, C);
    b.put(1, b.add(b.mul(a, C), me), region, rankOf(A, cores.getInductionVar()));
  }

  // --- staging layouts ---
  // Expressions evaluate both sides of a select, and reading a table entry
  // nobody PUT is an error; so sums over "the nodes this rank carries"
  // (m ≡ me mod C, m ≠ A) run over exactly those: m = me + t·C, t in
  // [0, T), split around this rank's own node (t = A / C when A ≡ me).
  Value T = b.ceildiv(b.sub(N, me), C);
  Value tOwn = b.select(b.eq(b.mod(A, C), me), b.floordiv(A, C), T);
  auto sumCarried = [&](Value hi, function_ref<Value(Value)> term) {
    auto nodeAt = [&](Value t) { return term(b.add(me, b.mul(t, C))); };
    return b.add(b.sum(zero, b.min(hi, tOwn), nodeAt),
                 b.sum(b.add(tOwn, one), hi, nodeAt));
  };
  /// t of a node this rank carries
  auto tOf = [&](Value m) { return b.floordiv(m, C); };
  // collect stage, in the node arena: agent a's regions one after the
  // other, in each the regions of source cores c (table 1 [a·C + c])
  auto regionAt = [&](Value a, Value c) {
    return b.tableSum(1, zero, b.add(b.mul(a, C), c));
  };
  /// Offset of c's block for rank (B, c') in this agent's collect stage.
  auto collectAt = [&](Value c, Value B, Value cp) {
    Value src = rankOf(A, c);
    Value base = regionAt(me, c);
    Value before = sumCarried(tOf(B), [&](Value m) {
      return b.sum(zero, C, [&](Value c2) { return b.table(0, src, rankOf(m, c2)); });
    });
    Value within = b.sum(zero, cp, [&](Value c2) { return b.table(0, src, rankOf(B, c2)); });
    return b.add(b.add(base, before), within);
  };
  // exchange stage (this rank receiving for nodes A2 ≡ me): region of A2
  auto exchangeRegion = [&](Value A2) {
    return b.sum(zero, C, [&](Value c2) { return b.table(2, rankOf(A2, c2), zero); });
  };
  /// Offset of the block from (A2, c) for rank (A, cp) in the exchange stage.
  auto exchangeAt = [&](Value A2, Value c, Value cp) {
    Value base = sumCarried(tOf(A2), exchangeRegion);
    Value earlier = b.sum(zero, c, [&](Value c2) { return b.table(2, rankOf(A2, c2), zero); });
    Value within = b.sum(zero, cp, [&](Value c3) {
      return b.table(0, rankOf(A2, c), rankOf(A, c3));
    });
    return b.add(b.add(base, earlier), within);
  };
  builder.create<sched::ScratchOp>(op.getLoc(), sumCarried(T, exchangeRegion));
  b.arena(b.tableSum(1, zero, b.mul(C, C)), one);

  // --- collect (FIFO 0): into the node arena ---
  ScheduleBuilder::EventRef copied{"collected", {zero}}, inArena{"collected", {one}};
  sched::PhaseOp collect = b.phase("collect", 0);
  {
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp loop = b.forLoop(one, C);
    Value a = b.mod(b.add(me, loop.getInductionVar()), C);
    b.copyWith(std::nullopt, Value(), Buffer::arena, regionAt(a, me), Value(), std::nullopt,
               copied);
    sched::ForOp nodes = b.forLoop(zero, N);
    Value B = nodes.getInductionVar();
    b.ifThen(carried(B, A, a));
    sched::ForOp cores = b.forLoop(zero, C);
    Value d = rankOf(B, cores.getInductionVar());
    b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, d),
              b.count(CountArray::sendcount, d));
  }
  // the notify joins every copy in; with one core per node there is none,
  // and a zero-length copy (skipped, but it signals) stands for them
  b.copyWith(Buffer::sendbuf, zero, Buffer::recvbuf, zero, zero, std::nullopt, copied);
  b.notify(zero, copied);
  b.await(zero, inArena);

  // --- exchange (FIFO 1) ---
  builder.setInsertionPointAfter(collect);
  sched::PhaseOp exchange = b.phase("exchange", 1);
  {
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp nodes = b.forLoop(one, N);
    Value k = nodes.getInductionVar();
    Value B = b.mod(b.add(A, k), N);
    b.ifThen(b.eq(b.mod(B, C), me));
    b.sendGathered(rankOf(B, b.mod(A, C)), zero);
    sched::ForOp cores = b.forLoop(zero, C);
    Value c = cores.getInductionVar();
    sched::ForOp dests = b.forLoop(zero, C);
    Value d = rankOf(B, dests.getInductionVar());
    {
      OpBuilder::InsertionGuard inner(builder);
      b.ifThen(b.eq(c, me));
      b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, d),
                b.count(CountArray::sendcount, d));
    }
    b.ifThen(b.ne(c, me));
    b.after("collected", ValueRange{one});
    b.segment(Buffer::arena, collectAt(c, B, dests.getInductionVar()),
              b.table(0, rankOf(A, c), d));
  }
  {
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp nodes = b.forLoop(one, N);
    Value k = nodes.getInductionVar();
    Value A2 = b.mod(b.sub(A, k), N);
    b.ifThen(b.eq(b.mod(A2, C), me));
    b.recvGathered(rankOf(A2, b.mod(A, C)), zero,
                   ScheduleBuilder::EventRef{"exchanged", {A2}});
    sched::ForOp cores = b.forLoop(zero, C);
    Value c = cores.getInductionVar();
    sched::ForOp dests = b.forLoop(zero, C);
    Value cp = dests.getInductionVar();
    b.segment(Buffer::scratch, exchangeAt(A2, c, cp),
              b.table(0, rankOf(A2, c), rankOf(A, cp)));
  }

  // --- distribute (FIFO 2) ---
  builder.setInsertionPointAfter(exchange);
  sched::PhaseOp distribute = b.phase("distribute", 2);
  /// The blocks for core cp of this node that this rank received, each
  /// once its exchange message arrived.
  auto staged = [&](Value cp) {
    sched::ForOp nodes = b.forLoop(zero, N);
    Value A2 = nodes.getInductionVar();
    b.ifThen(carried(A2, A, me));
    sched::ForOp cores = b.forLoop(zero, C);
    Value c = cores.getInductionVar();
    b.after("exchanged", ValueRange{A2});
    b.segment(Buffer::scratch, exchangeAt(A2, c, cp),
              b.table(0, rankOf(A2, c), rankOf(A, cp)));
  };
  /// Where this rank's blocks from the nodes core `carrier` receives land:
  /// in source order, as `carrier` sends them.
  auto delivered = [&](Value carrier, bool dst) {
    sched::ForOp nodes = b.forLoop(zero, N);
    Value A2 = nodes.getInductionVar();
    b.ifThen(carried(A2, A, carrier));
    sched::ForOp cores = b.forLoop(zero, C);
    Value src = rankOf(A2, cores.getInductionVar());
    b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, src),
              b.count(CountArray::recvcount, src), dst);
  };
  {
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp loop = b.forLoop(one, C);
    Value i = loop.getInductionVar();
    Value to = b.mod(b.add(me, i), C), from = b.mod(b.sub(me, i), C);
    {
      OpBuilder::InsertionGuard inner(builder);
      b.sendGathered(rankOf(A, to), zero);
      staged(to);
    }
    b.recvGathered(rankOf(A, from), zero);
    delivered(from, /*dst=*/false);
  }
  {
    // this rank's own staged blocks: one copy gathered on both sides
    OpBuilder::InsertionGuard guard(builder);
    b.copyGathered();
    {
      OpBuilder::InsertionGuard sources(builder);
      staged(me);
    }
    delivered(me, /*dst=*/true);
  }

  // --- local (FIFO 3): blocks between the cores of this node ---
  builder.setInsertionPointAfter(distribute);
  b.phase("local", 3);
  b.copy(Buffer::sendbuf, b.count(CountArray::senddispl, r), Buffer::recvbuf,
         b.count(CountArray::recvdispl, r), b.count(CountArray::sendcount, r));
  sched::ForOp loop = b.forLoop(one, C);
  Value i = loop.getInductionVar();
  Value to = rankOf(A, b.mod(b.add(me, i), C)), from = rankOf(A, b.mod(b.sub(me, i), C));
  b.send(Buffer::sendbuf, b.count(CountArray::senddispl, to),
         b.count(CountArray::sendcount, to), to, zero);
  b.recv(Buffer::recvbuf, b.count(CountArray::recvdispl, from),
         b.count(CountArray::recvcount, from), from, zero);
  return success();
}

struct CollLowerPlannedPass : public collc::impl::CollLowerPlannedBase<CollLowerPlannedPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePlannedLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"planned"})))
      signalPassFailure();
  }
};

} // namespace

// an alltoall is the alltoallv whose counts are all equal: the same plan
void collc::populatePlannedLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallOp>(patterns, {"planned"}, [](coll::AlltoallOp op, OpBuilder &builder) {
    return lowerPlanned(op, /*isV=*/false, builder);
  });
  addCollLowering<coll::AlltoallvOp>(patterns, {"planned"}, [](coll::AlltoallvOp op, OpBuilder &builder) {
    return lowerPlanned(op, /*isV=*/true, builder);
  });
}

//===- LowerPlanned.cpp - seed 004's planned SMP alltoallv ----------------===//
//
// EPCC's planned alltoallv (seed 004, DESIGN.md A5) for N nodes of C cores:
// bind is the planning step (the counts are exchanged once, plan format v2's
// bind-time exchange), and every start then sends ONE message per ordered
// node pair, with the node pairs spread evenly over the node's cores:
//
//   collect    (FIFO 0) core c of node A sends each "agent" core a of A one
//              message with its blocks for every rank of the nodes B ≡ a
//              (mod C), B ≠ A; the agent stages them;
//   exchange   (FIFO 1) agent a of A sends, for each such B, one message with
//              all C·C blocks from A's cores to B's cores to core A mod C of
//              B, each staged block waiting for the collect message that
//              brought it (a join); that core stages what it receives;
//   distribute (FIFO 2) core b of B sends each core c' of B one message with
//              the blocks for c' from every node A ≡ b (mod C), as soon as
//              their exchange messages arrived; its own blocks are a copy;
//   local      (FIFO 3) blocks between cores of one node go directly.
//
// About 3(C − 1) + (N − 1)/C messages per core instead of P − 1 (direct) or
// C − 1 + N − 1 (smp-all-cores): the plan for many nodes and short blocks.
//
// Staging layouts, from the exchange's tables (no size travels with data):
//   table 0 [d] from s: bytes s sends to d — put by s to the agent that
//           carries (s, d) and to the core of d's node that receives it;
//   table 1 [0] from c: bytes c stages on this agent (all its blocks for the
//           agent's nodes);
//   table 2 [0] from s: bytes s sends to this core's node (this core being
//           the one that receives s's node).
// An agent's collect stage holds source core c's region (table 1) at the
// sum of the earlier cores' regions, and in it the blocks by (node B,
// core c'); a receiving core's exchange stage holds source node A's region
// (the sum of table 2 over A's cores) after those of the earlier nodes, and
// in it the blocks by (c, c'). Each offset sums O(N + C) table entries.
//
// Correct for any placement of ranks (point-to-point only); fast when
// ranks_per_node matches the machine.
//
//===----------------------------------------------------------------------===//
#include "dialect/Coll/CollOps.h"
#include "lib/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERPLANNED
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

constexpr int64_t kDefaultDepth = 16;

/// sum over k in [lo, hi) of term(k), as a sched.sum.
Value sum(ScheduleBuilder &b, Value lo, Value hi, function_ref<Value(Value)> term) {
  OpBuilder &builder = b.getBuilder();
  auto op = builder.create<sched::SumOp>(b.getLoc(), builder.getIndexType(), lo, hi);
  Block &body = op.getBody().emplaceBlock();
  Value k = body.addArgument(builder.getIndexType(), b.getLoc());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&body);
  builder.create<sched::YieldOp>(b.getLoc(), term(k));
  return op.getResult();
}

void segment(ScheduleBuilder &b, bool dst, Buffer buffer, Value offset, Value length) {
  b.getBuilder().create<sched::SegmentOp>(b.getLoc(), dst, buffer, offset, length);
}

void put(ScheduleBuilder &b, int64_t table, Value index, Value value, Value peer) {
  b.getBuilder().create<sched::PutOp>(b.getLoc(), table, index, value, peer);
}

Value table(ScheduleBuilder &b, int64_t t, Value from, Value index) {
  return b.expr<sched::TableOp>(t, from, index);
}

void after(ScheduleBuilder &b, StringRef event, Value index) {
  b.getBuilder().create<sched::AfterOp>(
      b.getLoc(), FlatSymbolRefAttr::get(b.getBuilder().getContext(), event),
      ValueRange{index});
}

void lowerPlanned(coll::AlltoallvOp op) {
  OpBuilder builder(op);
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = options.getInt("fifo_depth").value_or(kDefaultDepth);
  MLIRContext *ctx = op.getContext();
  auto fifo = sched::FifoAttr::get(ctx, depth, 0);
  createPlanFor(builder, op, "alltoallv", "planned", {fifo, fifo, fifo, fifo},
                {"collected", "exchanged"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), r = b.rank();
  Value C = b.expr<sched::RanksPerNodeOp>();
  // nodes from the topology, so that the plan runs on exactly N·C ranks
  Value N = one;
  for (int64_t d = 0, e = op.getTopology().getShape().size(); d < e; ++d)
    N = b.mul(N, b.dim(d));
  Value A = b.floordiv(r, C), me = b.mod(r, C);
  auto rankOf = [&](Value node, Value core) { return b.add(b.mul(node, C), core); };
  /// 1 if node `m` is remote from node `from` and carried by agent core `a`.
  auto carried = [&](Value m, Value from, Value a) {
    return b.logicalAnd(b.ne(m, from), b.eq(b.mod(m, C), a));
  };

  // --- the plan: what every rank tells the ranks that carry its blocks ---
  {
    OpBuilder::InsertionGuard guard(builder);
    auto exchange = builder.create<sched::ExchangeOp>(b.getLoc());
    builder.setInsertionPointToStart(&exchange.getBody().emplaceBlock());
    sched::ForOp nodes = b.forLoop(zero, N);
    Value B = nodes.getInductionVar();
    OpBuilder::InsertionGuard inNode(builder);
    b.ifThen(b.ne(B, A));
    Value agent = rankOf(A, b.mod(B, C));
    Value receiver = rankOf(B, b.mod(A, C));
    Value toNode = sum(b, zero, C, [&](Value c2) {
      return b.count(CountArray::sendcount, rankOf(B, c2));
    });
    put(b, 2, zero, toNode, receiver);
    sched::ForOp cores = b.forLoop(zero, C);
    Value d = rankOf(B, cores.getInductionVar());
    Value n = b.count(CountArray::sendcount, d);
    put(b, 0, d, n, receiver);
    b.ifThen(b.ne(agent, r));
    put(b, 0, d, n, agent);
  }
  {
    // table 1: this rank's region at each agent of its node (but itself)
    OpBuilder::InsertionGuard guard(builder);
    auto exchange = builder.create<sched::ExchangeOp>(b.getLoc());
    builder.setInsertionPointToStart(&exchange.getBody().emplaceBlock());
    // (to itself too, as 0: a table read never misses, see sumCarried)
    sched::ForOp agents = b.forLoop(zero, C);
    Value a = agents.getInductionVar();
    Value region = sum(b, zero, N, [&](Value m) {
      Value bytes = sum(b, zero, C, [&](Value c2) {
        return b.count(CountArray::sendcount, rankOf(m, c2));
      });
      return b.select(b.logicalAnd(carried(m, A, a), b.ne(a, me)), bytes, zero);
    });
    put(b, 1, zero, region, rankOf(A, a));
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
    return b.add(sum(b, zero, b.min(hi, tOwn), nodeAt),
                 sum(b, b.add(tOwn, one), hi, nodeAt));
  };
  /// t of a node this rank carries
  auto tOf = [&](Value m) { return b.floordiv(m, C); };
  // collect stage (this rank as agent `me`): region of source core c
  auto collectRegion = [&](Value c) {
    return table(b, 1, rankOf(A, c), zero); // 0 from itself
  };
  Value collectBytes = sum(b, zero, C, collectRegion);
  /// Offset of c's block for rank (B, c') in the collect stage.
  auto collectAt = [&](Value c, Value B, Value cp) {
    Value src = rankOf(A, c);
    Value base = sum(b, zero, c, collectRegion);
    Value before = sumCarried(tOf(B), [&](Value m) {
      return sum(b, zero, C, [&](Value c2) { return table(b, 0, src, rankOf(m, c2)); });
    });
    Value within = sum(b, zero, cp, [&](Value c2) { return table(b, 0, src, rankOf(B, c2)); });
    return b.add(b.add(base, before), within);
  };
  // exchange stage (this rank receiving for nodes A2 ≡ me): region of A2
  auto exchangeRegion = [&](Value A2) {
    return sum(b, zero, C, [&](Value c2) { return table(b, 2, rankOf(A2, c2), zero); });
  };
  /// Offset of the block from (A2, c) for rank (A, cp) in the exchange stage.
  auto exchangeAt = [&](Value A2, Value c, Value cp) {
    Value base = sumCarried(tOf(A2), exchangeRegion);
    Value earlier = sum(b, zero, c, [&](Value c2) { return table(b, 2, rankOf(A2, c2), zero); });
    Value within = sum(b, zero, cp, [&](Value c3) {
      return table(b, 0, rankOf(A2, c), rankOf(A, c3));
    });
    return b.add(collectBytes, b.add(b.add(base, earlier), within));
  };
  builder.create<sched::ScratchOp>(op.getLoc(),
                                   b.add(collectBytes, sumCarried(T, exchangeRegion)));

  // --- collect (FIFO 0) ---
  sched::PhaseOp collect = b.phase("collect", 0);
  {
    sched::ForOp loop = b.forLoop(one, C);
    Value i = loop.getInductionVar();
    Value a = b.mod(b.add(me, i), C), from = b.mod(b.sub(me, i), C);
    {
      OpBuilder::InsertionGuard guard(builder);
      b.sendGathered(rankOf(A, a), zero);
      sched::ForOp nodes = b.forLoop(zero, N);
      Value B = nodes.getInductionVar();
      b.ifThen(carried(B, A, a));
      sched::ForOp cores = b.forLoop(zero, C);
      Value d = rankOf(B, cores.getInductionVar());
      segment(b, false, Buffer::sendbuf, b.count(CountArray::senddispl, d),
              b.count(CountArray::sendcount, d));
    }
    b.recvGathered(rankOf(A, from), zero, ScheduleBuilder::EventRef{"collected", {from}});
    sched::ForOp nodes = b.forLoop(zero, N);
    Value B = nodes.getInductionVar();
    b.ifThen(carried(B, A, me));
    sched::ForOp cores = b.forLoop(zero, C);
    Value cp = cores.getInductionVar();
    segment(b, false, Buffer::scratch, collectAt(from, B, cp),
            table(b, 0, rankOf(A, from), rankOf(B, cp)));
  }

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
      segment(b, false, Buffer::sendbuf, b.count(CountArray::senddispl, d),
              b.count(CountArray::sendcount, d));
    }
    b.ifThen(b.ne(c, me));
    after(b, "collected", c);
    segment(b, false, Buffer::scratch, collectAt(c, B, dests.getInductionVar()),
            table(b, 0, rankOf(A, c), d));
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
    segment(b, false, Buffer::scratch, exchangeAt(A2, c, cp),
            table(b, 0, rankOf(A2, c), rankOf(A, cp)));
  }

  // --- distribute (FIFO 2) ---
  builder.setInsertionPointAfter(exchange);
  sched::PhaseOp distribute = b.phase("distribute", 2);
  /// The blocks for core cp of this node that this rank received.
  auto staged = [&](Value cp, bool dst) {
    sched::ForOp nodes = b.forLoop(zero, N);
    Value A2 = nodes.getInductionVar();
    b.ifThen(carried(A2, A, me));
    sched::ForOp cores = b.forLoop(zero, C);
    Value c = cores.getInductionVar();
    if (!dst)
      after(b, "exchanged", A2);
    segment(b, false, Buffer::scratch, exchangeAt(A2, c, cp),
            table(b, 0, rankOf(A2, c), rankOf(A, cp)));
  };
  {
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp loop = b.forLoop(one, C);
    Value i = loop.getInductionVar();
    Value to = b.mod(b.add(me, i), C), from = b.mod(b.sub(me, i), C);
    {
      OpBuilder::InsertionGuard inner(builder);
      b.sendGathered(rankOf(A, to), zero);
      staged(to, false);
    }
    // from core `from`: the blocks of the nodes A2 ≡ from, in its order
    b.recvGathered(rankOf(A, from), zero);
    sched::ForOp nodes = b.forLoop(zero, N);
    Value A2 = nodes.getInductionVar();
    b.ifThen(carried(A2, A, from));
    sched::ForOp cores = b.forLoop(zero, C);
    Value src = rankOf(A2, cores.getInductionVar());
    segment(b, false, Buffer::recvbuf, b.count(CountArray::recvdispl, src),
            b.count(CountArray::recvcount, src));
  }
  {
    // this rank's own staged blocks: one copy gathered on both sides
    OpBuilder::InsertionGuard guard(builder);
    auto copy = builder.create<sched::CopyOp>(
        op.getLoc(), sched::BufferAttr(), Value(), sched::BufferAttr(), Value(), Value(),
        nullptr, ValueRange(), nullptr, ValueRange());
    builder.setInsertionPointToStart(&copy.getBody().emplaceBlock());
    {
      OpBuilder::InsertionGuard sources(builder);
      staged(me, false);
    }
    sched::ForOp nodes = b.forLoop(zero, N);
    Value A2 = nodes.getInductionVar();
    b.ifThen(carried(A2, A, me));
    sched::ForOp cores = b.forLoop(zero, C);
    Value src = rankOf(A2, cores.getInductionVar());
    segment(b, true, Buffer::recvbuf, b.count(CountArray::recvdispl, src),
            b.count(CountArray::recvcount, src));
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
  op.erase();
}

struct CollLowerPlannedPass : public collc::impl::CollLowerPlannedBase<CollLowerPlannedPass> {
  void runOnOperation() override {
    SmallVector<coll::AlltoallvOp> ops;
    getOperation().walk([&](coll::AlltoallvOp op) {
      if (op.getAlgorithm().getName() == "planned")
        ops.push_back(op);
    });
    for (coll::AlltoallvOp op : ops)
      lowerPlanned(op);
  }
};

} // namespace

//===- LowerPipelinedChain.cpp - the pipelined chain broadcast -------------===//
//
// The long-message broadcast of a one-link machine: the message cut into
// chunks of B bytes that travel down the chain 0 → 1 → ... → P − 1, each
// rank forwarding a chunk as soon as it arrived, so the last rank has the
// message after P − 2 + ⌈m/B⌉ chunk steps: m·β plus a chunk per hop, the
// bandwidth bound of a node with one link (van de Geijn's pipelined
// broadcasts; Träff et al.'s blocked ring, seed 001, is the same pipeline
// for allgatherv). B is computed at bind time from the message:
// max(256 B, √(α·m / (β·(P − 2)))), the balance of start-ups against the
// pipeline's fill.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERPIPELINEDCHAIN
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

LogicalResult lowerPipelinedChain(coll::BcastOp op, OpBuilder &builder) {
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth"); // decided by selection
  auto fifo = pipelineFifo(op.getContext(), depth);
  createPlanFor(builder, op, "bcast", "pipelined-chain", {fifo}, {"arrived"});
  ScheduleBuilder b(builder, op.getLoc());
  b.phase("chain", 0);
  Value r = b.rank(), p = b.size(), zero = b.c(0), one = b.c(1);
  Value n = b.count(CountArray::recvcount, r);
  coll::TopologyAttr topology = op.getTopology();
  int64_t alphaOverBeta = alphaOverBetaBytes(topology.getAlphaPs(), topology.getBetaPs());
  Value hops = b.max(one, b.sub(p, b.c(2)));
  Value chunk = b.max(b.c(kMinChunkBytes),
                      b.isqrt(b.floordiv(b.mul(b.c(alphaOverBeta), n), hops)));
  Value next = b.add(r, one);
  Value forwards = b.lt(next, p);
  using Ev = ScheduleBuilder::EventRef;
  sched::ForOp loop = b.forLoop(zero, b.ceildiv(n, chunk));
  Value c = loop.getInductionVar();
  Value at = b.mul(c, chunk);
  Value len = b.min(chunk, b.sub(n, at));
  OpBuilder::InsertPoint body = builder.saveInsertionPoint();
  b.ifThen(b.logicalAnd(b.eq(r, zero), forwards));
  b.send(Buffer::sendbuf, at, len, next, zero);
  builder.restoreInsertionPoint(body);
  b.ifThen(b.ne(r, zero));
  b.recv(Buffer::recvbuf, at, len, b.sub(r, one), zero, Ev{"arrived", {c}});
  builder.restoreInsertionPoint(body);
  b.ifThen(b.logicalAnd(b.ne(r, zero), forwards));
  b.send(Buffer::recvbuf, at, len, next, zero, Ev{"arrived", {c}});
  builder.setInsertionPointAfter(loop);
  b.ifThen(b.eq(r, zero)); // the root's own message, behind its sends
  b.copy(Buffer::sendbuf, zero, Buffer::recvbuf, zero, n);
  return success();
}

struct CollLowerPipelinedChainPass
    : public collc::impl::CollLowerPipelinedChainBase<CollLowerPipelinedChainPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePipelinedChainLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns),
                                  ArrayRef<StringRef>{"pipelined-chain"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populatePipelinedChainLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::BcastOp>(patterns, {"pipelined-chain"}, lowerPipelinedChain);
}

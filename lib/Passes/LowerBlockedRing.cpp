//===- LowerBlockedRing.cpp - pipelined blocked-ring allgatherv -----------===//
//
// Träff, Ripke, Siebert, Balaji, Thakur, Gropp (EuroPVM/MPI 2008). Rank r
// sends to r+1 and receives from r-1. Contribution o is cut into
// ceil(m_o / B) blocks (none if m_o = 0: empty blocks are neither sent nor
// received). Rank r sends the blocks of r, r-1, ..., r-(P-2) in that order
// and receives those of r-1, ..., r-(P-1): exactly its predecessor's send
// order, and never a block it already has. A forwarded block waits only for
// its own arrival (event @arrived[o, k]), so the ring is one linear pipeline
// over all blocks: O(total data) instead of O((P-1)·max m_i).
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERBLOCKEDRING
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

LogicalResult lowerBlockedRing(coll::AllgathervOp op, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
  // Blocks arrive from one neighbour in the order it sends them, so a
  // bounded receive window loses nothing.
  auto fifo = pipelineFifo(op.getContext(), depth);
  createPlanFor(builder, op, "allgatherv", "blocked-ring", {fifo},
                {"arrived"});
  ScheduleBuilder b(builder, op.getLoc());
  std::optional<int64_t> fixedBlock = options.getInt("block_bytes");
  Value blockBytes = fixedBlock ? b.c(*fixedBlock)
                                : pipelineBlockBytes(b, op.getTopology().getAlphaPs(),
                                                     op.getTopology().getBetaPs(),
                                                     [&] { return b.size(); });
  b.phase("ring", 0);
  Value r = b.rank(), p = b.size(), zero = b.c(0), one = b.c(1);
  Value next = b.mod(b.add(r, one), p);
  Value prev = b.mod(b.sub(r, one), p);
  b.copy(Buffer::sendbuf, zero, Buffer::recvbuf,
         b.count(CountArray::recvdispl, r), b.count(CountArray::recvcount, r));

  // j = how far back around the ring the block's owner is.
  sched::ForOp owners = b.forLoop(zero, p);
  Value j = owners.getInductionVar();
  Value owner = b.mod(b.sub(r, j), p);
  Value ownerBytes = b.count(CountArray::recvcount, owner);
  Value forwards = b.le(j, b.sub(p, b.c(2))); // r+1 does not own it
  sched::ForOp blocks = b.forLoop(zero, b.ceildiv(ownerBytes, blockBytes));
  Value k = blocks.getInductionVar();
  Value blockStart = b.mul(k, blockBytes);
  Value offset = b.add(b.count(CountArray::recvdispl, owner), blockStart);
  Value length = b.min(blockBytes, b.sub(ownerBytes, blockStart));
  ScheduleBuilder::EventRef arrived{"arrived", {owner, k}};

  OpBuilder::InsertPoint blockBody = builder.saveInsertionPoint();
  b.ifThen(b.ge(j, one));
  b.recv(Buffer::recvbuf, offset, length, prev, zero, arrived);
  builder.restoreInsertionPoint(blockBody);
  b.ifThen(b.logicalAnd(b.eq(j, zero), forwards));
  b.send(Buffer::sendbuf, blockStart, length, next, zero);
  builder.restoreInsertionPoint(blockBody);
  b.ifThen(b.logicalAnd(b.ge(j, one), forwards));
  b.send(Buffer::recvbuf, offset, length, next, zero, arrived);
  return success();
}

struct CollLowerBlockedRingPass
    : public collc::impl::CollLowerBlockedRingBase<CollLowerBlockedRingPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBlockedRingLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"blocked-ring"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateBlockedRingLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AllgathervOp>(patterns, {"blocked-ring"}, lowerBlockedRing);
}

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
#include "dialect/Coll/CollOps.h"
#include "lib/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERBLOCKEDRING
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;
using sched::CountStat;

namespace {

/// Blocks in flight per rank: the pipeline needs only a few.
constexpr int64_t kDefaultRingDepth = 4;
/// Receives in flight per send in flight: a receiver a little ahead of its
/// sender absorbs jitter in the chain (measured: 8 KiB in 8-byte blocks on 2
/// ranks ran 5x faster than with all 1024 receives posted).
constexpr int64_t kRecvWindowFactor = 2;
/// Largest FIFO depth the format holds (sched constraint F2).
constexpr int64_t kMaxDepth = 65535;
/// Smallest block the run-time formula may pick ("not too small").
constexpr int64_t kMinBlockBytes = 1024;

/// B at bind time: max(floor, sqrt(2·α·m / (β·(P + z − 2)))), m the total
/// bytes and z the number of empty contributions. 2·α/β is folded into one
/// constant (bytes) so the product cannot overflow for realistic m.
Value blockSizeFormula(ScheduleBuilder &b, coll::TopologyAttr topology) {
  int64_t beta = std::max<int64_t>(1, topology.getBetaPs());
  int64_t twoAlphaOverBeta =
      std::max<int64_t>(1, 2 * topology.getAlphaPs() / beta);
  Value rounds = b.max(b.c(1), b.sub(b.add(b.size(), b.stat(CountStat::zeros)),
                                     b.c(2)));
  Value best = b.isqrt(b.floordiv(
      b.mul(b.c(twoAlphaOverBeta), b.stat(CountStat::sum)), rounds));
  return b.max(b.c(kMinBlockBytes), best);
}

void lowerBlockedRing(coll::AllgathervOp op) {
  OpBuilder builder(op);
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = options.getInt("fifo_depth").value_or(kDefaultRingDepth);
  // Blocks arrive from one neighbour in the order it sends them, so a
  // bounded receive window loses nothing; it keeps the engine's per-poll work
  // at O(depth) where all ceil(m/B) receives would otherwise be posted.
  auto fifo = sched::FifoAttr::get(op.getContext(), depth,
                                   /*recv_depth=*/std::min<int64_t>(kMaxDepth, kRecvWindowFactor * depth));
  createPlanFor(builder, op, "allgatherv", "blocked-ring", {fifo},
                {"arrived"});
  ScheduleBuilder b(builder, op.getLoc());
  std::optional<int64_t> fixedBlock = options.getInt("block_bytes");
  Value blockBytes = fixedBlock ? b.c(*fixedBlock)
                                : blockSizeFormula(b, op.getTopology());
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
  op.erase();
}

struct CollLowerBlockedRingPass
    : public collc::impl::CollLowerBlockedRingBase<CollLowerBlockedRingPass> {
  void runOnOperation() override {
    SmallVector<coll::AllgathervOp> ops;
    getOperation().walk([&](coll::AllgathervOp op) {
      if (op.getAlgorithm().getName() == "blocked-ring")
        ops.push_back(op);
    });
    for (coll::AllgathervOp op : ops)
      lowerBlockedRing(op);
  }
};

} // namespace

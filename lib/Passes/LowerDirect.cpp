//===- LowerDirect.cpp - direct alltoall(v) and allgatherv ----------------===//
//
// At step k (1 <= k < P) rank r receives from (r - k) mod P and sends to
// (r + k) mod P, so every step is a permutation and no receiver is hit twice
// at once (the "shift" order). With order = random the steps run in a
// per-rank seeded permutation, which spreads link load on a torus like BG/L's
// AR strategy. With order = random the shifts k are visited in a random
// permutation shared by every rank (seeded by the op's seed alone): each step
// is still a permutation of the ranks, and a receiver knows which shift comes
// next. With order = dimension step k is a translation of the torus: every
// node sends along the same offset (the digits of k, x fastest), so a step
// loads all links of a dimension and direction alike (directStepPeers); the
// plan then needs the topology's exact size. Sends are throttled by the FIFO
// depth (`throttle: bisection` sets it from seed 000's eq. 2: the rate the
// bisection drains), and since every receiver can reproduce its senders'
// order, receives are windowed too (recv_depth = send_depth): with every
// rank's windows at least one step wide, the lowest pending step of all
// ranks always has its partner posted, so the exchange cannot deadlock, and
// the engine tests O(depth) requests per poll instead of O(P). The rank's
// own block is a local copy, queued after the sends so that it overlaps
// them.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERDIRECT
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


template <typename OpTy>
LogicalResult lowerDirect(OpTy op, StringRef collective, bool gather, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
  StringRef order = options.getString("order", "shift");
  bool random = order == "random";
  auto fifo = sched::FifoAttr::get(op.getContext(), depth, /*recv_depth=*/depth);
  createPlanFor(builder, op, collective, "direct", {fifo}, {});
  ScheduleBuilder b(builder, op.getLoc());
  b.phase("exchange", 0);
  Value r = b.rank(), p = b.size(), zero = b.c(0);

  // Allgatherv sends its one contribution, rcount(r) bytes from offset 0, to
  // everybody; alltoall(v) sends a different block to each peer.
  Value ownLength = b.count(CountArray::recvcount, r);

  Value seed =
      random ? b.c(options.getInt("seed").value_or(1)) : Value();
  sched::ForOp loop = b.forLoop(b.c(1), p, seed, /*shared=*/true);
  Value k = loop.getInductionVar();
  coll::TopologyAttr topology = op.getTopology();
  auto [dst, src] = directStepPeers(b, r, p, k, order, topology.getShape().size(),
                                    topology.getRanksPerNode());
  b.recv(Buffer::recvbuf, b.count(CountArray::recvdispl, src),
         b.count(CountArray::recvcount, src), src, zero);
  if (gather)
    b.send(Buffer::sendbuf, zero, ownLength, dst, zero);
  else
    b.send(Buffer::sendbuf, b.count(CountArray::senddispl, dst),
           b.count(CountArray::sendcount, dst), dst, zero);

  // The own block last: the copy overlaps the messages already in flight.
  builder.setInsertionPointAfter(loop);
  Value ownSendOffset = gather ? zero : b.count(CountArray::senddispl, r);
  b.copy(Buffer::sendbuf, ownSendOffset, Buffer::recvbuf,
         b.count(CountArray::recvdispl, r), ownLength);
  return success();
}

struct CollLowerDirectPass
    : public collc::impl::CollLowerDirectBase<CollLowerDirectPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDirectLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"direct"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateDirectLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallOp>(patterns, {"direct"}, [](coll::AlltoallOp op, OpBuilder &builder) {
    return lowerDirect(op, "alltoall", /*gather=*/false, builder);
  });
  addCollLowering<coll::AlltoallvOp>(patterns, {"direct"}, [](coll::AlltoallvOp op, OpBuilder &builder) {
    return lowerDirect(op, "alltoallv", /*gather=*/false, builder);
  });
  addCollLowering<coll::AllgathervOp>(patterns, {"direct"}, [](coll::AllgathervOp op, OpBuilder &builder) {
    return lowerDirect(op, "allgatherv", /*gather=*/true, builder);
  });
}

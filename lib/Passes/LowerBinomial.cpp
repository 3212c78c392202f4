//===- LowerBinomial.cpp - the binomial-tree broadcast ---------------------===//
//
// MPICH's short-message broadcast (Thakur, Rabenseifner, Gropp 2005) from
// rank 0, on any communicator size: rank r > 0 receives the message from
// r − low(r), low(r) its lowest set bit, and forwards it to r + 2^j for
// every 2^j < low(r) with r + 2^j < P, the largest subtree first; rank 0
// sends to every 2^j < P, largest first, straight from its send buffer, and
// copies its own message last. After ⌈log2 P⌉ steps every rank has it. The
// bits are those of the root: a broadcast combines nothing.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERBINOMIAL
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

/// Subtrees 2^j for j below 31: every int communicator.
constexpr int64_t kMaxLevels = 31;

LogicalResult lowerBinomial(coll::BcastOp op, OpBuilder &builder) {
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth"); // decided by selection
  auto fifo = sched::FifoAttr::get(op.getContext(), depth, /*recv_depth=*/depth);
  createPlanFor(builder, op, "bcast", "binomial", {fifo}, {"arrived"});
  ScheduleBuilder b(builder, op.getLoc());
  b.phase("bcast", 0);
  Value r = b.rank(), p = b.size(), zero = b.c(0);
  Value n = b.count(CountArray::recvcount, r);
  using Ev = ScheduleBuilder::EventRef;
  OpBuilder::InsertPoint top = builder.saveInsertionPoint();
  // low(r): the largest 2^j dividing r (2^30 for the root, whose subtrees
  // are bounded by P alone)
  Value low = b.maxOf(zero, b.c(kMaxLevels), [&](Value j) {
    Value m = b.pow2(j);
    return b.mul(b.eq(b.mod(r, m), zero), m);
  });
  // the children, largest subtree first: 2^j for j = 30 down to 0
  auto children = [&](llvm::function_ref<void(Value child)> send) {
    sched::ForOp loop = b.forLoop(zero, b.c(kMaxLevels));
    Value m = b.pow2(b.sub(b.c(kMaxLevels - 1), loop.getInductionVar()));
    Value child = b.add(r, m);
    b.ifThen(b.logicalAnd(b.lt(m, low), b.lt(child, p)));
    send(child);
  };

  b.ifThen(b.eq(r, zero));
  OpBuilder::InsertPoint root = builder.saveInsertionPoint();
  children([&](Value child) { b.send(Buffer::sendbuf, zero, n, child, zero); });
  builder.restoreInsertionPoint(root);
  b.copy(Buffer::sendbuf, zero, Buffer::recvbuf, zero, n); // queued after the sends

  builder.restoreInsertionPoint(top);
  b.ifThen(b.ne(r, zero));
  b.recv(Buffer::recvbuf, zero, n, b.sub(r, low), zero, Ev{"arrived", {zero}});
  children([&](Value child) {
    b.send(Buffer::recvbuf, zero, n, child, zero, Ev{"arrived", {zero}});
  });
  return success();
}

struct CollLowerBinomialPass
    : public collc::impl::CollLowerBinomialBase<CollLowerBinomialPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBinomialLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns),
                                  ArrayRef<StringRef>{"binomial"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateBinomialLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::BcastOp>(patterns, {"binomial"}, lowerBinomial);
}

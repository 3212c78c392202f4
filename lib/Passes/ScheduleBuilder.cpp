//===- ScheduleBuilder.cpp - concise construction of sched IR -------------===//
#include "lib/Passes/ScheduleBuilder.h"

#include <algorithm>

using namespace mlir;
using namespace collc;

sched::FifoAttr collc::pipelineFifo(MLIRContext *ctx, int64_t depth) {
  constexpr int64_t kRecvWindowFactor = 2;
  constexpr int64_t kMaxDepth = 65535; // the largest the format holds (F2)
  return sched::FifoAttr::get(ctx, depth, std::min<int64_t>(kMaxDepth, kRecvWindowFactor * depth));
}

Value collc::pipelineBlockBytes(ScheduleBuilder &b, int64_t alphaPs, int64_t betaPs,
                                function_ref<Value()> depth) {
  constexpr int64_t kMinBlockBytes = 1024; // "not too small"
  int64_t twoAlphaOverBeta = std::max<int64_t>(1, 2 * alphaPs / std::max<int64_t>(1, betaPs));
  Value rounds = b.max(b.c(1), b.sub(b.add(depth(), b.stat(sched::CountStat::zeros)), b.c(2)));
  Value best = b.isqrt(
      b.floordiv(b.mul(b.c(twoAlphaOverBeta), b.stat(sched::CountStat::sum)), rounds));
  return b.max(b.c(kMinBlockBytes), best);
}

sched::PlanOp collc::createPlanFor(OpBuilder &builder, Operation *collOp,
                                   StringRef collective, StringRef algorithm,
                                   ArrayRef<sched::FifoAttr> fifos,
                                   ArrayRef<StringRef> events) {
  auto symName = collOp->getAttrOfType<StringAttr>("sym_name");
  auto topology = collOp->getAttrOfType<coll::TopologyAttr>("topology");
  builder.setInsertionPoint(collOp);
  SmallVector<Attribute> fifoAttrs(fifos.begin(), fifos.end());
  // The message sizes the plan was compiled for travel with it, so that a
  // library holding several plans can match a call (the PMPI layer).
  DenseI64ArrayAttr blockBytes;
  auto minBytes = collOp->getAttrOfType<IntegerAttr>("min_bytes");
  auto maxBytes = collOp->getAttrOfType<IntegerAttr>("max_bytes");
  if (minBytes && maxBytes)
    blockBytes = builder.getDenseI64ArrayAttr({minBytes.getInt(), maxBytes.getInt()});
  auto plan = builder.create<sched::PlanOp>(
      collOp->getLoc(), symName, builder.getStringAttr(collective),
      builder.getStringAttr(algorithm), topology,
      builder.getArrayAttr(fifoAttrs), builder.getStrArrayAttr(events),
      UnitAttr(), blockBytes);
  builder.setInsertionPointToStart(&plan.getBody().emplaceBlock());
  return plan;
}

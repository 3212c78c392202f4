//===- ScheduleBuilder.cpp - concise construction of sched IR -------------===//
#include "lib/Passes/ScheduleBuilder.h"

#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/Passes/Passes.h"

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

StepPeers collc::directStepPeers(ScheduleBuilder &b, Value r, Value p, Value k,
                                 StringRef order, int64_t ndims, int64_t ranksPerNode) {
  if (order != "dimension")
    return {b.mod(b.add(r, k), p), b.mod(b.sub(r, k), p)};
  // One rank a node (the torus schedules): no local arithmetic in the plan.
  bool single = ranksPerNode == 1;
  Value rpn = b.c(ranksPerNode);
  Value nodeStep = single ? k : b.floordiv(k, rpn); // its digits: the offset by dimension
  SmallVector<Value, 3> to, from;
  for (int64_t d = 0; d < ndims; ++d) {
    Value n = b.dim(d);
    Value offset = b.mod(nodeStep, n);
    nodeStep = b.floordiv(nodeStep, n);
    Value c = b.coord(r, d);
    to.push_back(b.mod(b.add(c, offset), n));
    from.push_back(b.mod(b.sub(c, offset), n)); // floor modulo: in [0, n)
  }
  if (single)
    return {b.rankAt(to, b.c(0)), b.rankAt(from, b.c(0))};
  Value local = b.mod(r, rpn), localStep = b.mod(k, rpn);
  return {b.rankAt(to, b.mod(b.add(local, localStep), rpn)),
          b.rankAt(from, b.mod(b.sub(local, localStep), rpn))};
}

bool collc::hasDecidedParameters(Operation *collOp) {
  auto algorithm = collOp->getAttrOfType<coll::AlgorithmAttr>("algorithm");
  DictionaryAttr options = algorithm.getOptions();
  for (const algorithms::OptionRow &row : algorithms::kOptions)
    if (row.decided && row.algorithm == algorithm.getName() &&
        !(options && options.get(row.option))) {
      collOp->emitError("the ")
          << algorithm.getName() << " lowering reads its parameters from the op, and "
          << row.option << " is not decided: run coll-select-algorithm first";
      return false;
    }
  return true;
}

LogicalResult collc::requireOneRankPerNode(Operation *collOp, StringRef algorithm) {
  int64_t ranksPerNode =
      collOp->getAttrOfType<coll::TopologyAttr>("topology").getRanksPerNode();
  if (ranksPerNode == 1)
    return success();
  return collOp->emitError("the ")
         << algorithm << " " << collOp->getName().stripDialect()
         << " schedules one rank per torus node; this topology has " << ranksPerNode
         << " ranks per node (use algorithm: direct)";
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

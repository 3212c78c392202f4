//===- ScheduleBuilder.cpp - concise construction of sched IR -------------===//
#include "lib/Passes/ScheduleBuilder.h"

using namespace mlir;
using namespace collc;

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

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
  auto plan = builder.create<sched::PlanOp>(
      collOp->getLoc(), symName, builder.getStringAttr(collective),
      builder.getStringAttr(algorithm), topology,
      builder.getArrayAttr(fifoAttrs), builder.getStrArrayAttr(events));
  builder.setInsertionPointToStart(&plan.getBody().emplaceBlock());
  return plan;
}

//===- SchedDialect.cpp - sched dialect and attributes --------------------===//
#include "collc/Dialect/Sched/SchedDialect.h"
#include "collc/Dialect/Coll/CollDialect.h"
#include "collc/Dialect/Sched/SchedOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::sched;

#include "collc/Dialect/Sched/SchedDialect.cpp.inc"
#include "collc/Dialect/Sched/SchedEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Sched/SchedAttrs.cpp.inc"

void SchedDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "collc/Dialect/Sched/SchedAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "collc/Dialect/Sched/SchedOps.cpp.inc"
      >();
}

Operation *SchedDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto intValue = dyn_cast<IntegerAttr>(value);
  if (!intValue || !type.isIndex())
    return nullptr;
  return builder.create<ConstOp>(loc, type, intValue.getInt());
}

LogicalResult FifoAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t sendDepth, int64_t recvDepth) {
  if (sendDepth < 1 || sendDepth > 65535)
    return emitError() << "(F1) send_depth is " << sendDepth
                       << "; it must be in [1, 65535]";
  if (recvDepth < 0 || recvDepth > 65535)
    return emitError() << "(F2) recv_depth is " << recvDepth
                       << "; it must be in [0, 65535] (0 = unbounded)";
  return success();
}

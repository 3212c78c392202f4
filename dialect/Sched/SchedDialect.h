//===- SchedDialect.h - sched dialect, enums and attributes -----*- C++ -*-===//
#ifndef COLLC_DIALECT_SCHED_SCHEDDIALECT_H
#define COLLC_DIALECT_SCHED_SCHEDDIALECT_H

#include "dialect/Coll/CollDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialect/Sched/SchedDialect.h.inc"
#include "dialect/Sched/SchedEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/Sched/SchedAttrs.h.inc"

#endif // COLLC_DIALECT_SCHED_SCHEDDIALECT_H

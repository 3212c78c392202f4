//===- SchedDialect.h - sched dialect, enums and attributes -----*- C++ -*-===//
#ifndef COLLC_DIALECT_SCHED_SCHEDDIALECT_H
#define COLLC_DIALECT_SCHED_SCHEDDIALECT_H

#include "collc/Dialect/Coll/CollDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "collc/Dialect/Sched/SchedDialect.h.inc"
#include "collc/Dialect/Sched/SchedEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Sched/SchedAttrs.h.inc"

#endif // COLLC_DIALECT_SCHED_SCHEDDIALECT_H

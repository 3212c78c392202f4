//===- SchedOps.h - sched operations ----------------------------*- C++ -*-===//
#ifndef COLLC_DIALECT_SCHED_SCHEDOPS_H
#define COLLC_DIALECT_SCHED_SCHEDOPS_H

#include "collc/Dialect/Coll/CollDialect.h"
#include "collc/Dialect/Sched/SchedDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "collc/Dialect/Sched/SchedOps.h.inc"

#endif // COLLC_DIALECT_SCHED_SCHEDOPS_H

//===- CollOps.h - coll operations ------------------------------*- C++ -*-===//
#ifndef COLLC_DIALECT_COLL_COLLOPS_H
#define COLLC_DIALECT_COLL_COLLOPS_H

#include "collc/Dialect/Coll/CollDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "collc/Dialect/Coll/CollOps.h.inc"

#endif // COLLC_DIALECT_COLL_COLLOPS_H

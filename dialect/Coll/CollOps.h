//===- CollOps.h - coll operations ------------------------------*- C++ -*-===//
#ifndef COLLC_DIALECT_COLL_COLLOPS_H
#define COLLC_DIALECT_COLL_COLLOPS_H

#include "dialect/Coll/CollDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "dialect/Coll/CollOps.h.inc"

#endif // COLLC_DIALECT_COLL_COLLOPS_H

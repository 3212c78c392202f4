//===- CollDialect.h - coll dialect and attributes --------------*- C++ -*-===//
#ifndef COLLC_DIALECT_COLL_COLLDIALECT_H
#define COLLC_DIALECT_COLL_COLLDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "collc/Dialect/Coll/CollDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Coll/CollAttrs.h.inc"

#endif // COLLC_DIALECT_COLL_COLLDIALECT_H

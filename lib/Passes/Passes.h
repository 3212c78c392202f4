//===- Passes.h - collc pass declarations -----------------------*- C++ -*-===//
#ifndef COLLC_PASSES_PASSES_H
#define COLLC_PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace collc {

#define GEN_PASS_DECL
#include "lib/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Passes/Passes.h.inc"

} // namespace collc

#endif // COLLC_PASSES_PASSES_H

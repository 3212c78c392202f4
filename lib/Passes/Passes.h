//===- Passes.h - collc pass declarations -----------------------*- C++ -*-===//
#ifndef COLLC_PASSES_PASSES_H
#define COLLC_PASSES_PASSES_H

#include "dialect/Coll/CollOps.h"
#include "lib/Spec/Spec.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace collc {

/// The machine the cost model reasons about, rebuilt from a coll op's
/// topology attribute (selection and `collc --report` alike).
TopologySpec topologySpecOf(coll::TopologyAttr topology);

#define GEN_PASS_DECL
#include "lib/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lib/Passes/Passes.h.inc"

} // namespace collc

#endif // COLLC_PASSES_PASSES_H

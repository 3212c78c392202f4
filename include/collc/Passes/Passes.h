//===- Passes.h - collc pass declarations -----------------------*- C++ -*-===//
#ifndef COLLC_PASSES_PASSES_H
#define COLLC_PASSES_PASSES_H

#include "collc/Dialect/Coll/CollOps.h"
#include "collc/Dialect/Sched/SchedOps.h"
#include "lib/Spec/Spec.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "collc/plan.h"

namespace collc {

/// The machine the cost model reasons about, rebuilt from a coll op's
/// topology attribute (selection and `collc --report` alike).
TopologySpec topologySpecOf(coll::TopologyAttr topology);

/// What collc runs on a coll module: coll-select-algorithm, coll-lower,
/// canonicalize and CSE, then sched-verify up to `verifyRanks` ranks (0:
/// none). collc-opt runs it as --collc-pipeline.
void buildCollcPipeline(mlir::OpPassManager &pm, int64_t verifyRanks);
void registerCollcPipeline();

/// What sched-verify checks, on `encoded`, the bytes of `planOp`: the
/// runtime's simulator runs it for every communicator size up to
/// `maxRanks` (a topology plan: its shape and the smaller ones of its
/// family) with every count distribution. Errors are emitted on `planOp`.
/// collc verifies the bytes it writes with it, encoding each plan once.
mlir::LogicalResult verifyEncodedPlan(sched::PlanOp planOp, const collrt_plan_t *encoded,
                                      int64_t maxRanks);

#define GEN_PASS_DECL
#include "collc/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "collc/Passes/Passes.h.inc"

} // namespace collc

#endif // COLLC_PASSES_PASSES_H

//===- PlanEmitter.h - sched.plan -> plan bytes -----------------*- C++ -*-===//
//
// Encodes a sched.plan into the binary plan format of
// runtime/include/collc/plan_format.h. The bytes are produced and validated
// by the runtime's own encoder (collrt_plan_encode), so the compiler never
// writes a plan the runtime would reject.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PLAN_PLANEMITTER_H
#define COLLC_PLAN_PLANEMITTER_H

#include "collc/Dialect/Sched/SchedOps.h"
#include "mlir/Support/LogicalResult.h"

#include "collc/plan.h"

#include <memory>

namespace collc {

struct PlanDeleter {
  void operator()(collrt_plan_t *plan) const { collrt_plan_free(plan); }
};
using PlanPtr = std::unique_ptr<collrt_plan_t, PlanDeleter>;

/// Encodes `plan`; errors are emitted on the offending op.
mlir::FailureOr<PlanPtr> emitPlan(sched::PlanOp plan);

} // namespace collc

#endif // COLLC_PLAN_PLANEMITTER_H

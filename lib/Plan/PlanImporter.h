//===- PlanImporter.h - plan bytes -> sched.plan ----------------*- C++ -*-===//
//
// Turns a decoded, validated plan back into readable sched IR
// (`collc x.collplan --emit=sched`).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PLAN_PLANIMPORTER_H
#define COLLC_PLAN_PLANIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "collc/plan.h"

namespace collc {

/// Builds a module holding one sched.plan equivalent to `plan`.
mlir::OwningOpRef<mlir::ModuleOp> importPlan(const collrt_plan_t *plan,
                                             mlir::MLIRContext *context,
                                             mlir::Location loc);

} // namespace collc

#endif // COLLC_PLAN_PLANIMPORTER_H

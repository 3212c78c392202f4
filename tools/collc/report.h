//===- report.h - collc --report: a plan's traffic on its torus -*- C++ -*-===//
#ifndef COLLC_TOOLS_REPORT_H
#define COLLC_TOOLS_REPORT_H

#include "collc/plan.h"
#include "collc/Dialect/Sched/SchedOps.h"

#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Routes every message of `plan` (compiled from `op`) over its topology
/// (collrt_link_load) and prints the hottest link, messages and scratch per
/// rank, the time they imply and the bisection bound, for the block size the
/// plan was compiled for (its largest; 4096 B if it records none).
void printPlanReport(sched::PlanOp op, const collrt_plan_t *plan, llvm::raw_ostream &os);

} // namespace collc

#endif

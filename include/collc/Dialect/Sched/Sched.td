//===- Sched.td - the sched dialect, umbrella ----------------*- tablegen -*-===//
//
// The schedule dialect: an SPMD program over a symbolic rank. It maps one to
// one onto the plan format (runtime/include/collc/plan_format.h): phases bound
// to FIFOs, peer loops, integer expressions over the rank, the topology and
// run-time counts, transfers between buffer regions, and events that make a
// transfer wait for another one (forward a block once it has arrived).
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_SCHED_TD
#define COLLC_SCHED_TD

include "collc/Dialect/Sched/SchedDialect.td"
include "collc/Dialect/Sched/SchedAttrs.td"
include "collc/Dialect/Sched/SchedOps.td"

#endif // COLLC_SCHED_TD

/* Buffer hazards of one rank's steps (the "Hazards" rule of plan_format.h):
 * overlapping accesses, one of them a write, must be ordered by a chain of
 * waits. The simulator runs it on every rank, so the verifier rejects races
 * the MPI engine could lose (it may start a COPY and a SEND in either order). */
#ifndef COLLRT_HAZARD_H
#define COLLRT_HAZARD_H

#include "collc/plan.h"

/* COLLRT_OK, or COLLRT_ERR_BOUNDS with diag naming both statements, the
 * buffer and the overlapping bytes. */
collrt_status_t collrt_check_hazards(const collrt_steps_t *steps, int rank,
                                     collrt_diag_t *diag);

#endif

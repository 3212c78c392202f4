/* Buffer hazards of one rank's steps (the "Hazards" rule of plan_format.h):
 * overlapping accesses, one of them a write, must be ordered by a chain of
 * waits. The simulator runs it on every rank, so the verifier rejects races
 * the MPI engine could lose (it may start a COPY and a SEND in either order).
 * A REDUCE reads its source and reads and writes its destination; its
 * destination is entered as a write, which already conflicts with every
 * other access, so two REDUCEs into the same bytes must be ordered too (the
 * order of combination is part of the result). */
#ifndef COLLRT_HAZARD_H
#define COLLRT_HAZARD_H

#include "collc/plan.h"

/* COLLRT_OK, or COLLRT_ERR_BOUNDS with diag naming both statements, the
 * buffer and the overlapping bytes. */
collrt_status_t collrt_check_hazards(const collrt_steps_t *steps, int rank,
                                     collrt_diag_t *diag);

/* The same rule for the node arena (plan_format.h, "Node arena"): every
 * access to ARENA bytes by the n ranks of one node (steps[k] is rank
 * ranks[k]'s), ordered by chains of waits and by NOTIFY -> AWAIT edges (an
 * AWAIT on counter c follows every NOTIFY of c on the node). COLLRT_OK, or
 * COLLRT_ERR_BOUNDS naming both ranks and statements and the bytes. */
collrt_status_t collrt_check_arena_hazards(const collrt_steps_t *const *steps, const int *ranks,
                                           int n, collrt_diag_t *diag);

#endif

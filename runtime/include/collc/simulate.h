/* Whole-communicator simulation of a plan without MPI: every rank expanded
 * with collrt_expand, transfers issued under the FIFO rules of plan_format.h
 * with rendezvous semantics, and every byte tracked to its origin. The
 * compiler's verifier and the tests use it; it is the same issue logic the
 * MPI engine runs (fifo_queue.h). */
#ifndef COLLC_SIMULATE_H
#define COLLC_SIMULATE_H

#include <stdint.h>

#include "collc/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct collrt_sim_input {
  int size;
  /* ALLTOALL/ALLTOALLV: size*size bytes, counts[i*size + j] = bytes rank i
   * sends to rank j (ALLTOALL: all equal). ALLGATHERV: size entries, the bytes
   * each rank contributes. */
  const int64_t *counts;
} collrt_sim_input_t;

typedef struct collrt_sim_result {
  uint64_t messages;     /* point-to-point messages over all ranks */
  uint64_t bytes;        /* bytes in those messages */
  uint64_t copy_bytes;   /* bytes moved by local copies */
  uint64_t max_steps;    /* most steps on any rank */
  double model_time_us;  /* makespan under the plan's alpha/beta/gamma */
} collrt_sim_result_t;

/* Returns COLLRT_OK only if the simulation completes and every receive
 * buffer holds exactly what the MPI collective would put there. Otherwise:
 * COLLRT_ERR_DEADLOCK (diag names the stuck ranks and their next steps),
 * COLLRT_ERR_COUNTS (a send and its matching receive differ in length, or a
 * message is never received), COLLRT_ERR_BOUNDS (a byte lands in the wrong
 * place: diag names rank, offset, what arrived and what was expected; or a
 * race, see the Hazards rule of plan_format.h: diag names both statements),
 * or an expansion error. */
collrt_status_t collrt_simulate(const collrt_plan_t *plan,
                                const collrt_sim_input_t *input,
                                collrt_sim_result_t *out_result,
                                collrt_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif /* COLLC_SIMULATE_H */

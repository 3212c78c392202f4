/* collrt: executes collc plans inside MPI applications.
 *
 * Persistent usage, like MPI-4 persistent collectives: load a plan once, bind
 * it to a communicator and buffers (and counts) once, then start/wait as often
 * as needed. Binding is collective over the communicator.
 *
 *   collrt_plan_t *plan;  collrt_coll_t *a2a;  collrt_diag_t diag;
 *   collrt_plan_load_file("a2a.collplan", &plan, &diag);
 *   collrt_bind_alltoall(plan, comm, sbuf, rbuf, n, MPI_INT, 0, &a2a, &diag);
 *   for (...) { collrt_start(a2a, &diag); collrt_wait(a2a, &diag); }
 *   collrt_coll_free(a2a);  collrt_plan_free(plan);
 */
#ifndef COLLC_COLLRT_H
#define COLLC_COLLRT_H

#include <mpi.h>

#include "collc/plan.h"
#include "collc/wait_policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct collrt_coll collrt_coll_t; /* a plan bound to comm + buffers */

/* Bind flags. */
enum {
  /* Verify collectively that counts agree between ranks (sender's count for
   * a pair equals the receiver's); costs one extra collective at bind. */
  COLLRT_BIND_CHECK_COUNTS = 1u << 0,
  /* Record a timestamp per step; write with collrt_trace_write. */
  COLLRT_BIND_TRACE = 1u << 1,
  /* The counts may change between runs (collrt_coll_recount_*): every
   * message goes over MPI point-to-point (no node shared memory, whose
   * descriptors the node's ranks would exchange again), and the plan must
   * have no bind-time EXCHANGE and no ARENA. */
  COLLRT_BIND_LOCAL_COUNTS = 1u << 2,
};

/* Datatypes must be contiguous (extent == size). Counts and displacements are
 * in elements of that type, as in MPI. A bind error is reported on every rank
 * when it comes from a collective check, so no rank is left waiting. */
collrt_status_t collrt_bind_alltoall(const collrt_plan_t *plan, MPI_Comm comm,
                                     const void *sendbuf, void *recvbuf,
                                     int count, MPI_Datatype type,
                                     unsigned flags, collrt_coll_t **out_coll,
                                     collrt_diag_t *diag);
collrt_status_t collrt_bind_alltoallv(
    const collrt_plan_t *plan, MPI_Comm comm, const void *sendbuf,
    const int sendcounts[], const int sdispls[], void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype type,
    unsigned flags, collrt_coll_t **out_coll, collrt_diag_t *diag);
/* allreduce: `count` elements of `type` in, the same out. The plan's REDUCE
 * steps name the operation and element type they combine with (plan format
 * 5); `type` must be that element type's MPI type (collrt_reduce_type_of_mpi:
 * MPI_INT for int, MPI_DOUBLE_INT for double_int), else COLLRT_ERR_ARG.
 * sendbuf may be MPI_IN_PLACE: every start then copies the receive buffer
 * to a send buffer the bind owns (the plan may read its send side after
 * writing the receive side), and rebind takes MPI_IN_PLACE again. */
collrt_status_t collrt_bind_allreduce(const collrt_plan_t *plan, MPI_Comm comm,
                                      const void *sendbuf, void *recvbuf,
                                      int count, MPI_Datatype type,
                                      unsigned flags, collrt_coll_t **out_coll,
                                      collrt_diag_t *diag);
/* bcast: MPI_Bcast's arguments; `buffer` is the root's data and every
 * other rank's result. Plans broadcast from rank 0 (what their verifier
 * proves); another root runs the plan relabeled, rank r taking the part of
 * rank (r − root) mod P, except a plan with a node arena, whose ranks are
 * tied to their nodes (COLLRT_ERR_ARG, as a root outside the
 * communicator). Rebind with the buffer as both sides
 * (collrt_coll_rebind(coll, buffer, buffer, diag)). */
/* Whether a bcast plan can broadcast from `root`: 0 always; another root
 * runs the plan relabeled, which a plan with a node arena cannot (its
 * ranks share their nodes' counters). The rule collrt_bind_bcast applies,
 * and libcollc_pmpi asks before it binds, to fall back with the reason. */
int collrt_bcast_takes_root(const collrt_plan_t *plan, int root);
collrt_status_t collrt_bind_bcast(const collrt_plan_t *plan, MPI_Comm comm, void *buffer,
                                  int count, MPI_Datatype type, int root,
                                  unsigned flags, collrt_coll_t **out_coll,
                                  collrt_diag_t *diag);

/* MPI's predefined handles for the REDUCE table of plan_format.h
 * (reduce_mpi.c, expanded from the table): the operation or element type
 * an MPI_Op or MPI_Datatype is, or 0 if none (a user-defined operation, a
 * derived datatype, a type with no kernel such as MPI_CHAR or MPI_BYTE);
 * and back (MPI_OP_NULL, MPI_DATATYPE_NULL if unknown). */
unsigned collrt_reduce_op_of_mpi(MPI_Op op);
unsigned collrt_reduce_type_of_mpi(MPI_Datatype type);
MPI_Op collrt_reduce_op_to_mpi(unsigned op);
MPI_Datatype collrt_reduce_type_to_mpi(unsigned type);
/* The (operation, element type) of a plan's REDUCE statements: 1 if they
 * all name one pair (set in *op, *type), 0 if it has none, -1 if they name
 * several (no single MPI datatype describes its buffers). */
int collrt_plan_reduce_kind(const collrt_plan_t *plan, unsigned *op, unsigned *type);
collrt_status_t collrt_bind_allgatherv(
    const collrt_plan_t *plan, MPI_Comm comm, const void *sendbuf,
    int sendcount, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype type, unsigned flags, collrt_coll_t **out_coll,
    collrt_diag_t *diag);

/* start on a running collective, and test/wait on one that is not running
 * (never started, or already completed), return COLLRT_ERR_STATE.
 *
 * One progress engine serves the whole process: start posts the first
 * messages, and every call of start, test, wait and collrt_progress
 * advances every started collective, so collectives may be completed in
 * any order, and in different orders on different ranks, as MPI allows. A
 * collective that failed while another call advanced it reports its error
 * from its own test or wait. COLLRT_TIMEOUT=S: a wait that sees no progress
 * for S seconds prints the steps it waits on and returns
 * COLLRT_ERR_TIMEOUT. */
collrt_status_t collrt_start(collrt_coll_t *coll, collrt_diag_t *diag);
/* Makes progress; *out_done = 1 once the collective finished on this rank. */
collrt_status_t collrt_test(collrt_coll_t *coll, int *out_done,
                            collrt_diag_t *diag);
collrt_status_t collrt_wait(collrt_coll_t *coll, collrt_diag_t *diag);
/* Advances every started collective without waiting (for applications that
 * compute between start and wait). Errors stay with their collective. */
collrt_status_t collrt_progress(collrt_diag_t *diag);
/* Collectives started and not yet finished in this process. */
int collrt_running_count(void);
/* Chrome trace-event JSON of the last run (needs COLLRT_BIND_TRACE).
 * Collective over the bound communicator: rank 0 writes one file holding
 * every rank (pid = rank, tid = FIFO). */
collrt_status_t collrt_trace_write(const collrt_coll_t *coll, const char *path,
                                   collrt_diag_t *diag);
/* The idle policy collrt_wait follows, chosen at bind (see wait_policy.h). */
collrt_wait_policy_t collrt_coll_wait_policy(const collrt_coll_t *coll);
void collrt_coll_free(collrt_coll_t *coll);

/* How a bound collective moves its messages (chosen at bind, collectively
 * per node). Messages between ranks that MPI_Comm_split_type puts on one
 * node, of at least shm_min_bytes, go through node shared memory: the
 * receiver copies straight out of the sender's buffer, once (in one process,
 * as under SimGrid SMPI: memcpy; across processes: process_vm_readv, Linux's
 * cross-memory attach). Everything else goes over MPI point-to-point.
 * COLLRT_SHM=0 turns shared memory off, COLLRT_SHM_MIN=BYTES sets the
 * threshold, COLLRT_VERBOSE=1 prints the choice once per bind (rank 0). */
typedef enum collrt_shm_mode {
  COLLRT_SHM_OFF = 0,          /* every message over MPI (why says why) */
  COLLRT_SHM_SAME_PROCESS = 1, /* the node's ranks share an address space */
  COLLRT_SHM_CMA = 2,          /* separate processes: process_vm_readv/writev */
} collrt_shm_mode_t;

typedef struct collrt_transport_info {
  int node_ranks;        /* ranks on this rank's node (after COLLRT_NODE_SIZE) */
  collrt_shm_mode_t shm; /* how on-node messages move */
  int64_t shm_min_bytes; /* shorter ones go eager through the window (or over MPI) */
  size_t shm_steps;      /* this rank's sends and receives over shared memory */
  size_t shm_eager_steps; /* those of them below shm_min_bytes: through the sender's window */
  size_t steps;          /* all its sends and receives */
  const char *why;       /* shm == COLLRT_SHM_OFF: the reason */
  /* Chunks of on-node messages this rank copied since bind (both ends of a
   * message copy its chunks, whichever is idle: shm.c): as the receiver,
   * and as the sender, into the receiver's buffer. */
  uint64_t shm_chunks_pulled, shm_chunks_pushed;
  /* SMPI timing runs with folded scratch only (COLLRT_SMPI_SHARED_SCRATCH):
   * this rank's gathered sends and receives that move as that many
   * contiguous bytes of the folded scratch, with no datatype. 0 elsewhere. */
  size_t folded_steps;
} collrt_transport_info_t;

collrt_status_t collrt_coll_transport(const collrt_coll_t *coll, collrt_transport_info_t *out,
                                      collrt_diag_t *diag);

/* New counts, displacements and buffers for a collective bound with
 * COLLRT_BIND_LOCAL_COUNTS: local, no communication (the plan's steps are
 * expanded again for this rank). Every rank must recount before the next
 * start, with counts that agree between senders and receivers as MPI
 * requires; a receive that finds fewer bytes than it expects fails the run
 * with the peer named. Not while a run is in progress. On error the
 * collective stays bound to the old counts. */
collrt_status_t collrt_coll_recount_alltoallv(collrt_coll_t *coll, const void *sendbuf,
                                              const int sendcounts[], const int sdispls[],
                                              void *recvbuf, const int recvcounts[],
                                              const int rdispls[], MPI_Datatype type,
                                              collrt_diag_t *diag);
collrt_status_t collrt_coll_recount_allgatherv(collrt_coll_t *coll, const void *sendbuf,
                                               int sendcount, void *recvbuf,
                                               const int recvcounts[], const int displs[],
                                               MPI_Datatype type, collrt_diag_t *diag);

/* Points a bound collective at new buffers: local, no communication. The
 * buffers must have the layout (counts, displacements, type) of the bind;
 * only their addresses change. A collective bound with MPI_IN_PLACE takes
 * MPI_IN_PLACE as sendbuf again (no other). Not while a run is in progress
 * (COLLRT_ERR_STATE). On error the collective stays bound to the old
 * buffers. */
collrt_status_t collrt_coll_rebind(collrt_coll_t *coll, const void *sendbuf,
                                   void *recvbuf, collrt_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif /* COLLC_COLLRT_H */

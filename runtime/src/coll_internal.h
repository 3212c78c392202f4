/* The bound collective shared by bind (construction), engine (execution) and
 * trace (output). */
#ifndef COLLRT_COLL_INTERNAL_H
#define COLLRT_COLL_INTERNAL_H

#include <stdatomic.h>

#include "collc/collrt.h"
#include "comm_ctx.h"
#include "copy.h"
#include "fifo_queue.h"

typedef struct collrt_shm_desc collrt_shm_desc_t; /* shm.c */

/* The ranks that share this rank's memory, as MPI reports them
 * (node_map.c), and the shared-memory transport over them (shm.c). */
typedef struct collrt_node {
  MPI_Comm comm;    /* this node's ranks (split further by COLLRT_NODE_SIZE) */
  int size;         /* ranks on the node */
  int *members;     /* comm rank of each local index, ascending */
  int borrowed;     /* comm and members are the communicator's (comm_ctx.c) */
  int unmapped;     /* the bind made no node map: size 1, no comm (bind.c) */
  collrt_comm_ctx_t *ctx;   /* whose pools the window is sliced from */
  collrt_shm_slice_t slice; /* the window: a slice of the state's pools */
  int hw_size;      /* ranks on the physical node (the idle policy's input) */
  /* the transport: */
  int mode;         /* collrt_shm_mode_t */
  int64_t min_bytes; /* messages this long or longer go through it in one copy */
  int eager;        /* shorter ones through the sender's window (shm.c) */
  MPI_Win win;      /* MPI_WIN_NULL when nothing goes through shared memory */
  void *mine;       /* this rank's window: header, descriptors, segments */
  void **peer;      /* the window of each local index */
  collrt_shm_desc_t **desc; /* per step: its descriptor; NULL = over MPI */
  size_t nshm;      /* steps with a descriptor */
  uint32_t *pending; /* shm steps in flight */
  int npending;
  uint64_t epoch;   /* starts so far: the value a run's flags carry */
  uint32_t copy_ps_per_byte; /* the plan's gamma: SMPI charges copies by it */
  uint8_t *bounce;  /* cross-process reads at aliased distances (shm.c) */
  int bounce_always; /* COLLRT_SHM_BOUNCE=always: every read bounces (tests) */
  int64_t chunk_bytes; /* COLLRT_SHM_CHUNK: bytes a chunk both ends copy (tests); 0 = shm.c's rule */
  int push_only;       /* COLLRT_SHM_COPY=push: receivers leave every chunk to senders (tests) */
  uint64_t pulled, pushed; /* chunks copied since bind, as receiver and as sender */
  char why[160];    /* why not shared memory, for COLLRT_VERBOSE */
  uint64_t bell;    /* SMPI: this rank's doorbell (collrt_node_bell); else 0 */
} collrt_node_t;

/* The node arena of plans with an ARENA statement (arena.c). */
typedef struct collrt_arena {
  MPI_Comm comm;       /* the plan's node (MPI_COMM_NULL: no arena); the
                        * communicator state's (comm_ctx.c), not owned */
  MPI_Win win;         /* MPI_WIN_NULL under SMPI (plain memory) */
  int size;            /* ranks sharing it */
  void *block;         /* SMPI: the node's allocation, owned by index 0 */
  _Atomic uint64_t *failed;   /* a rank of the node abandoned a run */
  _Atomic uint64_t *done;     /* per node rank: runs it completed */
  int index;                  /* this rank's on the node */
  _Atomic uint64_t *counters; /* NOTIFYs so far, per counter */
  uint64_t *bells;     /* the node's ranks' doorbells (SMPI) */
  uint64_t *expected;  /* per counter: NOTIFYs per run on the whole node */
  uint8_t *own;        /* per counter: 1 if this rank makes all of them */
  uint8_t *uses;       /* per step: 1 if it takes part in the arena */
  uint32_t *pending;   /* AWAITs issued, not complete */
  int npending;
  int nforeign;        /* of them, on counters other ranks notify */
  uint32_t *gated;     /* arena steps waiting for the node's last run */
  int ngated;
  uint64_t open_run;   /* the run whose gate this rank saw open, + 1 */
} collrt_arena_t;

struct collrt_coll {
  MPI_Comm comm; /* the user's communicator (not owned) */
  const collrt_plan_t *plan; /* (not owned; outlives the handle) */
  int op;                    /* as bound: COLLRT_OP_* */
  int64_t *recount_arrays;   /* 4 P byte counts and displacements (recount) */
  /* The byte-level counts the steps were last expanded for (4 P, then the
   * send and receive extents): a recount to the same ones only rebinds. */
  int64_t *expanded_counts;
  /* An allreduce bound with MPI_IN_PLACE: the send buffer is this copy of
   * in_place_bytes of the receive buffer, made by every start (engine.c). */
  uint8_t *in_place;
  int64_t in_place_bytes;
  /* A bcast root whose steps stage bytes in its receive buffer: the
   * receive buffer is this sink, whatever a rebind passes (bind_bcast.c). */
  uint8_t *recv_sink;
  int rank, size;
  unsigned flags;
  int scratch_shared; /* scratch from SMPI_SHARED_MALLOC (bind.c) */
  int nfifos;
  /* Where each FIFO's messages go: the communicator state's duplicate with
   * the bind's tag channels (fifo_tag[f] is added to every plan tag), or,
   * where MPI_TAG_UB leaves no room for channels, a duplicate per FIFO
   * owned by the bind (owns_fifo_comms). */
  MPI_Comm fifo_comm[COLLRT_MAX_FIFOS];
  int fifo_tag[COLLRT_MAX_FIFOS];
  int owns_fifo_comms;
  collrt_comm_ctx_t *ctx; /* the communicator's state (a reference) */
  int channel_base;       /* the bind's first tag channel, if it has channels */
  uint8_t *buf[COLLRT_BUF_COUNT_];      /* send, receive, scratch (owned) */
  collrt_steps_t steps;
  MPI_Datatype *dtype; /* per step: a gathered message's layout, or NULL array */
  collrt_fifo_queue_t fq;
  int fq_ready;
  MPI_Request *reqs;   /* outstanding requests, compact */
  uint32_t *req_step;  /* step of each outstanding request */
  int *indices;        /* MPI_Testsome / MPI_Waitsome output */
  MPI_Status *statuses; /* (MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow) */
  int nactive;
  uint32_t *copy_step; /* copies under way, done in chunks between polls */
  int64_t *copy_done;  /* bytes of each copied so far */
  int64_t copy_chunk_bytes; /* bytes of a copy between two polls (engine.c) */
  int ncopying;
  collrt_wait_policy_t wait_policy; /* what collrt_wait does when idle */
  int running;         /* between start and completion (engine.c) */
  /* The process's progress engine (engine.c): every running collective is
   * on one list, so a call that waits on one advances all of them. A run
   * that ends while the engine serves another call keeps its outcome here
   * until its own test/wait reports it. */
  struct collrt_coll *started_prev, *started_next;
  int on_started_list;
  int outcome;               /* COLLRT_OUTCOME_*: a finished run not yet reported */
  collrt_status_t failure;   /* outcome FAILED: the status and diagnostic */
  collrt_diag_t failure_diag;
  double last_progress;      /* MPI_Wtime of the run's last progress (COLLRT_TIMEOUT) */
  double t_start;      /* MPI_Wtime at the last start (with COLLRT_BIND_TRACE) */
  double *t_issue, *t_done; /* per step, with COLLRT_BIND_TRACE */
  collrt_node_t node;
  collrt_arena_t arena;
};

enum { COLLRT_OUTCOME_NONE = 0, COLLRT_OUTCOME_DONE = 1, COLLRT_OUTCOME_FAILED = 2 };

/* COLLRT_ERR_MPI, with diag "WHAT failed: <MPI's message>" (bind.c; used by
 * every file of the bind path). */
collrt_status_t collrt_mpi_error(collrt_diag_t *diag, int rc, const char *what);

/* Binds a plan whose every rank moves one message of `count` elements of
 * `type`, the same on every rank (allreduce, bcast: bind.c). `st` is the
 * outcome of the caller's own checks: a failed one still takes part in the
 * bind's agreements, so every rank fails together. `root` relabels the
 * ranks: rank r runs the plan's program of rank (r − root) mod P and each
 * of its peers p is rank (p + root) mod P, so a bcast proved from rank 0
 * broadcasts from `root` (a renaming of a correct schedule is correct);
 * 0 for none. */
collrt_status_t collrt_bind_one_message(const collrt_plan_t *plan, MPI_Comm comm, int op,
                                        const void *sendbuf, void *recvbuf, int count,
                                        MPI_Datatype type, int root, unsigned flags,
                                        collrt_status_t st, collrt_coll_t **out,
                                        collrt_diag_t *diag);

/* Marks step `step` complete (engine.c): the FIFO queues learn it, and the
 * trace, if any, its time. Shared by the MPI and shared-memory transports. */
void collrt_engine_complete(collrt_coll_t *c, uint32_t step, int trace);
/* Sets the plan's gamma (ps per byte copied) and, from it, the bytes of a
 * large copy the engine moves between two polls (engine.c). Once, at bind. */
void collrt_engine_set_gamma(collrt_coll_t *c, uint32_t ps_per_byte);

/* node_map.c. Collective over `comm`: which ranks share this rank's node
 * (MPI_Comm_split_type, then groups of COLLRT_NODE_SIZE local ranks if that
 * is set), checked against the plan's ranks_per_node when that is > 1: rank
 * r must share a node with exactly the ranks r / rpn * rpn ... + rpn - 1.
 * A failed check is COLLRT_ERR_COMM_MISMATCH naming what MPI reported; `node` is set
 * up (and must be freed) whatever the status. */
collrt_status_t collrt_node_map(const collrt_comm_ctx_t *ctx, int rank, int size,
                                const collrt_plan_t *plan, collrt_node_t *node,
                                collrt_diag_t *diag);
void collrt_node_free(collrt_node_t *node);

/* shm.c. Collective over the node: decides the transport, and for shared
 * memory publishes this rank's on-node sends in an MPI-3 shared window and
 * finds the send that matches each of its on-node receives. */
collrt_status_t collrt_shm_bind(collrt_coll_t *c, collrt_diag_t *diag);
/* Frees the node's window (collective over the node). */
void collrt_shm_free(collrt_node_t *node);
/* Rewrites the buffer addresses a rank's window publishes (rebind). */
void collrt_shm_rebind(collrt_coll_t *c);
/* The node-transport fields of collrt_coll_transport (engine.c). */
void collrt_shm_transport(const collrt_coll_t *c, collrt_transport_info_t *out);
/* The engine's side: a step over shared memory starts, progresses, is
 * abandoned. progress sets *moved when a step completed. */
void collrt_shm_issue(collrt_coll_t *c, uint32_t step);
collrt_status_t collrt_shm_progress(collrt_coll_t *c, int trace, int *moved,
                                    collrt_diag_t *diag);
/* Drops the pending steps of an abandoned run, first waiting for the chunks
 * a sender is still copying into this rank's buffers. */
void collrt_shm_abandon(collrt_coll_t *c);
/* Under SMPI: lets simulated time pass while a rank waits on a flag. */
void collrt_shm_idle(collrt_coll_t *c);

/* SMPI: this rank's doorbell, created on first use (a waiting rank sleeps
 * on it; peers ring it when they set a flag it may wait for); 0 elsewhere. */
uint64_t collrt_node_bell(collrt_node_t *n);
void collrt_node_bell_free(collrt_node_t *n);
void collrt_ring(uint64_t bell);

/* arena.c. Collective over the node (every rank of the communicator calls
 * it, after expansion succeeded everywhere): allocates the plan's node
 * arena in an MPI-3 shared window (nothing if the plan has none), checking
 * that the node's ranks agree on its size. The plan's node is ranks
 * r / ranks_per_node. */
collrt_status_t collrt_arena_bind(collrt_coll_t *c, int ranks_per_node, collrt_diag_t *diag);
void collrt_arena_free(collrt_arena_t *a);
/* The engine's side (plan_format.h, "Node arena"). start: this run's gate;
 * issue: a step the queues released (returns 1 if the arena took it:
 * NOTIFY, AWAIT, or a step held until the node finished its last run);
 * progress: completes AWAITs and releases gated steps to `start_step`;
 * finish: this rank completed a run. */
collrt_status_t collrt_arena_start(collrt_coll_t *c, collrt_diag_t *diag);
int collrt_arena_issue(collrt_coll_t *c, uint32_t step, int trace);
typedef collrt_status_t (*collrt_start_step_fn)(collrt_coll_t *c, uint32_t step, int trace,
                                                collrt_diag_t *diag);
collrt_status_t collrt_arena_progress(collrt_coll_t *c, int trace, int *moved,
                                      collrt_start_step_fn start_step, collrt_diag_t *diag);
void collrt_arena_finish(collrt_coll_t *c);
/* A run of this rank was abandoned: the node's counters are out of step,
 * so every rank of the node fails its next arena step or start. */
void collrt_arena_abandon(collrt_coll_t *c);
static inline int collrt_arena_waiting(const collrt_coll_t *c) {
  return c->arena.npending || c->arena.ngated;
}
/* Whether it waits on another rank of the node, which MPI does not see: an
 * AWAIT on a counter this rank alone notifies is released by this rank's
 * own engine (its NOTIFY follows an MPI completion), so the engine may
 * still block in MPI_Waitsome (under SMPI every poll is a simulated event,
 * so polling would multiply the wall time of a leader's wait). */
static inline int collrt_arena_waits_on_node(const collrt_coll_t *c) {
  return c->arena.nforeign || c->arena.ngated;
}

/* Takes a collective off the engine's list of running ones (engine.c;
 * collrt_coll_free). */
void collrt_engine_forget(collrt_coll_t *c);

/* Cancels and frees the requests of an abandoned run (engine.c). */
void collrt_engine_abandon(collrt_coll_t *c);

/* The MPI datatype of gathered step i: its segments as an hindexed type over
 * ABSOLUTE addresses in c->buf, so one message moves them with no pack copy.
 * `lens` and `displs` have room for the step's segments. Shared by bind and
 * collrt_coll_rebind (a new buffer address needs a new type). */
collrt_status_t collrt_gathered_type(const collrt_coll_t *c, size_t i, int *lens,
                                     MPI_Aint *displs, MPI_Datatype *out,
                                     collrt_diag_t *diag);

#ifdef COLLRT_SMPI
/* engine.c. Simulated time, which smpi/simulate-computation:no leaves
 * uncharged: a copy of len bytes at the plan's gamma (the
 * spec's copy_ns_per_byte, from which the platform's loopback bandwidth is
 * derived too), as simulate.c and the cost model charge it. Every copy the
 * runtime makes goes through it: local COPY steps (engine.c) and copies
 * between the ranks of a node (shm.c). */
void collrt_smpi_charge_copy(const collrt_coll_t *c, int64_t len);
#endif

/* Whether gathered step s moves as s->len contiguous bytes of the folded
 * scratch instead of through its datatype: only under SMPI with folded
 * scratch (bind.c, COLLRT_SMPI_SHARED_SCRATCH), where the bytes are garbage
 * anyway and the simulated time is the same. SMPI packs every
 * derived-datatype message into a private heap copy for the life of the
 * request (Request::init_buffer): at 64 KiB blocks on 1024 ranks that grew
 * past 16 GB of heap. Bind builds no datatype for such a step (at 1024
 * ranks, dim-rings 4 KiB, the datatypes alone held 300 KB a rank) and the
 * engine sends from the scratch: one test, so the two cannot disagree. */
static inline int collrt_gathered_folds(const collrt_coll_t *c, const collrt_step_t *s) {
#if COLLRT_SMPI
  return s->nsrc && c->scratch_shared && s->len <= c->steps.scratch_bytes;
#else
  (void)c;
  (void)s;
  return 0;
#endif
}

#endif

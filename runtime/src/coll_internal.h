/* The bound collective shared by bind (construction), engine (execution) and
 * trace (output). */
#ifndef COLLRT_COLL_INTERNAL_H
#define COLLRT_COLL_INTERNAL_H

#include "collc/collrt.h"
#include "copy.h"
#include "fifo_queue.h"

typedef struct collrt_shm_desc collrt_shm_desc_t; /* shm.c */

/* The ranks that share this rank's memory, as MPI reports them
 * (node_map.c), and the shared-memory transport over them (shm.c). */
typedef struct collrt_node {
  MPI_Comm comm;    /* this node's ranks (split further by COLLRT_NODE_SIZE) */
  int size;         /* ranks on the node */
  int *members;     /* comm rank of each local index, ascending */
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
} collrt_node_t;

struct collrt_coll {
  MPI_Comm comm; /* the user's communicator (not owned) */
  int rank, size;
  unsigned flags;
  int scratch_shared; /* scratch from SMPI_SHARED_MALLOC (bind.c) */
  int nfifos;
  MPI_Comm fifo_comm[COLLRT_MAX_FIFOS]; /* one private duplicate per FIFO */
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
  int ncopying;
  collrt_wait_policy_t wait_policy; /* what collrt_wait does when idle */
  int running;         /* between start and the completion seen by test/wait */
  double t_start;      /* MPI_Wtime at the last start (with COLLRT_BIND_TRACE) */
  double *t_issue, *t_done; /* per step, with COLLRT_BIND_TRACE */
  collrt_node_t node;
};

/* COLLRT_ERR_MPI, with diag "WHAT failed: <MPI's message>" (bind.c; used by
 * every file of the bind path). */
collrt_status_t collrt_mpi_error(collrt_diag_t *diag, int rc, const char *what);

/* Marks step `step` complete (engine.c): the FIFO queues learn it, and the
 * trace, if any, its time. Shared by the MPI and shared-memory transports. */
void collrt_engine_complete(collrt_coll_t *c, uint32_t step, int trace);

/* node_map.c. Collective over `comm`: which ranks share this rank's node
 * (MPI_Comm_split_type, then groups of COLLRT_NODE_SIZE local ranks if that
 * is set), checked against the plan's ranks_per_node when that is > 1: rank
 * r must share a node with exactly the ranks r / rpn * rpn ... + rpn - 1.
 * A failed check is COLLRT_ERR_COMM_MISMATCH naming what MPI reported; `node` is set
 * up (and must be freed) whatever the status. */
collrt_status_t collrt_node_map(MPI_Comm comm, const collrt_plan_t *plan, collrt_node_t *node,
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

/* Cancels and frees the requests of an abandoned run (engine.c). */
void collrt_engine_abandon(collrt_coll_t *c);

/* The MPI datatype of gathered step i: its segments as an hindexed type over
 * ABSOLUTE addresses in c->buf, so one message moves them with no pack copy.
 * `lens` and `displs` have room for the step's segments. Shared by bind and
 * collrt_coll_rebind (a new buffer address needs a new type). */
collrt_status_t collrt_gathered_type(const collrt_coll_t *c, size_t i, int *lens,
                                     MPI_Aint *displs, MPI_Datatype *out,
                                     collrt_diag_t *diag);

#endif

/* The runtime's state per user communicator, shared by every bind on it
 * (comm_ctx.c): one private duplicate whose tags keep the binds apart, the
 * node map, the node arenas' communicators. */
#ifndef COLLRT_COMM_CTX_H
#define COLLRT_COMM_CTX_H

#include <mpi.h>
#include <stdint.h>

#include "collc/status.h"

enum { COLLRT_CTX_ARENAS = 4 };

typedef struct collrt_shm_pool collrt_shm_pool_t; /* comm_ctx.c */

typedef struct collrt_comm_ctx {
  int refs;            /* one per communicator it is attached to, one per bind */
  int64_t id;          /* the same on every rank of its group */
  MPI_Group group;     /* the ranks, in order, it serves */
  struct collrt_comm_ctx *next; /* the process's states (comm_ctx.c) */
  MPI_Comm dup;        /* every message of every bind on the communicator */
  int nchannels;       /* (MPI_TAG_UB + 1) / 2^15; channel 0 is the bind's own */
  int next_channel;    /* the next bind's first channel (alike on every rank) */
  uint16_t *channel_users; /* live binds per channel */
  int node_ready;      /* the node map below was made (collrt_comm_ctx_node) */
  collrt_status_t node_status; /* and how that went on this rank */
  MPI_Comm node_comm;  /* this node's ranks (after COLLRT_NODE_SIZE) */
  int node_size, hw_size;
  int *members;        /* comm rank of each node index, ascending */
  struct { unsigned rpn; MPI_Comm comm; } arena[COLLRT_CTX_ARENAS];
  int narena;
  collrt_shm_pool_t *pools; /* node shared memory the binds' windows slice */
} collrt_comm_ctx_t;

/* A bind's part of the node's shared memory: `bytes` for each node rank
 * (the same on every rank of the node), from a shared window the state
 * keeps, so that a bind creates no MPI window (each costs a context id).
 * Collective over node_comm; binds and frees happen in the same order on
 * every rank of the node, so every rank picks the same offset. *mine is
 * this rank's part (zeroed), peers[j] node rank j's. */
typedef struct collrt_shm_slice {
  collrt_shm_pool_t *pool;
  size_t off, bytes;
} collrt_shm_slice_t;
int collrt_comm_ctx_shm_alloc(collrt_comm_ctx_t *x, size_t bytes, collrt_shm_slice_t *out,
                              void **mine, void **peers, MPI_Win *win);
/* Returns a slice (after the node's barrier: nobody reads it any more). */
void collrt_comm_ctx_shm_free(collrt_comm_ctx_t *x, collrt_shm_slice_t *slice);

/* The communicator's state; made, collectively, by its first bind. */
collrt_status_t collrt_comm_ctx_get(MPI_Comm comm, collrt_comm_ctx_t **out, collrt_diag_t *diag);
void collrt_comm_ctx_release(collrt_comm_ctx_t *x);
/* The node map (node_comm, node_size, hw_size, members), made by the first
 * bind that needs it: collective over comm then, so every rank must ask at
 * the same bind (what needs it is agreed first: bind.c). A bind that needs
 * no node (counts that change per run, one rank per node) saves its
 * MPI_Comm_split_type, MPI_Comm_split and MPI_Allgather. */
collrt_status_t collrt_comm_ctx_node(collrt_comm_ctx_t *x, MPI_Comm comm, collrt_diag_t *diag);
/* The largest physical node any node map of this process has seen (0:
 * none yet). */
int collrt_comm_ctx_known_hw_size(void);
/* The ranks rank / rpn of the node, for a plan's arena (collective over
 * the node the first time). */
collrt_status_t collrt_comm_ctx_arena_comm(collrt_comm_ctx_t *x, int rank, unsigned rpn,
                                           MPI_Comm *out, collrt_diag_t *diag);
/* Whether MPI_TAG_UB leaves room for a bind of nfifos FIFOs on channels;
 * if not, the bind duplicates the communicator per FIFO. */
int collrt_comm_ctx_tagged(const collrt_comm_ctx_t *x, int nfifos);
/* The channels the next bind takes: COLLRT_ERR_STATE if a live bind on
 * this rank still holds one. take (bind agreed) or skip (it failed) moves
 * on, alike on every rank; give_back (collrt_coll_free) frees them. */
collrt_status_t collrt_comm_ctx_channels(collrt_comm_ctx_t *x, int nfifos, int *base,
                                         collrt_diag_t *diag);
void collrt_comm_ctx_take(collrt_comm_ctx_t *x, int base, int nfifos);
void collrt_comm_ctx_skip(collrt_comm_ctx_t *x, int base, int nfifos);
void collrt_comm_ctx_give_back(collrt_comm_ctx_t *x, int base, int nfifos);
/* The MPI tag of a plan tag on a channel. */
int collrt_comm_ctx_tag(int channel, int plan_tag);

#endif

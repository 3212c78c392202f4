/* What every bind on one user communicator shares: one private duplicate
 * that carries the messages of all its binds, the node map, and the node
 * arenas' communicators. Made by the communicator's first bind and kept as
 * an attribute of it, so it goes when the communicator is freed (and a
 * bind still alive then keeps it until the bind is freed).
 *
 * MPI has about two thousand context ids per process (MPICH: 2048): a
 * communicator per bind or per FIFO would end an application that keeps
 * many binds, or dups many communicators, long before MPI would. Instead
 * binds on one communicator are kept apart by tags. A plan's tags are
 * below 2^15 (plan_format.h); the tag's bits above them name a channel,
 * and each bind takes one channel per FIFO. Binds are collective and take
 * channels in bind order, so every rank gives a bind the same channels.
 * Channel 0 carries the bind-time exchange and trace output, which run
 * while no plan of the bind runs.
 *
 * Communicators with the same ranks in the same order (every duplicate of
 * MPI_COMM_WORLD, say) share one state: a program that duplicates a
 * communicator per library or per step then costs no context id beyond its
 * own. Whether a communicator reuses a state is agreed by its ranks at its
 * first bind (each rank may have freed different ones). Under SimGrid SMPI
 * the simulated ranks are threads of one process and would find each
 * other's states: there every communicator gets its own. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"
#include "diag.h"
#include "env.h"

enum { PLAN_TAG_BITS = 15 };

static int ctx_keyval = MPI_KEYVAL_INVALID;
#ifdef COLLRT_SMPI
enum { SHARE_STATES = 0 };
#else
enum { SHARE_STATES = 1 };
#endif
static collrt_comm_ctx_t *states; /* every live state of the process */
static int64_t next_id;           /* above every id this rank has seen */

/* ---- node shared memory for the binds' windows ----
 *
 * Pools of MPI_Win_allocate_shared memory, each rank's part the same size;
 * a bind takes the first gap that fits in every rank's part at the same
 * offset. Pools grow by whole windows (at least kPoolBytes per rank; pages
 * are only backed once touched) and go with the state. */
struct collrt_shm_pool {
  MPI_Win win;
  size_t bytes;                  /* per rank */
  uint8_t **part;                /* per node rank */
  struct { size_t off, len; } *used; /* sorted by offset */
  int nused, cap;
  collrt_shm_pool_t *next;
};

enum { kPoolBytes = 1 << 20, kSliceAlign = 4096 };

static void pools_free(collrt_comm_ctx_t *x) {
  while (x->pools) {
    collrt_shm_pool_t *p = x->pools;
    x->pools = p->next;
#ifndef COLLRT_SMPI
    MPI_Win_unlock_all(p->win);
    MPI_Win_free(&p->win);
#endif
    free(p->part);
    free(p->used);
    free(p);
  }
}

#ifndef COLLRT_SMPI
/* The lowest offset of p with `bytes` free, or SIZE_MAX. */
static size_t gap(const collrt_shm_pool_t *p, size_t bytes) {
  size_t at = 0;
  for (int k = 0; k < p->nused; ++k) {
    if (p->used[k].off - at >= bytes)
      return at;
    at = p->used[k].off + p->used[k].len;
  }
  return p->bytes - at >= bytes ? at : SIZE_MAX;
}

static int pool_new(collrt_comm_ctx_t *x, size_t bytes, collrt_shm_pool_t **out) {
  collrt_shm_pool_t *p = calloc(1, sizeof *p);
  if (!p || !(p->part = calloc((size_t)x->node_size, sizeof *p->part))) {
    free(p);
    return MPI_ERR_NO_MEM;
  }
  p->bytes = bytes < kPoolBytes ? kPoolBytes : bytes;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  void *mine = NULL;
  int rc = MPI_Win_allocate_shared((MPI_Aint)p->bytes, 1, info, x->node_comm, &mine, &p->win);
  MPI_Info_free(&info);
  if (rc) {
    free(p->part);
    free(p);
    return rc;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, p->win); /* held for the window's life */
  for (int j = 0; j < x->node_size && !rc; ++j) {
    MPI_Aint size = 0;
    int unit = 0;
    void *at = NULL;
    rc = MPI_Win_shared_query(p->win, j, &size, &unit, &at);
    p->part[j] = at;
  }
  p->next = x->pools;
  x->pools = p;
  *out = p;
  return rc;
}

int collrt_comm_ctx_shm_alloc(collrt_comm_ctx_t *x, size_t bytes, collrt_shm_slice_t *out,
                              void **mine, void **peers, MPI_Win *win) {
  bytes = (bytes + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  collrt_shm_pool_t *p = x->pools;
  size_t off = SIZE_MAX;
  for (; p && (off = gap(p, bytes)) == SIZE_MAX; p = p->next)
    ;
  int rc = MPI_SUCCESS;
  if (!p) {
    if ((rc = pool_new(x, bytes, &p)))
      return rc;
    off = 0;
  }
  if (p->nused == p->cap) {
    int ncap = p->cap ? 2 * p->cap : 8;
    void *n = realloc(p->used, (size_t)ncap * sizeof *p->used);
    if (!n)
      return MPI_ERR_NO_MEM;
    p->used = n;
    p->cap = ncap;
  }
  int k = p->nused;
  while (k > 0 && p->used[k - 1].off > off) {
    p->used[k] = p->used[k - 1];
    --k;
  }
  p->used[k].off = off;
  p->used[k].len = bytes;
  p->nused++;
  int index = 0;
  MPI_Comm_rank(x->node_comm, &index);
  for (int j = 0; j < x->node_size; ++j)
    peers[j] = p->part[j] + off;
  *mine = p->part[index] + off;
  memset(*mine, 0, bytes);
  *win = p->win;
  out->pool = p;
  out->off = off;
  out->bytes = bytes;
  return MPI_SUCCESS;
}

void collrt_comm_ctx_shm_free(collrt_comm_ctx_t *x, collrt_shm_slice_t *slice) {
  (void)x;
  collrt_shm_pool_t *p = slice->pool;
  if (!p)
    return;
  for (int k = 0; k < p->nused; ++k)
    if (p->used[k].off == slice->off) {
      memmove(&p->used[k], &p->used[k + 1], (size_t)(p->nused - k - 1) * sizeof *p->used);
      p->nused--;
      break;
    }
  slice->pool = NULL;
}
#endif

/* Frees what the state holds of MPI (its communicators and windows). */
static void ctx_free_mpi(collrt_comm_ctx_t *x) {
  pools_free(x);
  for (int k = 0; k < x->narena; ++k)
    if (x->arena[k].comm != MPI_COMM_NULL)
      MPI_Comm_free(&x->arena[k].comm);
  x->narena = 0;
  if (x->node_comm != MPI_COMM_NULL)
    MPI_Comm_free(&x->node_comm);
  if (x->dup != MPI_COMM_NULL)
    MPI_Comm_free(&x->dup);
  if (x->group != MPI_GROUP_NULL)
    MPI_Group_free(&x->group);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
 * works (the standard's hook for libraries): every state gives its MPI
 * objects back then. The world communicator's attributes (states among
 * them) are deleted later, when some MPI libraries (Open MPI) have already
 * taken windows down; by then a state holds only memory. */
static int self_keyval = MPI_KEYVAL_INVALID;

static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  for (collrt_comm_ctx_t *x = states; x; x = x->next)
    ctx_free_mpi(x);
  return MPI_SUCCESS;
}

static void hook_finalize(void) {
  if (self_keyval != MPI_KEYVAL_INVALID ||
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &self_keyval, NULL))
    return;
  MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
}

static void ctx_release(collrt_comm_ctx_t *x) {
  if (!x || --x->refs > 0)
    return;
  ctx_free_mpi(x);
  for (collrt_comm_ctx_t **at = &states; *at; at = &(*at)->next)
    if (*at == x) {
      *at = x->next;
      break;
    }
  free(x->members);
  free(x->channel_users);
  free(x);
}

void collrt_comm_ctx_release(collrt_comm_ctx_t *x) { ctx_release(x); }

static int delete_ctx(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  ctx_release(value);
  return MPI_SUCCESS;
}

/* The node map: which ranks of comm share this rank's memory (then groups
 * of COLLRT_NODE_SIZE of them, a test knob). Collective over comm. */
static collrt_status_t make_node_map(collrt_comm_ctx_t *x, MPI_Comm comm, collrt_diag_t *diag) {
  int rank = 0, rc;
  MPI_Comm_rank(comm, &rank);
  long long knob = 0;
  collrt_diag_t knob_diag = {{0}};
  collrt_status_t knob_st = collrt_env_int("COLLRT_NODE_SIZE", &knob, &knob_diag);
  MPI_Comm hw;
  /* key = rank: local indices follow the communicator's order */
  if ((rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &hw)))
    return collrt_mpi_error(diag, rc, "MPI_Comm_split_type (the node of each rank)");
  int hw_index = 0;
  MPI_Comm_size(hw, &x->hw_size);
  MPI_Comm_rank(hw, &hw_index);
  /* every rank splits, whatever its knob says, so that none is left waiting */
  rc = MPI_Comm_split(hw, !knob_st && knob > 0 ? hw_index / (int)knob : 0, hw_index, &x->node_comm);
  MPI_Comm_free(&hw);
  if (rc)
    return collrt_mpi_error(diag, rc, "MPI_Comm_split (COLLRT_NODE_SIZE groups)");
  MPI_Comm_set_errhandler(x->node_comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(x->node_comm, &x->node_size);
  if (!(x->members = malloc((size_t)x->node_size * sizeof *x->members))) {
    collrt_diag_set(diag, "cannot allocate the node map (%d ranks)", x->node_size);
    return COLLRT_ERR_NOMEM;
  }
  if ((rc = MPI_Allgather(&rank, 1, MPI_INT, x->members, 1, MPI_INT, x->node_comm)))
    return collrt_mpi_error(diag, rc, "MPI_Allgather (the ranks of this node)");
  if (knob_st) {
    if (diag)
      *diag = knob_diag;
    return knob_st;
  }
  return COLLRT_OK;
}

/* step(x, comm, diag) with comm's error handler set to return, then the
 * user's back: running out of context ids is then an error the bind
 * reports on every rank (MPI agrees on context ids), not an abort. */
static collrt_status_t with_errors_returned(
    collrt_comm_ctx_t *x, MPI_Comm comm,
    collrt_status_t (*step)(collrt_comm_ctx_t *, MPI_Comm, collrt_diag_t *), collrt_diag_t *diag) {
  MPI_Errhandler user = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(comm, &user);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  collrt_status_t st = step(x, comm, diag);
  MPI_Comm_set_errhandler(comm, user);
  MPI_Errhandler_free(&user);
  return st;
}

/* What every bind on the communicator needs from MPI (run through
 * with_errors_returned): its duplicate and tag channels. */
static collrt_status_t make(collrt_comm_ctx_t *x, MPI_Comm comm, collrt_diag_t *diag) {
  int rc = MPI_Comm_dup(comm, &x->dup);
  if (rc) {
    x->dup = MPI_COMM_NULL;
    return collrt_mpi_error(diag, rc, "MPI_Comm_dup (the communicator's private duplicate; out of context ids?)");
  }
  MPI_Comm_set_errhandler(x->dup, MPI_ERRORS_RETURN);
  int *ub = NULL, flag = 0;
  MPI_Comm_get_attr(x->dup, MPI_TAG_UB, &ub, &flag);
  long long tag_ub = flag && ub ? *ub : 32767;
  x->nchannels = (int)((tag_ub + 1) >> PLAN_TAG_BITS);
  if (x->nchannels < 1)
    x->nchannels = 1;
  if (!(x->channel_users = calloc((size_t)x->nchannels, sizeof *x->channel_users))) {
    collrt_diag_set(diag, "cannot allocate %d tag channels", x->nchannels);
    return COLLRT_ERR_NOMEM;
  }
  x->next_channel = 1;
  return COLLRT_OK;
}

/* The most ranks any node map of this process found on its physical node:
 * the idle policy's input for binds that make no map of their own. */
static _Atomic int known_hw_size; /* binds on two threads may both set it */

int collrt_comm_ctx_known_hw_size(void) { return known_hw_size; }

collrt_status_t collrt_comm_ctx_node(collrt_comm_ctx_t *x, MPI_Comm comm, collrt_diag_t *diag) {
  if (x->node_ready) {
    if (x->node_status)
      collrt_diag_set(diag, "this rank could not make the communicator's node map at an earlier bind");
    return x->node_status;
  }
  /* made once, whatever the outcome: every rank took part in its
   * collectives, and a later bind must not make them again on some ranks;
   * a failed map fails every later bind that needs it (agreed there) */
  x->node_status = with_errors_returned(x, comm, make_node_map, diag);
  x->node_ready = 1;
  for (int seen = known_hw_size; !x->node_status && x->hw_size > seen;)
    if (atomic_compare_exchange_weak(&known_hw_size, &seen, x->hw_size))
      break;
  return x->node_status;
}

collrt_status_t collrt_comm_ctx_get(MPI_Comm comm, collrt_comm_ctx_t **out, collrt_diag_t *diag) {
  *out = NULL;
  int rc;
  if (ctx_keyval == MPI_KEYVAL_INVALID &&
      (rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_ctx, &ctx_keyval, NULL)))
    return collrt_mpi_error(diag, rc, "MPI_Comm_create_keyval (the runtime's communicator state)");
  void *value = NULL;
  int flag = 0;
  MPI_Comm_get_attr(comm, ctx_keyval, &value, &flag);
  if (flag) {
    *out = value;
    return COLLRT_OK;
  }
  /* a state of a communicator with the same ranks in the same order, if
   * every rank still has the same one */
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  collrt_comm_ctx_t *found = NULL;
  for (collrt_comm_ctx_t *y = states; SHARE_STATES && y && !found; y = y->next) {
    int cmp = MPI_UNEQUAL;
    MPI_Group_compare(group, y->group, &cmp);
    if (cmp == MPI_IDENT)
      found = y;
  }
  int64_t mine[3] = {found ? found->id : -1, found ? -found->id : 1, next_id}, all[3];
  if ((rc = MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_MAX, comm))) {
    MPI_Group_free(&group);
    return collrt_mpi_error(diag, rc, "MPI_Allreduce (the communicator's runtime state)");
  }
  if (all[2] >= next_id)
    next_id = all[2] + 1;
  if (found && all[0] == -all[1] && all[0] == found->id &&
      !(rc = MPI_Comm_set_attr(comm, ctx_keyval, found))) {
    MPI_Group_free(&group);
    found->refs++;
    *out = found;
    return COLLRT_OK;
  }
  collrt_comm_ctx_t *x = calloc(1, sizeof *x);
  if (x) {
    x->group = group;
    x->id = all[2];
  } else
    MPI_Group_free(&group);
  if (!x) {
    collrt_diag_set(diag, "cannot allocate the communicator's runtime state");
    return COLLRT_ERR_NOMEM;
  }
  x->refs = 1;
  x->dup = x->node_comm = MPI_COMM_NULL;
  collrt_status_t st = with_errors_returned(x, comm, make, diag);
  if (!st && (rc = MPI_Comm_set_attr(comm, ctx_keyval, x)))
    st = collrt_mpi_error(diag, rc, "MPI_Comm_set_attr (the runtime's communicator state)");
  if (st) {
    ctx_release(x);
    return st;
  }
  if (SHARE_STATES) { /* SMPI: the list would be every simulated rank's */
    x->next = states;
    states = x;
    hook_finalize();
  }
  *out = x;
  return COLLRT_OK;
}

collrt_status_t collrt_comm_ctx_arena_comm(collrt_comm_ctx_t *x, int rank, unsigned rpn,
                                           MPI_Comm *out, collrt_diag_t *diag) {
  for (int k = 0; k < x->narena; ++k)
    if (x->arena[k].rpn == rpn) {
      *out = x->arena[k].comm;
      return COLLRT_OK;
    }
  if (x->narena == COLLRT_CTX_ARENAS) {
    collrt_diag_set(diag, "binds on this communicator use more than %d node groupings (ranks per node)",
                    COLLRT_CTX_ARENAS);
    return COLLRT_ERR_COMM_MISMATCH;
  }
  MPI_Comm c = MPI_COMM_NULL;
  int rc = MPI_Comm_split(x->node_comm, rank / (int)rpn, rank, &c);
  if (rc)
    return collrt_mpi_error(diag, rc, "MPI_Comm_split (the node arena's ranks)");
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  x->arena[x->narena].rpn = rpn;
  x->arena[x->narena++].comm = c;
  *out = c;
  return COLLRT_OK;
}

int collrt_comm_ctx_tagged(const collrt_comm_ctx_t *x, int nfifos) {
  return x->nchannels >= 1 + nfifos;
}

collrt_status_t collrt_comm_ctx_channels(collrt_comm_ctx_t *x, int nfifos, int *base,
                                         collrt_diag_t *diag) {
  int b = x->next_channel;
  if (b + nfifos > x->nchannels)
    b = 1;
  *base = b;
  for (int f = 0; f < nfifos; ++f)
    if (x->channel_users[b + f]) {
      collrt_diag_set(diag, "rank's earlier binds on this communicator still hold tag channel %d of %d (MPI_TAG_UB allows %d channels of 2^15 tags; free binds no longer used)",
                      b + f, x->nchannels - 1, x->nchannels - 1);
      return COLLRT_ERR_STATE;
    }
  return COLLRT_OK;
}

void collrt_comm_ctx_take(collrt_comm_ctx_t *x, int base, int nfifos) {
  for (int f = 0; f < nfifos; ++f)
    x->channel_users[base + f]++;
  x->next_channel = base + nfifos;
  x->refs++;
}

void collrt_comm_ctx_skip(collrt_comm_ctx_t *x, int base, int nfifos) {
  x->next_channel = base + nfifos;
}

void collrt_comm_ctx_give_back(collrt_comm_ctx_t *x, int base, int nfifos) {
  for (int f = 0; f < nfifos; ++f)
    if (x->channel_users[base + f])
      x->channel_users[base + f]--;
  ctx_release(x);
}

int collrt_comm_ctx_tag(int channel, int plan_tag) { return channel << PLAN_TAG_BITS | plan_tag; }

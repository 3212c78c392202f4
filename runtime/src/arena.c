/* The node arena (plan_format.h, "Node arena"): bytes and counters that the
 * ranks of one node share, allocated once at bind, and the engine's side of
 * NOTIFY, AWAIT and the rule that runs do not overlap on the arena.
 *
 * Layout of the node's allocation (owned by node index 0, zeroed by it):
 *   u64 failed                  a rank of the node abandoned a run
 *   u64 done[size]              runs each rank of the node completed
 *   u64 bell[size]              SMPI: each rank's doorbell (0 elsewhere)
 *   u64 counter[ncounters]      NOTIFYs so far (never reset)
 *   (64-byte aligned) the arena's bytes
 *
 * Counters and `done` only grow, so no run resets what a slower rank still
 * reads: with E = NOTIFYs of counter c per run on the node (bind sums every
 * rank's count), an AWAIT of run e (e = 0, 1, ...) waits for counter[c] >=
 * (e + 1) E, and a rank's arena steps of run e wait until done[k] >= e for
 * every rank k (each completed run e - 1; one slot per rank, so a rank with
 * no arena steps, which never waits here, cannot count for another). The
 * second rule makes the first exact: no NOTIFY of run e + 1 can be counted
 * before every rank finished run e. Once the gate holds a step, every later
 * step this rank's queues release is held behind it, in order, so that MPI
 * still matches its messages in program order.
 * NOTIFY is a release increment and AWAIT an acquire load, so bytes a rank
 * wrote before its NOTIFY (a COPY it waited for, a RECV MPI completed) are
 * visible to every rank after its AWAIT; `done` is incremented with release
 * once a rank's run completed and read with acquire by the gate. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"
#include "diag.h"

enum { ARENA_ALIGN = 64 };

static size_t header_bytes(int size, int64_t ncounters) {
  size_t h = sizeof(uint64_t) * (1u + 2u * (size_t)size + (size_t)ncounters);
  return (h + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
}

/* The node's allocation: index 0 allocates it all, the others map it. */
#ifdef COLLRT_SMPI
/* SMPI: the ranks are threads of one process (shm.c explains why not a
 * window); index 0's address is broadcast. */
static int allocate(collrt_arena_t *a, size_t bytes, int index, void **base) {
  void *mine = index == 0 ? calloc(1, bytes) : NULL;
  uint64_t at = (uint64_t)(uintptr_t)mine;
  int rc = MPI_Bcast(&at, 1, MPI_UINT64_T, 0, a->comm);
  a->block = mine;
  *base = (void *)(uintptr_t)at;
  return rc ? rc : *base ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}
static void release(collrt_arena_t *a) {
  if (a->comm != MPI_COMM_NULL)
    MPI_Barrier(a->comm); /* nobody touches the arena after it is gone */
  free(a->block);
  a->block = NULL;
}
static int unified(collrt_arena_t *a) { (void)a; return 1; }
/* Makes each rank's writes to the header visible to the others. */
static void sync_window(collrt_arena_t *a) { MPI_Barrier(a->comm); }
#else
static int allocate(collrt_arena_t *a, size_t bytes, int index, void **base) {
  void *mine = NULL;
  int rc = MPI_Win_allocate_shared(index == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, a->comm,
                                   &mine, &a->win);
  if (rc) {
    a->win = MPI_WIN_NULL;
    return rc;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, a->win); /* held for the window's life */
  MPI_Aint size = 0;
  int unit = 0;
  return MPI_Win_shared_query(a->win, 0, &size, &unit, base);
}
static void release(collrt_arena_t *a) {
  if (a->win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(a->win);
    MPI_Win_free(&a->win);
  }
}
static int unified(collrt_arena_t *a) {
  int *model = NULL, flag = 0;
  return MPI_Win_get_attr(a->win, MPI_WIN_MODEL, &model, &flag) != MPI_SUCCESS || !flag ||
         !model || *model == MPI_WIN_UNIFIED;
}
static void sync_window(collrt_arena_t *a) {
  if (a->win != MPI_WIN_NULL)
    MPI_Win_sync(a->win);
  MPI_Barrier(a->comm);
  if (a->win != MPI_WIN_NULL)
    MPI_Win_sync(a->win);
}
#endif

void collrt_arena_free(collrt_arena_t *a) {
  release(a); /* a->comm is the communicator state's: not freed here */
  free(a->expected);
  free(a->own);
  free(a->uses);
  free(a->pending);
  free(a->gated);
  memset(a, 0, sizeof *a);
  a->comm = MPI_COMM_NULL;
  a->win = MPI_WIN_NULL;
}

collrt_status_t collrt_arena_bind(collrt_coll_t *c, int rpn, collrt_diag_t *diag) {
  collrt_arena_t *a = &c->arena;
  a->comm = MPI_COMM_NULL;
  a->win = MPI_WIN_NULL;
  if (!c->steps.has_arena)
    return COLLRT_OK;
  /* the plan's node: ranks r / ranks_per_node (bind's node map checked
   * that MPI puts them on one node when ranks_per_node > 1) */
  collrt_status_t cst = collrt_comm_ctx_arena_comm(c->ctx, c->rank, (unsigned)rpn, &a->comm, diag);
  if (cst) {
    a->comm = MPI_COMM_NULL;
    return cst;
  }
  int rc, index = 0;
  MPI_Comm_size(a->comm, &a->size);
  MPI_Comm_rank(a->comm, &index);
  /* this rank's state first, so that a failure joins the collectives */
  size_t n = c->steps.count;
  int64_t nc = c->steps.arena_counters;
  a->uses = malloc(n + 1);
  a->pending = malloc((n + 1) * sizeof *a->pending);
  a->gated = malloc((n + 1) * sizeof *a->gated);
  a->expected = calloc((size_t)nc + 1, sizeof *a->expected);
  a->own = calloc((size_t)nc + 1, 1);
  long long *count = calloc((size_t)nc + 1, sizeof *count);
  long long *sum = calloc((size_t)nc + 1, sizeof *sum);
  int failed = !a->uses || !a->pending || !a->gated || !a->expected || !a->own || !count || !sum;
  /* agree on the size ([min, max] of bytes and counters) and on failures */
  long long mine[5] = {c->steps.arena_bytes, -c->steps.arena_bytes, nc, -nc, failed}, node[5];
  collrt_status_t st = COLLRT_OK;
  if ((rc = MPI_Allreduce(mine, node, 5, MPI_LONG_LONG, MPI_MAX, a->comm)))
    st = collrt_mpi_error(diag, rc, "MPI_Allreduce (the node arena's size)");
  else if (node[4]) {
    collrt_diag_set(diag, "out of memory: a rank of this rank's node could not allocate its arena state");
    st = COLLRT_ERR_NOMEM;
  } else if (node[0] != -node[1] || node[2] != -node[3]) {
    collrt_diag_set(diag, "the ranks of rank %d's node disagree on the plan's ARENA: bytes %lld to %lld, counters %lld to %lld (every rank of a node must evaluate the same)",
                    c->rank, -node[1], node[0], -node[3], node[2]);
    st = COLLRT_ERR_COUNTS;
  }
  if (!st) {
    /* NOTIFYs per run of each counter, summed over the node */
    for (size_t i = 0; i < n; ++i) {
      a->uses[i] = (uint8_t)collrt_step_uses_arena(&c->steps, &c->steps.steps[i]);
      if (c->steps.steps[i].kind == COLLRT_STEP_NOTIFY)
        ++count[c->steps.steps[i].peer];
    }
    if ((rc = MPI_Allreduce(count, sum, (int)nc + 1, MPI_LONG_LONG, MPI_SUM, a->comm)))
      st = collrt_mpi_error(diag, rc, "MPI_Allreduce (NOTIFYs per counter on the node)");
    for (int64_t k = 0; k < nc && !st; ++k) {
      a->expected[k] = (uint64_t)sum[k];
      a->own[k] = count[k] == sum[k];
    }
  }
  free(count);
  free(sum);
  if (st)
    return st;
  /* the allocation (every rank joins the barrier after it, whatever its
   * outcome, then the node agrees), then every rank's doorbell in it */
  size_t head = header_bytes(a->size, nc);
  void *base = NULL;
  rc = allocate(a, head + (size_t)c->steps.arena_bytes, index, &base);
  if (rc)
    st = collrt_mpi_error(diag, rc, "allocating the node arena (MPI_Win_allocate_shared)");
  else if (!unified(a)) {
    collrt_diag_set(diag, "the MPI library's shared windows are not in the unified memory model, which the node arena's counters need");
    st = COLLRT_ERR_MPI;
  }
  uint64_t *words = base;
  if (!st) {
    if (index == 0)
      memset(base, 0, head);
    a->failed = (_Atomic uint64_t *)&words[0];
    a->done = (_Atomic uint64_t *)&words[1];
    a->bells = &words[1 + a->size];
    a->counters = (_Atomic uint64_t *)&words[1 + 2 * a->size];
    a->index = index;
    c->buf[COLLRT_BUF_ARENA] = (uint8_t *)base + head;
  }
  sync_window(a);
  int bad = st != COLLRT_OK, any = 0;
  if ((rc = MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, a->comm)))
    return st ? st : collrt_mpi_error(diag, rc, "MPI_Allreduce (the node arena's allocation)");
  if (any && !st) {
    collrt_diag_set(diag, "another rank of this node could not map the node arena; see its diagnostic");
    st = COLLRT_ERR_MPI;
  }
  if (st) {
    a->done = NULL; /* nothing to count on: the handle is freed */
    return st;
  }
  /* index 0's zeroing before anyone's doorbell, then the doorbells */
  a->bells[index] = collrt_node_bell(&c->node);
  sync_window(a);
  return COLLRT_OK;
}

/* ---- a run ---- */

static void ring_all(collrt_arena_t *a) {
  for (int k = 0; k < a->size; ++k)
    collrt_ring(a->bells[k]);
}

/* The run this start began: 0 for the first. */
static uint64_t run_of(const collrt_coll_t *c) { return c->node.epoch - 1; }

static int gate_open(collrt_coll_t *c) {
  collrt_arena_t *a = &c->arena;
  uint64_t run = run_of(c);
  if (a->open_run == run + 1)
    return 1;
  for (int k = 0; k < a->size; ++k)
    if (atomic_load_explicit(&a->done[k], memory_order_acquire) < run)
      return 0;
  a->open_run = run + 1;
  return 1;
}

collrt_status_t collrt_arena_start(collrt_coll_t *c, collrt_diag_t *diag) {
  collrt_arena_t *a = &c->arena;
  a->npending = 0;
  a->nforeign = 0;
  a->ngated = 0;
  if (a->failed && atomic_load_explicit(a->failed, memory_order_acquire)) {
    collrt_diag_set(diag, "collrt_start: an earlier run of this collective failed on this rank or another of its node, so the node arena's counters are out of step; free the collective and bind it again");
    return COLLRT_ERR_STATE;
  }
  return COLLRT_OK;
}

static int await_done(collrt_coll_t *c, const collrt_step_t *s) {
  collrt_arena_t *a = &c->arena;
  uint64_t want = (run_of(c) + 1) * a->expected[s->peer];
  return atomic_load_explicit(&a->counters[s->peer], memory_order_acquire) >= want;
}

/* A NOTIFY or AWAIT whose gate is open. */
static void signal_step(collrt_coll_t *c, uint32_t i, int trace) {
  collrt_arena_t *a = &c->arena;
  const collrt_step_t *s = &c->steps.steps[i];
  if (s->kind == COLLRT_STEP_NOTIFY) {
    atomic_fetch_add_explicit(&a->counters[s->peer], 1, memory_order_release);
    ring_all(a);
    collrt_engine_complete(c, i, trace);
  } else if (await_done(c, s)) {
    collrt_engine_complete(c, i, trace);
  } else {
    a->pending[a->npending++] = i;
    a->nforeign += !a->own[s->peer];
  }
}

int collrt_arena_issue(collrt_coll_t *c, uint32_t i, int trace) {
  collrt_arena_t *a = &c->arena;
  if (!a->done)
    return 0;
  /* behind a held step every step waits, so that messages keep their
   * program order per queue (MPI matches them in that order) */
  if (a->ngated || (a->uses[i] && !gate_open(c))) {
    a->gated[a->ngated++] = i;
    return 1;
  }
  if (!collrt_step_is_signal(c->steps.steps[i].kind))
    return 0;
  signal_step(c, i, trace);
  return 1;
}

collrt_status_t collrt_arena_progress(collrt_coll_t *c, int trace, int *moved,
                                      collrt_start_step_fn start_step, collrt_diag_t *diag) {
  collrt_arena_t *a = &c->arena;
  if (atomic_load_explicit(a->failed, memory_order_acquire)) {
    collrt_diag_set(diag, "rank %d: another rank of its node abandoned a run of this collective, so the node arena's counters are out of step; free the collective and bind it again",
                    c->rank);
    return COLLRT_ERR_STATE;
  }
  if (a->ngated && gate_open(c)) {
    int n = a->ngated;
    a->ngated = 0;
    *moved = 1;
    for (int k = 0; k < n; ++k) {
      uint32_t i = a->gated[k];
      if (collrt_step_is_signal(c->steps.steps[i].kind)) {
        signal_step(c, i, trace);
        continue;
      }
      collrt_status_t st = start_step(c, i, trace, diag);
      if (st)
        return st;
    }
  }
  for (int k = 0; k < a->npending;) {
    uint32_t i = a->pending[k];
    if (!await_done(c, &c->steps.steps[i])) {
      ++k;
      continue;
    }
    collrt_engine_complete(c, i, trace);
    a->nforeign -= !a->own[c->steps.steps[i].peer];
    a->pending[k] = a->pending[--a->npending];
    *moved = 1;
  }
  return COLLRT_OK;
}

void collrt_arena_finish(collrt_coll_t *c) {
  collrt_arena_t *a = &c->arena;
  if (!a->done)
    return;
  atomic_store_explicit(&a->done[a->index], run_of(c) + 1, memory_order_release);
  ring_all(a);
}

void collrt_arena_abandon(collrt_coll_t *c) {
  collrt_arena_t *a = &c->arena;
  if (!a->done)
    return;
  /* its NOTIFYs and `done` may be short of the node's: tell every rank */
  atomic_store_explicit(a->failed, 1, memory_order_release);
  ring_all(a);
}

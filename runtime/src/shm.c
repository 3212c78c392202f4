/* The shared-memory transport: a SEND/RECV pair between two ranks of one
 * node (node_map.c) moves once, the receiver copying straight out of the
 * sender's buffer. Plans do not change: a pair keeps the meaning format v2
 * gives it (matched per FIFO, peer and tag in posting order; the send
 * completes once the receive has taken the data), so the verifier and the
 * simulator that check plans check this transport too.
 *
 * Bind (collective per node). Each rank publishes, in an MPI-3 shared
 * window (MPI_Win_allocate_shared on the node's communicator), one
 * descriptor per on-node send of at least min_bytes: destination, FIFO,
 * tag, ordinal among its sends with that (destination, FIFO, tag), length,
 * and the segments it reads as (buffer, offset, length); a header gives the
 * owner's process id and its buffer addresses. Each receiver then finds, for
 * each of its on-node receives, the descriptor of the matching send (the
 * k-th receive from A with (FIFO, tag) matches A's k-th send to it: MPI's
 * non-overtaking rule) and keeps a pointer to it. Both sides classify a
 * message by its length, which both derive alike, so they always agree on
 * which messages go through shared memory.
 *
 * A run (epoch e = the number of starts so far, the same on every rank):
 *   sender, when the SEND issues:  ready = e   (store, release)
 *   receiver, once it sees ready == e (load, acquire): copies the segments,
 *                                  then done = e (store, release)
 *   sender completes its SEND once it sees done == e (load, acquire).
 * Release/acquire orders the sender's writes of the data (earlier steps)
 * before the receiver's reads, and the receiver's reads before whatever the
 * sender later writes there. The flags are C11 atomics in the window's
 * memory, which MPI-3's unified memory model (checked at bind) makes
 * coherent between the node's processes; the window is held in a
 * lock_all epoch for its whole life, and bind synchronises it with
 * MPI_Win_sync around a node barrier before any rank reads another's
 * descriptors.
 *
 * The copy: in one address space (SimGrid SMPI, where ranks are threads of
 * one process) a memcpy from the sender's buffer; across processes
 * process_vm_readv (Linux cross-memory attach) with the sender's addresses,
 * which bind first tries on every peer. Where neither works, nothing goes
 * through shared memory and the same plan runs over MPI. A receive copies
 * its whole message in one go (no chunks between polls, unlike a COPY). */
#define _GNU_SOURCE /* process_vm_readv */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coll_internal.h"
#include "diag.h"

#ifdef COLLRT_SMPI
#include <time.h>
#include <simgrid/semaphore.h> /* a waiting rank's doorbell */
#include <smpi/smpi_helpers_internal.h> /* smpi_nanosleep: simulated sleep */
enum { SHM_MIN_DEFAULT = 0 }; /* a memcpy: every on-node message */
#else
/* Below this a message between two processes of a node goes over MPI: a
 * process_vm_readv system call costs more than MPICH's shared-memory eager
 * path. Measured here (2 ranks, direct alltoall, medians of 300, collc
 * through shared memory / collc over MPI point-to-point, in us): 8 B 2.21 /
 * 0.36, 1 KiB 2.28 / 0.52, 4 KiB 3.21 / 1.40, 16 KiB 4.61 / 5.94, 32 KiB
 * 6.06 / 7.24, 64 KiB 8.20 / 14.74, 1 MiB 120.15 / 157.72. */
enum { SHM_MIN_DEFAULT = 16384 };
#endif

/* The window: this rank's part (n->mine), every node rank's (n->peer), and
 * the synchronisation around the barrier after which ranks read each
 * other's descriptors. `sync` is called before and after that barrier.
 *
 * Under SimGrid SMPI (the build's seam, COLLRT_SMPI) every rank is a thread
 * of one process, so the window is plain memory whose address the node's
 * ranks exchange: SMPI 3.32's MPI_Win_allocate_shared does not give each
 * rank its own part (the ranks' descriptors overwrote each other),
 * MPI_Win_sync is not implemented and asking for MPI_WIN_MODEL is an error. */
#ifdef COLLRT_SMPI
static int win_allocate(collrt_node_t *n, MPI_Aint bytes) {
  n->mine = calloc(1, (size_t)bytes);
  n->peer = calloc((size_t)n->size, sizeof *n->peer);
  uint64_t at = (uint64_t)(uintptr_t)n->mine, *all = (uint64_t *)n->peer;
  uint64_t none[1];
  /* every rank joins the allgather, even one out of memory */
  int rc = MPI_Allgather(&at, 1, MPI_UINT64_T, all ? all : none, all ? 1 : 0, MPI_UINT64_T,
                         n->comm);
  return rc ? rc : n->mine && n->peer ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}
static void win_sync(collrt_node_t *n) { (void)n; }
static int win_unified(collrt_node_t *n) { (void)n; return 1; }
static void win_release(collrt_node_t *n) {
  if (n->mine)
    MPI_Barrier(n->comm); /* nobody reads a window after it is gone */
  free(n->mine);
}
/* smpicc maps getpid() to a per-rank number, not the process; the one
 * address space is known */
static int64_t process_id(void) { return 1; }
/* A waiting rank sleeps on a SimGrid semaphore, its doorbell, which a peer
 * rings when it sets a flag this rank waits for: it wakes at that simulated
 * date, with no polling (a poll is one SimGrid event; at 512 ranks polling
 * every 0.2 us cost minutes of wall time). */
static uint64_t doorbell_new(void) { return (uint64_t)(uintptr_t)sg_sem_init(0); }
static void doorbell_free(uint64_t bell) {
  if (bell)
    sg_sem_destroy((sg_sem_t)(uintptr_t)bell);
}
static void ring(uint64_t bell) {
  if (bell)
    sg_sem_release((sg_sem_t)(uintptr_t)bell);
}
#else
static uint64_t doorbell_new(void) { return 0; }
static void doorbell_free(uint64_t bell) { (void)bell; }
static void ring(uint64_t bell) { (void)bell; }
static int win_allocate(collrt_node_t *n, MPI_Aint bytes) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  int rc = MPI_Win_allocate_shared(bytes, 1, info, n->comm, &n->mine, &n->win);
  MPI_Info_free(&info);
  if (rc) {
    n->win = MPI_WIN_NULL;
    n->mine = NULL;
    return rc;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, n->win); /* held for the window's life */
  if (!(n->peer = calloc((size_t)n->size, sizeof *n->peer)))
    return MPI_ERR_NO_MEM;
  for (int j = 0; j < n->size && !rc; ++j) {
    MPI_Aint size = 0;
    int unit = 0;
    rc = MPI_Win_shared_query(n->win, j, &size, &unit, &n->peer[j]);
  }
  return rc;
}
static void win_sync(collrt_node_t *n) { MPI_Win_sync(n->win); }
static int win_unified(collrt_node_t *n) {
  int *model = NULL, flag = 0;
  return MPI_Win_get_attr(n->win, MPI_WIN_MODEL, &model, &flag) != MPI_SUCCESS || !flag ||
         !model || *model == MPI_WIN_UNIFIED;
}
static void win_release(collrt_node_t *n) {
  if (n->win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(n->win);
    MPI_Win_free(&n->win);
  }
}
static int64_t process_id(void) { return (int64_t)getpid(); }
#endif

#define SHM_MAGIC 0x4d48534c4c4f43ull /* "COLLSHM" */
enum { IOV_BATCH = 64 };

typedef struct shm_header {
  uint64_t magic;
  uint64_t self; /* this header's address in its owner's process */
  int64_t pid;
  uint64_t base[COLLRT_BUF_COUNT_]; /* the owner's buffers (rebind rewrites) */
  uint64_t ndesc, nsegs;
  uint64_t doorbell; /* SMPI: the owner's semaphore (see ring()); else 0 */
} shm_header_t;

struct collrt_shm_desc {
  _Atomic uint64_t ready; /* the epoch whose data the sender offers */
  _Atomic uint64_t done;  /* the epoch whose data the receiver took */
  int32_t dst, fifo, tag, len;
  uint64_t ordinal; /* among the owner's shm sends to (dst, fifo, tag) */
  uint64_t seg_begin, nseg;
};

static shm_header_t *header(void *w) { return w; }
static collrt_shm_desc_t *descs(void *w) { return (collrt_shm_desc_t *)(header(w) + 1); }
static collrt_seg_t *segs(void *w) { return (collrt_seg_t *)(descs(w) + header(w)->ndesc); }

/* Local index of comm rank `r` on this node, or -1. */
static int local_index(const collrt_node_t *n, int r) {
  int lo = 0, hi = n->size - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (n->members[mid] == r)
      return mid;
    if (n->members[mid] < r)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* (peer, fifo, tag, step): sorting by it puts a pair's messages with one
 * (FIFO, tag) together, in posting order. */
typedef struct keyed {
  int32_t peer, fifo, tag;
  uint32_t step;
} keyed_t;

static int by_key(const void *pa, const void *pb) {
  const keyed_t *a = pa, *b = pb;
  if (a->peer != b->peer)
    return a->peer < b->peer ? -1 : 1;
  if (a->fifo != b->fifo)
    return a->fifo < b->fifo ? -1 : 1;
  if (a->tag != b->tag)
    return a->tag < b->tag ? -1 : 1;
  return a->step < b->step ? -1 : a->step > b->step;
}

/* The ordinal of sorted entry k among those with its (peer, fifo, tag),
 * given entry k - 1's: MPI's non-overtaking order within a key. */
static uint64_t next_ordinal(const keyed_t *sorted, size_t k, uint64_t previous) {
  const keyed_t *a = &sorted[k], *b = k ? &sorted[k - 1] : NULL;
  return b && a->peer == b->peer && a->fifo == b->fifo && a->tag == b->tag ? previous + 1 : 0;
}

static int goes_shm(const collrt_coll_t *c, const collrt_step_t *s) {
  return s->kind != COLLRT_STEP_COPY && s->len >= c->node.min_bytes && s->peer != c->rank &&
         local_index(&c->node, s->peer) >= 0;
}

/* COLLRT_SHM_MIN: bytes, or -1 if malformed. */
static int64_t min_bytes_setting(void) {
  const char *v = getenv("COLLRT_SHM_MIN");
  if (!v || !*v)
    return SHM_MIN_DEFAULT;
  char *end = NULL;
  long long x = strtoll(v, &end, 10);
  return *end || x < 0 ? -1 : x;
}

/* Can this process read a peer's memory? Reads the magic of its header
 * through its own address for it. */
static int can_read(const shm_header_t *peer) {
  uint64_t word = 0;
  struct iovec local = {&word, sizeof word}, remote = {(void *)(uintptr_t)peer->self, sizeof word};
  return process_vm_readv((pid_t)peer->pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof word &&
         word == SHM_MAGIC;
}

static void publish_buffers(collrt_coll_t *c) {
  shm_header_t *h = header(c->node.mine);
  for (int b = 0; b < COLLRT_BUF_COUNT_; ++b)
    h->base[b] = (uint64_t)(uintptr_t)c->buf[b];
}

void collrt_shm_rebind(collrt_coll_t *c) {
  if (c->node.mine)
    publish_buffers(c);
}

/* Writes this rank's header, descriptors and segments into its window. */
static void publish(collrt_coll_t *c, const keyed_t *sends, size_t nsend) {
  shm_header_t *h = header(c->node.mine);
  h->magic = SHM_MAGIC;
  h->self = (uint64_t)(uintptr_t)h;
  h->doorbell = doorbell_new();
  h->pid = process_id();
  h->ndesc = nsend;
  publish_buffers(c);
  collrt_shm_desc_t *d = descs(c->node.mine);
  collrt_seg_t *g = (collrt_seg_t *)(d + nsend);
  uint64_t nseg = 0, ordinal = 0;
  for (size_t k = 0; k < nsend; ++k) {
    const collrt_step_t *s = &c->steps.steps[sends[k].step];
    ordinal = next_ordinal(sends, k, ordinal);
    atomic_init(&d[k].ready, 0);
    atomic_init(&d[k].done, 0);
    d[k].dst = s->peer;
    d[k].fifo = s->fifo;
    d[k].tag = s->tag;
    d[k].len = s->len;
    d[k].ordinal = ordinal;
    d[k].seg_begin = nseg;
    collrt_region_t src;
    collrt_step_source(&c->steps, s, &src);
    if (src.nsegs) {
      memcpy(g + nseg, src.segs, src.nsegs * sizeof *g);
      nseg += src.nsegs;
    } else {
      g[nseg++] = src.whole;
    }
    d[k].nseg = nseg - d[k].seg_begin;
    c->node.desc[sends[k].step] = &d[k];
  }
  h->nsegs = nseg;
}

/* The descriptor of the send that matches receive `r` (ordinal `ordinal`
 * among this rank's shm receives with its key), in the sender's window. */
static collrt_status_t match(collrt_coll_t *c, const keyed_t *r, uint64_t ordinal,
                             collrt_diag_t *diag) {
  const collrt_step_t *s = &c->steps.steps[r->step];
  void *w = c->node.peer[local_index(&c->node, r->peer)];
  collrt_shm_desc_t *d = descs(w);
  size_t lo = 0, hi = header(w)->ndesc;
  while (lo < hi) { /* first descriptor not below (rank, fifo, tag, ordinal) */
    size_t mid = (lo + hi) / 2;
    const collrt_shm_desc_t *m = &d[mid];
    int below = m->dst != c->rank ? m->dst < c->rank
                : m->fifo != r->fifo ? m->fifo < r->fifo
                : m->tag != r->tag ? m->tag < r->tag
                : m->ordinal < ordinal;
    if (below)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == header(w)->ndesc || d[lo].dst != c->rank || d[lo].fifo != r->fifo ||
      d[lo].tag != r->tag || d[lo].ordinal != ordinal) {
    collrt_diag_set(diag, "rank %d receives message #%llu from rank %d (fifo %d, tag %d, %d bytes, stmt %u) through shared memory, but rank %d sends no such message: the two sides of the plan disagree",
                    c->rank, (unsigned long long)ordinal, r->peer, r->fifo, r->tag, s->len,
                    s->stmt, r->peer);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d[lo].len != s->len) {
    collrt_diag_set(diag, "rank %d receives %d bytes as message #%llu from rank %d (fifo %d, tag %d, stmt %u), but rank %d sends %d: the two sides of the plan disagree",
                    c->rank, s->len, (unsigned long long)ordinal, r->peer, r->fifo, r->tag,
                    s->stmt, r->peer, d[lo].len);
    return COLLRT_ERR_PLAN_INVALID;
  }
  c->node.desc[r->step] = &d[lo];
  return COLLRT_OK;
}

void collrt_shm_free(collrt_node_t *n) {
  if (n->mine)
    doorbell_free(header(n->mine)->doorbell);
  win_release(n);
  n->win = MPI_WIN_NULL;
  n->mine = NULL;
  free(n->peer);
  n->peer = NULL;
  free(n->bounce);
  n->bounce = NULL;
}

/* Switches the node to MPI point-to-point, saying why. */
static void use_mpi(collrt_node_t *n, const char *why) {
  snprintf(n->why, sizeof n->why, "%s", why);
  n->mode = COLLRT_SHM_OFF;
  n->nshm = 0;
  collrt_shm_free(n);
  free(n->desc);
  n->desc = NULL;
}

collrt_status_t collrt_shm_bind(collrt_coll_t *c, collrt_diag_t *diag) {
  collrt_node_t *n = &c->node;
  n->mode = COLLRT_SHM_OFF;
  if (n->size == 1) {
    use_mpi(n, "no other rank shares this rank's node");
    return COLLRT_OK;
  }
  /* test-only: every cross-process read through the bounce buffer, so that
   * tests cover it whatever the distances of their buffers (a rank's own
   * choice: it changes how a rank copies, not what) */
  const char *bounce = getenv("COLLRT_SHM_BOUNCE");
  n->bounce_always = bounce && !strcmp(bounce, "always");
  /* the settings, agreed by the node's ranks (each must classify alike) */
  const char *off = getenv("COLLRT_SHM");
  /* MAX over the node of: "off", the threshold, and minus it (so a
   * malformed one, -1, shows as a positive third entry) */
  long long min = min_bytes_setting();
  long long ask[3] = {off && !strcmp(off, "0"), min, -min}, got[3];
  int rc = MPI_Allreduce(ask, got, 3, MPI_LONG_LONG, MPI_MAX, n->comm);
  if (rc)
    return collrt_mpi_error(diag, rc, "MPI_Allreduce (shared-memory settings of the node)");
  if (got[2] > 0) {
    collrt_diag_set(diag, "COLLRT_SHM_MIN='%s' is not a byte count (a rank of this node says so)",
                    getenv("COLLRT_SHM_MIN") ? getenv("COLLRT_SHM_MIN") : "");
    return COLLRT_ERR_ARG;
  }
  if (got[0]) {
    use_mpi(n, "COLLRT_SHM=0");
    return COLLRT_OK;
  }
  n->min_bytes = got[1];

  /* this rank's on-node sends and receives, by key */
  size_t count = c->steps.count, nsend = 0, nrecv = 0, nseg = 0;
  keyed_t *keys = malloc((count + 1) * sizeof *keys);
  n->desc = calloc(count + 1, sizeof *n->desc);
  if (!keys || !n->desc) {
    free(keys);
    collrt_diag_set(diag, "cannot allocate the shared-memory map of %zu steps", count);
    return COLLRT_ERR_NOMEM;
  }
  for (size_t i = 0; i < count; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    if (goes_shm(c, s) && s->kind == COLLRT_STEP_SEND) {
      keys[nsend++] = (keyed_t){s->peer, s->fifo, s->tag, (uint32_t)i};
      nseg += s->nsrc ? s->nsrc : 1;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    if (goes_shm(c, s) && s->kind == COLLRT_STEP_RECV)
      keys[nsend + nrecv++] = (keyed_t){s->peer, s->fifo, s->tag, (uint32_t)i};
  }
  qsort(keys, nsend, sizeof *keys, by_key);
  qsort(keys + nsend, nrecv, sizeof *keys, by_key);
  /* no window at all when no rank of the node has a message for it (short
   * blocks across processes): bind then costs one more allreduce, no more */
  long long any = (long long)(nsend + nrecv), node_any = 0;
  if ((rc = MPI_Allreduce(&any, &node_any, 1, MPI_LONG_LONG, MPI_MAX, n->comm))) {
    free(keys);
    return collrt_mpi_error(diag, rc, "MPI_Allreduce (shared-memory transfers of the node)");
  }
  if (!node_any) {
    free(keys);
    char why[160];
    snprintf(why, sizeof why, "no message between ranks of this node is %lld bytes or longer (COLLRT_SHM_MIN)",
             (long long)n->min_bytes);
    use_mpi(n, why);
    return COLLRT_OK;
  }

  MPI_Aint bytes = (MPI_Aint)(sizeof(shm_header_t) + nsend * sizeof(collrt_shm_desc_t) +
                              nseg * sizeof(collrt_seg_t));
  collrt_status_t st = COLLRT_OK;
  if ((rc = win_allocate(n, bytes))) {
    free(keys);
    return collrt_mpi_error(diag, rc, "allocating the node's shared window (MPI_Win_allocate_shared)");
  }
  publish(c, keys, nsend);
  win_sync(n);
  MPI_Barrier(n->comm);
  win_sync(n);

  /* how to read every peer's memory */
  int model_ok = win_unified(n);
  int how = model_ok ? COLLRT_SHM_SAME_PROCESS : COLLRT_SHM_OFF;
  for (int j = 0; j < n->size && !st; ++j) {
    const shm_header_t *h = header(n->peer[j]);
    if (h->magic != SHM_MAGIC) {
      collrt_diag_set(diag, "the shared window of node rank %d (rank %d) holds no descriptors after the node barrier",
                      j, n->members[j]);
      st = COLLRT_ERR_MPI;
    } else if (h->pid != process_id() && how != COLLRT_SHM_OFF) {
      how = can_read(h) ? COLLRT_SHM_CMA : COLLRT_SHM_OFF;
    }
  }
  int agreed = st ? -1 : how;
  int lowest = -1;
  rc = MPI_Allreduce(&agreed, &lowest, 1, MPI_INT, MPI_MIN, n->comm);
  if (!st && rc)
    st = collrt_mpi_error(diag, rc, "MPI_Allreduce (shared-memory mode of the node)");
  if (!st && lowest < 0) {
    collrt_diag_set(diag, "another rank of this node failed to set up shared memory; see its diagnostic");
    st = COLLRT_ERR_MPI;
  }
  if (st) {
    free(keys);
    return st;
  }
  if (lowest == COLLRT_SHM_OFF) {
    free(keys);
    use_mpi(n, !model_ok ? "the MPI library's shared windows are not in the unified memory model"
                         : "process_vm_readv between the node's processes is not permitted "
                           "(see /proc/sys/kernel/yama/ptrace_scope)");
    return COLLRT_OK;
  }
  /* a mix of SAME_PROCESS and CMA cannot happen; if it did, CMA reads both */
  n->mode = lowest;

  /* receives find their sends */
  uint64_t ordinal = 0;
  for (size_t k = 0; k < nrecv && !st; ++k) {
    const keyed_t *r = &keys[nsend + k];
    ordinal = next_ordinal(keys + nsend, k, ordinal);
    st = match(c, r, ordinal, diag);
  }
  free(keys);
  n->nshm = nsend + nrecv;
  if (!st && !(n->pending = malloc((n->nshm + 1) * sizeof *n->pending))) {
    collrt_diag_set(diag, "cannot allocate %zu shared-memory transfers", n->nshm);
    st = COLLRT_ERR_NOMEM;
  }
  return st;
}

collrt_status_t collrt_coll_transport(const collrt_coll_t *c, collrt_transport_info_t *out,
                                      collrt_diag_t *diag) {
  if (!c || !out) {
    collrt_diag_set(diag, "collrt_coll_transport: %s is NULL", c ? "out" : "coll");
    return COLLRT_ERR_ARG;
  }
  memset(out, 0, sizeof *out);
  out->node_ranks = c->node.size;
  out->shm = (collrt_shm_mode_t)c->node.mode;
  out->shm_min_bytes = c->node.min_bytes;
  out->shm_steps = c->node.nshm;
  for (size_t i = 0; i < c->steps.count; ++i)
    out->steps += c->steps.steps[i].kind != COLLRT_STEP_COPY;
  out->why = c->node.mode == COLLRT_SHM_OFF ? c->node.why : NULL;
  return COLLRT_OK;
}

/* ---- a run ---- */

void collrt_shm_issue(collrt_coll_t *c, uint32_t i) {
  collrt_node_t *n = &c->node;
  if (c->steps.steps[i].kind == COLLRT_STEP_SEND) {
    atomic_store_explicit(&n->desc[i]->ready, n->epoch, memory_order_release);
    ring(header(n->peer[local_index(n, c->steps.steps[i].peer)])->doorbell);
  }
  n->pending[n->npending++] = i;
}

typedef struct take {
  collrt_coll_t *c;
  const shm_header_t *from;
  int mode;
  struct iovec local[IOV_BATCH], remote[IOV_BATCH];
  int n;
  ssize_t want;
  int err; /* errno of a failed read */
} take_t;

static void flush(take_t *t) {
  if (!t->n || t->err)
    return;
  ssize_t got = process_vm_readv((pid_t)t->from->pid, t->local, (unsigned long)t->n, t->remote,
                                 (unsigned long)t->n, 0);
  if (got != t->want)
    t->err = got < 0 ? errno : EIO;
  t->n = 0;
  t->want = 0;
}

/* A read whose destination lies a few bytes past its source modulo 4 KiB
 * would run the kernel's `rep movsb` at a fraction of its speed (copy.c):
 * it goes through a bounce buffer at the source's page offset instead, two
 * fast copies (2 ranks, collc-run's buffers 16 bytes apart modulo 4 KiB,
 * medians of 3 alternating runs: 256 KiB alltoall 64 us against 132 us
 * without it, 64 KiB 18 us against 33 us). */
enum { BOUNCE_BYTES = 64 * 1024 };

static void take_bounced(take_t *t, uint8_t *dst, uint64_t src, int64_t len) {
  collrt_node_t *n = &t->c->node;
  flush(t);
  if (t->err)
    return;
  if (!n->bounce && !(n->bounce = malloc(BOUNCE_BYTES + 2 * 4096))) {
    t->err = ENOMEM;
    return;
  }
  uint8_t *page = (uint8_t *)(((uintptr_t)n->bounce + 4095) & ~(uintptr_t)4095);
  for (int64_t done = 0; done < len;) {
    size_t chunk = (size_t)(len - done < BOUNCE_BYTES ? len - done : BOUNCE_BYTES);
    uint8_t *b = page + ((src + (uint64_t)done) & 4095u);
    struct iovec local = {b, chunk}, remote = {(void *)(uintptr_t)(src + (uint64_t)done), chunk};
    ssize_t got = process_vm_readv((pid_t)t->from->pid, &local, 1, &remote, 1, 0);
    if (got != (ssize_t)chunk) {
      t->err = got < 0 ? errno : EIO;
      return;
    }
    collrt_copy(dst + done, b, chunk);
    done += (int64_t)chunk;
  }
}

static void take_piece(void *ctx, uint8_t sbuf, int64_t soff, uint8_t dbuf, int64_t doff,
                       int64_t len) {
  take_t *t = ctx;
  uint8_t *dst = t->c->buf[dbuf] + doff;
  uint64_t src = t->from->base[sbuf] + (uint64_t)soff;
  if (t->mode == COLLRT_SHM_SAME_PROCESS) {
    collrt_copy(dst, (const void *)(uintptr_t)src, (size_t)len);
    return;
  }
  if (collrt_copy_aliased((uintptr_t)dst, (uintptr_t)src, (size_t)len) ||
      (t->c->node.bounce_always && len > 0)) {
    take_bounced(t, dst, src, len);
    return;
  }
  t->local[t->n] = (struct iovec){dst, (size_t)len};
  t->remote[t->n] = (struct iovec){(void *)(uintptr_t)src, (size_t)len};
  t->want += len;
  if (++t->n == IOV_BATCH)
    flush(t);
}

/* Receive step `s` copies its message out of the sender's buffers. */
static collrt_status_t take(collrt_coll_t *c, const collrt_step_t *s, const collrt_shm_desc_t *d,
                            collrt_diag_t *diag) {
  void *w = c->node.peer[local_index(&c->node, s->peer)];
  take_t t = {.c = c, .from = header(w), .mode = c->node.mode};
  collrt_region_t src = {segs(w) + d->seg_begin, (uint32_t)d->nseg, {0, 0, 0}}, dst;
  collrt_step_dest(&c->steps, s, &dst);
  collrt_region_pairs(&src, &dst, 0, s->len, take_piece, &t);
  flush(&t);
  if (t.err) {
    collrt_diag_set(diag, "rank %d: process_vm_readv of %d bytes from rank %d (stmt %u) failed: %s",
                    c->rank, s->len, s->peer, s->stmt, strerror(t.err));
    return COLLRT_ERR_MPI;
  }
#ifdef COLLRT_SMPI
  /* the copy's time, which simulate-computation:no would not charge: the
   * plan's copy cost per byte (the spec's copy_ns_per_byte, from which the
   * platform's loopback bandwidth is derived too) */
  double t_s = (double)s->len * c->node.copy_ps_per_byte * 1e-12;
  if (t_s > 0) {
    struct timespec ts = {(time_t)t_s, (long)((t_s - (double)(time_t)t_s) * 1e9)};
    smpi_nanosleep(&ts, NULL);
  }
#endif
  return COLLRT_OK;
}

collrt_status_t collrt_shm_progress(collrt_coll_t *c, int trace, int *moved,
                                    collrt_diag_t *diag) {
  collrt_node_t *n = &c->node;
  for (int k = 0; k < n->npending;) {
    uint32_t i = n->pending[k];
    const collrt_step_t *s = &c->steps.steps[i];
    collrt_shm_desc_t *d = n->desc[i];
    int done;
    if (s->kind == COLLRT_STEP_SEND) {
      done = atomic_load_explicit(&d->done, memory_order_acquire) == n->epoch;
    } else if ((done = atomic_load_explicit(&d->ready, memory_order_acquire) == n->epoch)) {
      collrt_status_t st = take(c, s, d, diag);
      if (st)
        return st;
      atomic_store_explicit(&d->done, n->epoch, memory_order_release);
      ring(header(n->peer[local_index(n, s->peer)])->doorbell);
    }
    if (!done) {
      ++k;
      continue;
    }
    collrt_engine_complete(c, i, trace);
    n->pending[k] = n->pending[--n->npending];
    *moved = 1;
  }
  return COLLRT_OK;
}

void collrt_shm_idle(collrt_coll_t *c) {
#ifdef COLLRT_SMPI
  /* a waiting rank must let simulated time pass, or the clock stops while
   * it polls (SimGrid only advances time when every actor blocks). With
   * nothing in MPI, it sleeps on its doorbell until a peer sets a flag;
   * with MPI requests too, it wakes for either, polling MPI every 0.2 us
   * (SimGrid skips waits shorter than its precision, 1e-7 s in bench/smpi:
   * a 0.1 us sleep took no time and a leader's cores spun at one date). */
  sg_sem_t bell = (sg_sem_t)(uintptr_t)header(c->node.mine)->doorbell;
  if (!c->nactive && !c->ncopying)
    sg_sem_acquire(bell);
  else
    sg_sem_acquire_timeout(bell, 2e-7);
#else
  (void)c;
  sched_yield();
#endif
}

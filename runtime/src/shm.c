/* The shared-memory transport: a SEND/RECV pair between two ranks of one
 * node (node_map.c) moves once, the receiver copying straight out of the
 * sender's buffer. Plans do not change: a pair keeps the meaning format v2
 * gives it (matched per FIFO, peer and tag in posting order; the send
 * completes once the receive has taken the data), so the verifier and the
 * simulator that check plans check this transport too.
 *
 * Bind (collective per node). Each rank publishes, in an MPI-3 shared
 * window (MPI_Win_allocate_shared on the node's communicator), one
 * descriptor per on-node send (below min_bytes: eager, below): destination,
 * FIFO, tag, ordinal among its sends with that (destination, FIFO, tag), length,
 * and the segments it reads as (buffer, offset, length); then the segments
 * each of its on-node receives writes; a header gives the owner's process
 * id and its buffer addresses. Each receiver then finds, for each of its
 * on-node receives, the descriptor of the matching send (the k-th receive
 * from A with (FIFO, tag) matches A's k-th send to it: MPI's non-overtaking
 * rule), keeps a pointer to it and writes into it where its own segments
 * are. Both sides classify a message by its length, which both derive
 * alike, so they always agree on which messages go through shared memory.
 *
 * A run (epoch e = the number of starts so far, the same on every rank):
 *   sender, when the SEND issues:  ready = e   (store, release)
 *   receiver, once it sees ready == e (load, acquire): sets the chunk size,
 *     claimed = copied = 0, then open = e (store, release); then claims
 *     chunks (claimed += 1) and copies them (copied += 1, release) until
 *     none is left
 *   sender, while its SEND waits, once it sees open == e (load, acquire)
 *     and is idle (no copy of its own under way, nothing pulled in this
 *     pass of its engine): claims and copies one chunk the same way
 *   receiver, once it sees copied == every chunk (load, acquire):
 *     done = e (store, release), and its RECV completes
 *   sender completes its SEND once it sees done == e (load, acquire).
 * Both ends copy: whichever is idle moves the next chunk, so a sender with
 * nothing else to do halves a large message's time (an allgatherv's sender
 * is idle once its local copy is done, while its receiver would copy the
 * whole contribution alone). Release/acquire
 * orders the sender's writes of the data (earlier steps) before the
 * copies, every copy before the side that completes on it, and the
 * receiver's reads before whatever the sender later writes there; the
 * receiver resets the counters only after ready == e, which the sender
 * stores after its last claim of epoch e − 1, and the sender writes into
 * the receiver's buffer only after open == e: inside the receiver's run.
 * The flags are C11 atomics in the window's memory, which MPI-3's unified
 * memory model (checked at bind) makes coherent between the node's
 * processes; the window is held in a lock_all epoch for its whole life,
 * and bind synchronises it with MPI_Win_sync around a node barrier before
 * any rank reads another's descriptors, and again after the receivers
 * wrote theirs.
 *
 * Eager (messages shorter than min_bytes, across processes): no system
 * call pays for itself there, so the message goes through a slot of the
 * sender's window, one per such send, placed at bind after the segments:
 *   sender, once it sees done == e − 1 (load, acquire: the receiver took
 *     the last run's bytes): copies its segments into the slot, then
 *     ready = e (store, release), and its SEND completes
 *   receiver, once it sees ready == e (load, acquire): copies the slot into
 *     its segments, then done = e (store, release)
 * Two memcpy and two flags; the send completes before the receive has
 * taken the data, as MPI's eager sends do, which can only release its
 * waiters earlier than the rendezvous the verifier assumes. For short
 * messages the two copies cost less than the descriptor handshake of a
 * single copy (bench/shm measures both). COLLRT_SHM_EAGER=0 sends them over MPI instead.
 *
 * The copy: in one address space (SimGrid SMPI, where ranks are threads of
 * one process) the receiver alone, a memcpy from the sender's buffer in one
 * chunk; across processes, process_vm_readv (the receiver) and
 * process_vm_writev (the sender; Linux cross-memory attach) with the other
 * side's addresses; bind first tries a read on every peer (a write needs
 * the same permission, PTRACE_MODE_ATTACH_REALCREDS). Where neither
 * works, nothing goes through shared memory and the same plan runs over
 * MPI. */
#define _GNU_SOURCE /* process_vm_readv, process_vm_writev */
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
#include "env.h"

#ifdef COLLRT_SMPI
#include <simgrid/semaphore.h> /* a waiting rank's doorbell */
enum { SHM_MIN_DEFAULT = 0 }; /* a memcpy: every on-node message */
enum { SHM_EAGER = 0 };       /* so nothing goes eager */
#else
/* Below this a message between two processes of a node does not go in one
 * copy: a process_vm_readv system call costs more than MPICH's shared-memory
 * eager path, until the message is long enough that MPICH's two copies cost
 * more than the call (between 4 and 16 KiB on x86 nodes; bench/shm measures
 * it, COLLRT_SHM_MIN moves it). */
enum { SHM_MIN_DEFAULT = 16384 };
/* ... and goes eager through the sender's window instead (two memcpy, no
 * system call), unless COLLRT_SHM_EAGER=0. */
enum { SHM_EAGER = 1 };
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
 * date, with no polling (a poll is one SimGrid event: hundreds of ranks
 * polling would cost far more wall time than the simulation itself). */
static uint64_t doorbell_new(void) { return (uint64_t)(uintptr_t)sg_sem_init(0); }
static void doorbell_free(uint64_t bell) {
  if (bell)
    sg_sem_destroy((sg_sem_t)(uintptr_t)bell);
}
void collrt_ring(uint64_t bell) {
  if (bell)
    sg_sem_release((sg_sem_t)(uintptr_t)bell);
}
#else
static uint64_t doorbell_new(void) { return 0; }
static void doorbell_free(uint64_t bell) { (void)bell; }
void collrt_ring(uint64_t bell) { (void)bell; }
/* The window is a slice of the communicator state's shared memory
 * (comm_ctx.c): a bind creates no MPI window. Every rank of the node asks
 * for the largest part any of them needs. */
static int win_allocate(collrt_node_t *n, MPI_Aint bytes) {
  long long want = (long long)bytes, most = 0;
  int rc = MPI_Allreduce(&want, &most, 1, MPI_LONG_LONG, MPI_MAX, n->comm);
  if (rc)
    return rc;
  if (!(n->peer = calloc((size_t)n->size, sizeof *n->peer)))
    return MPI_ERR_NO_MEM;
  return collrt_comm_ctx_shm_alloc(n->ctx, (size_t)most, &n->slice, &n->mine, n->peer, &n->win);
}
static void win_sync(collrt_node_t *n) { MPI_Win_sync(n->win); }
static int win_unified(collrt_node_t *n) {
  int *model = NULL, flag = 0;
  return MPI_Win_get_attr(n->win, MPI_WIN_MODEL, &model, &flag) != MPI_SUCCESS || !flag ||
         !model || *model == MPI_WIN_UNIFIED;
}
static void win_release(collrt_node_t *n) {
  if (n->slice.pool) {
    MPI_Barrier(n->comm); /* nobody reads a window after it is gone */
    collrt_comm_ctx_shm_free(n->ctx, &n->slice);
  }
}
static int64_t process_id(void) { return (int64_t)getpid(); }
#endif

/* Makes every rank's writes to its window before the call visible to the
 * node's other ranks after it. */
static void node_sync(collrt_node_t *n) {
  win_sync(n);
  MPI_Barrier(n->comm);
  win_sync(n);
}

#define SHM_MAGIC 0x4d48534c4c4f43ull /* "COLLSHM" */
enum { IOV_BATCH = 64 };

typedef struct shm_header {
  uint64_t magic;
  uint64_t self; /* this header's address in its owner's process */
  int64_t pid;
  uint64_t base[COLLRT_BUF_COUNT_]; /* the owner's buffers (rebind rewrites) */
  uint64_t ndesc, nsegs;
  uint64_t doorbell; /* SMPI: the owner's semaphore (see collrt_ring()); else 0 */
} shm_header_t;

struct collrt_shm_desc {
  _Atomic uint64_t ready; /* the epoch whose data the sender offers */
  _Atomic uint64_t done;  /* the epoch whose data the receiver took */
  /* both ends copy (CMA only; "A run" above): */
  _Atomic uint64_t open;    /* the epoch in which the sender may push chunks */
  _Atomic uint64_t claimed; /* chunks handed out in that epoch */
  _Atomic uint64_t copied;  /* chunks copied in that epoch */
  _Atomic uint64_t failed;  /* the epoch in which a side failed to copy a chunk */
  _Atomic uint64_t posted;  /* eager: the receiver's run (it reads no older slot) */
  int64_t chunk;            /* bytes a chunk, set by the receiver before open */
  int64_t pulled, alone;    /* the receiver's own: chunks it copied this epoch;
                               runs in a row it copied every chunk itself */
  int32_t dst, fifo, tag, len;
  uint64_t ordinal; /* among the owner's shm sends to (dst, fifo, tag) */
  uint64_t seg_begin, nseg;   /* the message's bytes in the sender's buffers */
  uint64_t rseg_begin, rnseg; /* its place in the receiver's (segs of its window) */
  uint64_t slot;              /* eager: the message's bytes, at this offset of the
                                 sender's window; 0 = a copy between buffers */
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
  return collrt_step_is_message(s->kind) && (s->len >= c->node.min_bytes || c->node.eager) &&
         s->peer != c->rank && local_index(&c->node, s->peer) >= 0;
}

/* An on-node message below the threshold goes eager: through a slot of the
 * sender's window ("Eager" above). Slots start at 64-byte boundaries. */
static int is_eager(const collrt_node_t *n, int64_t len) { return len < n->min_bytes; }
static uint64_t slot_bytes(int64_t len) { return ((uint64_t)len + 63u) & ~(uint64_t)63u; }

/* The node's transport settings, as this rank's environment gives them
 * (env.c validates each; the first malformed one is the error). */
typedef struct shm_settings {
  int bounce_always, push_only, off, eager_off;
  long long chunk, min, fault_rank; /* fault_rank: -1 = no fault */
} shm_settings_t;

static collrt_status_t read_settings(shm_settings_t *s, collrt_diag_t *diag) {
  int on = 1, eager = 1, bounce = 0, copy = 0;
  collrt_status_t st;
  *s = (shm_settings_t){.min = SHM_MIN_DEFAULT, .fault_rank = -1};
  /* COLLRT_SHM_BOUNCE=always (test-only): every cross-process read through
   * the bounce buffer, so that tests cover it whatever the distances of
   * their buffers (a rank's own choice: it changes how a rank copies, not
   * what). COLLRT_SHM_CHUNK (test-only too): the chunks both ends of a
   * message copy (each receiver sets its messages' chunk size in their
   * descriptors, so ranks may differ). COLLRT_SHM_COPY=push: a receiver
   * leaves every chunk to its sender, so that a test covers the sender's
   * copies whatever the timing (CMA only: in one address space senders do
   * not copy). */
  if ((st = collrt_env_enum("COLLRT_SHM_BOUNCE", &bounce, diag)) ||
      (st = collrt_env_int("COLLRT_SHM_CHUNK", &s->chunk, diag)) ||
      (st = collrt_env_enum("COLLRT_SHM_COPY", &copy, diag)) ||
      (st = collrt_env_bool("COLLRT_SHM", &on, diag)) ||
      (st = collrt_env_int("COLLRT_SHM_MIN", &s->min, diag)) ||
      (st = collrt_env_bool("COLLRT_SHM_EAGER", &eager, diag)) ||
      (st = collrt_env_fault("COLLRT_SHM_FAULT", &s->fault_rank, diag)))
    return st;
  s->bounce_always = bounce == 1; /* auto|always */
  s->push_only = copy == 1;       /* auto|push */
  s->off = !on;
  s->eager_off = !eager;
  return COLLRT_OK;
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

/* Appends the segments of a region (one for a contiguous one) at g[at]. */
static uint64_t put_region(collrt_seg_t *g, uint64_t at, const collrt_region_t *r) {
  if (!r->nsegs) {
    g[at] = r->whole;
    return at + 1;
  }
  memcpy(g + at, r->segs, r->nsegs * sizeof *g);
  return at + r->nsegs;
}

/* Writes this rank's header, descriptors and segments into its window: the
 * sources of its sends, then the destinations of its receives (a sender
 * pushes into them), the k-th receive's from rseg[k] to rseg[k + 1]. */
static void publish(collrt_coll_t *c, const keyed_t *sends, size_t nsend, const keyed_t *recvs,
                    size_t nrecv, uint64_t *rseg) {
  shm_header_t *h = header(c->node.mine);
  h->magic = SHM_MAGIC;
  h->self = (uint64_t)(uintptr_t)h;
  h->doorbell = collrt_node_bell(&c->node);
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
    atomic_init(&d[k].open, 0);
    atomic_init(&d[k].claimed, 0);
    atomic_init(&d[k].copied, 0);
    atomic_init(&d[k].failed, 0);
    atomic_init(&d[k].posted, 0);
    d[k].chunk = d[k].pulled = d[k].alone = 0;
    d[k].seg_begin = nseg;
    collrt_region_t src;
    collrt_step_source(&c->steps, s, &src);
    nseg = put_region(g, nseg, &src);
    d[k].nseg = nseg - d[k].seg_begin;
    c->node.desc[sends[k].step] = &d[k];
  }
  for (size_t k = 0; k < nrecv; ++k) {
    collrt_region_t dst;
    collrt_step_dest(&c->steps, &c->steps.steps[recvs[k].step], &dst);
    rseg[k] = nseg;
    nseg = put_region(g, nseg, &dst);
  }
  rseg[nrecv] = nseg;
  h->nsegs = nseg;
  uint64_t slot = slot_bytes((int64_t)((uint8_t *)(g + nseg) - (uint8_t *)h));
  for (size_t k = 0; k < nsend; ++k) {
    d[k].slot = is_eager(&c->node, d[k].len) ? slot : 0;
    slot += d[k].slot ? slot_bytes(d[k].len) : 0;
  }
}

/* The descriptor of the send that matches receive `r` (ordinal `ordinal`
 * among this rank's shm receives with its key), in the sender's window. */
static collrt_status_t match(collrt_coll_t *c, const keyed_t *r, uint64_t ordinal,
                             uint64_t rseg_begin, uint64_t rseg_end, collrt_diag_t *diag) {
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
  d[lo].rseg_begin = rseg_begin;
  d[lo].rnseg = rseg_end - rseg_begin;
  c->node.desc[r->step] = &d[lo];
  return COLLRT_OK;
}

void collrt_shm_free(collrt_node_t *n) {
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

/* This rank's index on its node. */
static int node_rank(const collrt_node_t *n) {
  int r = -1;
  MPI_Comm_rank(n->comm, &r);
  return r;
}

collrt_status_t collrt_shm_bind(collrt_coll_t *c, collrt_diag_t *diag) {
  collrt_node_t *n = &c->node;
  n->mode = COLLRT_SHM_OFF;
  n->ctx = c->ctx;
  if (n->unmapped) {
    /* the peers' descriptors would have to be exchanged again for every
     * new count pattern */
    use_mpi(n, "bound for counts that change between runs (COLLRT_BIND_LOCAL_COUNTS)");
    return COLLRT_OK;
  }
  shm_settings_t set;
  collrt_status_t bad = read_settings(&set, diag);
  if (n->size == 1) {
    use_mpi(n, "no other rank shares this rank's node");
    return bad; /* a malformed setting is an error even where it does not matter */
  }
  /* the settings, agreed by the node's ranks (each must classify alike):
   * MAX over the node of "off", the threshold, a malformed setting (the
   * rank that has one, plus 1: every rank then fails, none is left waiting
   * in the node's next collective) and "eager off" */
  n->bounce_always = set.bounce_always;
  n->chunk_bytes = set.chunk;
  n->push_only = set.push_only;
  long long ask[4] = {set.off, set.min, bad ? c->rank + 1ll : 0, set.eager_off}, got[4];
  int rc = MPI_Allreduce(ask, got, 4, MPI_LONG_LONG, MPI_MAX, n->comm);
  if (rc)
    return collrt_mpi_error(diag, rc, "MPI_Allreduce (shared-memory settings of the node)");
  if (bad)
    return bad;
  if (got[2] > 0) {
    collrt_diag_set(diag, "rank %lld of this node has a malformed COLLRT_SHM* setting (its own error says which; docs/runtime-environment.md)",
                    got[2] - 1);
    return COLLRT_ERR_ARG;
  }
  if (got[0]) {
    use_mpi(n, "COLLRT_SHM=0");
    return COLLRT_OK;
  }
  if (c->flags & COLLRT_BIND_LOCAL_COUNTS) {
    /* the peers' descriptors would have to be exchanged again for every
     * new count pattern */
    use_mpi(n, "bound for counts that change between runs (COLLRT_BIND_LOCAL_COUNTS)");
    return COLLRT_OK;
  }
  n->min_bytes = got[1];
  n->eager = !got[3] && SHM_EAGER;

  /* this rank's on-node sends and receives, by key */
  size_t count = c->steps.count, nsend = 0, nrecv = 0, nseg = 0;
  keyed_t *keys = malloc((count + 1) * sizeof *keys);
  uint64_t *rseg = malloc((count + 1) * sizeof *rseg); /* per receive: publish() */
  n->desc = calloc(count + 1, sizeof *n->desc);
  /* A rank that cannot allocate still takes part in the node's next
   * collective, which tells every rank of the node (returning here would
   * leave them waiting in it while this rank waits in bind's agreement).
   * COLLRT_SHM_FAULT=map:R (test-only) makes node rank R fail here. */
  int failed = !keys || !rseg || !n->desc || set.fault_rank == node_rank(n);
  if (failed)
    collrt_diag_set(diag, "cannot allocate the shared-memory map of %zu steps", count);
  uint64_t eager_bytes = 0;
  for (size_t i = 0; i < count && !failed; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    if (goes_shm(c, s) && s->kind == COLLRT_STEP_SEND) {
      keys[nsend++] = (keyed_t){s->peer, s->fifo, s->tag, (uint32_t)i};
      nseg += s->nsrc ? s->nsrc : 1;
      eager_bytes += is_eager(n, s->len) ? slot_bytes(s->len) : 0;
    }
  }
  for (size_t i = 0; i < count && !failed; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    if (goes_shm(c, s) && s->kind == COLLRT_STEP_RECV) {
      keys[nsend + nrecv++] = (keyed_t){s->peer, s->fifo, s->tag, (uint32_t)i};
      nseg += s->nsrc ? s->nsrc : 1; /* a RECV's one side is its destination */
    }
  }
  if (!failed) {
    qsort(keys, nsend, sizeof *keys, by_key);
    qsort(keys + nsend, nrecv, sizeof *keys, by_key);
  }
  /* no window at all when no rank of the node has a message for it (short
   * blocks across processes): bind then costs one more allreduce, no more */
  long long mine[2] = {(long long)(nsend + nrecv), failed ? c->rank + 1ll : 0}, node[2] = {0, 0};
  if ((rc = MPI_Allreduce(mine, node, 2, MPI_LONG_LONG, MPI_MAX, n->comm))) {
    free(keys);
    free(rseg);
    return collrt_mpi_error(diag, rc, "MPI_Allreduce (shared-memory transfers of the node)");
  }
  long long node_any = node[0];
  if (node[1]) {
    free(keys);
    free(rseg);
    if (!failed)
      collrt_diag_set(diag, "rank %lld, on this rank's node, could not allocate its shared-memory map",
                      node[1] - 1);
    return COLLRT_ERR_NOMEM;
  }
  if (!node_any) {
    free(keys);
    free(rseg);
    char why[160];
    if (n->eager)
      snprintf(why, sizeof why, "no message goes between ranks of this node");
    else
      snprintf(why, sizeof why, "no message between ranks of this node is %lld bytes or longer (COLLRT_SHM_MIN; COLLRT_SHM_EAGER=0)",
               (long long)n->min_bytes);
    use_mpi(n, why);
    return COLLRT_OK;
  }

  MPI_Aint bytes = (MPI_Aint)(slot_bytes((int64_t)(sizeof(shm_header_t) +
                                                   nsend * sizeof(collrt_shm_desc_t) +
                                                   nseg * sizeof(collrt_seg_t))) +
                              eager_bytes);
  collrt_status_t st = COLLRT_OK;
  if ((rc = win_allocate(n, bytes))) {
    free(keys);
    free(rseg);
    return collrt_mpi_error(diag, rc, "allocating the node's shared window (MPI_Win_allocate_shared)");
  }
  publish(c, keys, nsend, keys + nsend, nrecv, rseg);
  node_sync(n);

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
    free(rseg);
    return st;
  }
  if (lowest == COLLRT_SHM_OFF) {
    free(keys);
    free(rseg);
    use_mpi(n, !model_ok ? "the MPI library's shared windows are not in the unified memory model"
                         : "process_vm_readv between the node's processes is not permitted "
                           "(see /proc/sys/kernel/yama/ptrace_scope)");
    return COLLRT_OK;
  }
  /* a mix of SAME_PROCESS and CMA cannot happen; if it did, CMA reads both */
  n->mode = lowest;

  /* receives find their sends and tell them where they write; every rank
   * then synchronises again, even one whose match failed, before a sender
   * reads that (it pushes only in CMA mode: "A run" above) */
  uint64_t ordinal = 0;
  for (size_t k = 0; k < nrecv && !st; ++k) {
    const keyed_t *r = &keys[nsend + k];
    ordinal = next_ordinal(keys + nsend, k, ordinal);
    st = match(c, r, ordinal, rseg[k], rseg[k + 1], diag);
  }
  free(keys);
  free(rseg);
  if (n->mode == COLLRT_SHM_CMA)
    node_sync(n);
  n->nshm = nsend + nrecv;
  if (!st && !(n->pending = malloc((n->nshm + 1) * sizeof *n->pending))) {
    collrt_diag_set(diag, "cannot allocate %zu shared-memory transfers", n->nshm);
    st = COLLRT_ERR_NOMEM;
  }
  return st;
}

void collrt_shm_transport(const collrt_coll_t *c, collrt_transport_info_t *out) {
  out->node_ranks = c->node.size;
  out->shm = (collrt_shm_mode_t)c->node.mode;
  out->shm_min_bytes = c->node.min_bytes;
  out->shm_steps = c->node.nshm;
  for (size_t i = 0; i < c->steps.count && c->node.desc; ++i)
    out->shm_eager_steps += c->node.desc[i] && c->node.desc[i]->slot;
  out->why = c->node.mode == COLLRT_SHM_OFF ? c->node.why : NULL;
  out->shm_chunks_pulled = c->node.pulled;
  out->shm_chunks_pushed = c->node.pushed;
}

/* ---- a run ---- */

void collrt_shm_issue(collrt_coll_t *c, uint32_t i) {
  collrt_node_t *n = &c->node;
  if (c->steps.steps[i].kind == COLLRT_STEP_RECV && n->desc[i]->slot)
    atomic_store_explicit(&n->desc[i]->posted, n->epoch, memory_order_release);
  if (c->steps.steps[i].kind == COLLRT_STEP_SEND && !n->desc[i]->slot) {
    atomic_store_explicit(&n->desc[i]->ready, n->epoch, memory_order_release);
    collrt_ring(header(n->peer[local_index(n, c->steps.steps[i].peer)])->doorbell);
  }
  n->pending[n->npending++] = i;
}

/* One side's copy of part of a message: `pull`, the receiver reading the
 * sender's buffers into its own (process_vm_readv); otherwise the sender
 * writing its buffers into the receiver's (process_vm_writev). `peer` is
 * the other side's header: the addresses of its buffers. */
typedef struct mover {
  collrt_coll_t *c;
  const shm_header_t *peer;
  int mode, pull;
  struct iovec local[IOV_BATCH], remote[IOV_BATCH];
  int n;
  ssize_t want;
  int err; /* errno of a failed system call */
} mover_t;

static ssize_t vm_copy(mover_t *t, const struct iovec *local, const struct iovec *remote,
                       unsigned long n) {
  return t->pull ? process_vm_readv((pid_t)t->peer->pid, local, n, remote, n, 0)
                 : process_vm_writev((pid_t)t->peer->pid, local, n, remote, n, 0);
}

static void flush(mover_t *t) {
  if (!t->n || t->err)
    return;
  ssize_t got = vm_copy(t, t->local, t->remote, (unsigned long)t->n);
  if (got != t->want)
    t->err = got < 0 ? errno : EIO;
  t->n = 0;
  t->want = 0;
}

/* A copy whose destination lies a few bytes past its source modulo 4 KiB
 * would run the kernel's `rep movsb` at a fraction of its speed (copy.c):
 * it goes through a bounce buffer at the remote side's page offset instead,
 * two fast copies (2 ranks, collc-run's buffers 16 bytes apart modulo 4 KiB,
 * medians of 3 alternating runs: 256 KiB alltoall 64 us against 132 us
 * without it, 64 KiB 18 us against 33 us). Pulling, the kernel fills the
 * bounce buffer and collrt_copy empties it; pushing, the other way round. */
enum { BOUNCE_BYTES = 64 * 1024 };

static void move_bounced(mover_t *t, uint8_t *local, uint64_t remote, int64_t len) {
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
    uint8_t *b = page + ((remote + (uint64_t)done) & 4095u);
    struct iovec via = {b, chunk}, far = {(void *)(uintptr_t)(remote + (uint64_t)done), chunk};
    if (!t->pull)
      collrt_copy(b, local + done, chunk);
    ssize_t got = vm_copy(t, &via, &far, 1);
    if (got != (ssize_t)chunk) {
      t->err = got < 0 ? errno : EIO;
      return;
    }
    if (t->pull)
      collrt_copy(local + done, b, chunk);
    done += (int64_t)chunk;
  }
}

static void move_piece(void *ctx, uint8_t sbuf, int64_t soff, uint8_t dbuf, int64_t doff,
                       int64_t len) {
  mover_t *t = ctx;
  if (t->err)
    return; /* the batch is not flushed after an error: it must not grow */
  uint8_t *local = t->c->buf[t->pull ? dbuf : sbuf] + (t->pull ? doff : soff);
  uint64_t remote = t->peer->base[t->pull ? sbuf : dbuf] + (uint64_t)(t->pull ? soff : doff);
  if (t->mode == COLLRT_SHM_SAME_PROCESS) { /* only the receiver copies */
    collrt_copy(local, (const void *)(uintptr_t)remote, (size_t)len);
    return;
  }
  uintptr_t dst = t->pull ? (uintptr_t)local : (uintptr_t)remote;
  uintptr_t src = t->pull ? (uintptr_t)remote : (uintptr_t)local;
  if (collrt_copy_aliased(dst, src, (size_t)len) || (t->c->node.bounce_always && len > 0)) {
    move_bounced(t, local, remote, len);
    return;
  }
  t->local[t->n] = (struct iovec){local, (size_t)len};
  t->remote[t->n] = (struct iovec){(void *)(uintptr_t)remote, (size_t)len};
  t->want += len;
  if (++t->n == IOV_BATCH)
    flush(t);
}

/* Chunks: at least CHUNK_MIN bytes, at most CHUNKS_MAX a message
 * (COLLRT_SHM_CHUNK sets the size, for tests). A chunk is a system call
 * that pins its pages, which costs (2 ranks, medians of 5-9 alternated
 * runs, in us): an allgatherv of one 64 KiB contribution in one chunk
 * 14.0-14.5, two of 32 KiB 10.2-10.3, four of 16 KiB 12.2-12.6; of 1 MiB,
 * one chunk 225.1, two 171.9, four 160.9; but a 1 MiB alltoall, where both
 * ends are busy and nobody helps, one chunk 182.3, two 192.1 against 192.9
 * before, four 193.0-196.8 against 179.6-192.9. In one address space
 * (SMPI) the receiver copies alone, in one chunk. */
enum { CHUNK_MIN = 32 * 1024, CHUNKS_MAX = 2 };

/* A receive learns whether its sender helps: after a run in which it
 * copied every chunk itself (its sender was busy, as both ends of an
 * alltoall are), it copies in one chunk, asking for help again every
 * PROBE_EVERY runs (a chunk nobody helps with only adds a claim's
 * handshake). */
enum { PROBE_EVERY = 8 };

static int64_t chunk_bytes(const collrt_node_t *n, const collrt_shm_desc_t *d) {
  int64_t len = d->len > 0 ? d->len : 1;
  if (n->mode != COLLRT_SHM_CMA)
    return len;
  if (n->chunk_bytes > 0)
    return n->chunk_bytes;
  if (d->alone > 0 && n->epoch % PROBE_EVERY)
    return len;
  int64_t even = (len + CHUNKS_MAX - 1) / CHUNKS_MAX;
  return even > CHUNK_MIN ? even : CHUNK_MIN;
}

static uint64_t chunks_of(const collrt_shm_desc_t *d) {
  return (uint64_t)((d->len + d->chunk - 1) / d->chunk);
}

/* Copies chunk `k` of step `s`'s message (descriptor d, in the sender's
 * window): the receiver pulls, the sender pushes. */
static collrt_status_t move_chunk(collrt_coll_t *c, const collrt_step_t *s,
                                  const collrt_shm_desc_t *d, uint64_t k, collrt_diag_t *diag) {
  int pull = s->kind == COLLRT_STEP_RECV;
  void *w = c->node.peer[local_index(&c->node, s->peer)];
  void *sender = pull ? w : c->node.mine, *receiver = pull ? c->node.mine : w;
  mover_t t = {.c = c, .peer = header(w), .mode = c->node.mode, .pull = pull};
  collrt_region_t src = {segs(sender) + d->seg_begin, (uint32_t)d->nseg, {0, 0, 0}};
  collrt_region_t dst = {segs(receiver) + d->rseg_begin, (uint32_t)d->rnseg, {0, 0, 0}};
  int64_t from = (int64_t)k * d->chunk;
  int64_t len = d->len - from < d->chunk ? d->len - from : d->chunk;
  collrt_region_pairs(&src, &dst, from, len, move_piece, &t);
  flush(&t);
  if (t.err) {
    collrt_diag_set(diag, "rank %d: %s of %lld bytes %s rank %d (stmt %u) failed: %s", c->rank,
                    pull ? "process_vm_readv" : "process_vm_writev", (long long)len,
                    pull ? "from" : "to", s->peer, s->stmt, strerror(t.err));
    return COLLRT_ERR_MPI;
  }
#ifdef COLLRT_SMPI
  collrt_smpi_charge_copy(c, len);
#endif
  return COLLRT_OK;
}

/* Claims the next chunk of the message and copies it; *none when every
 * chunk is claimed. */
static collrt_status_t claim_chunk(collrt_coll_t *c, const collrt_step_t *s,
                                   collrt_shm_desc_t *d, int *none, collrt_diag_t *diag) {
  uint64_t k = atomic_fetch_add_explicit(&d->claimed, 1, memory_order_relaxed);
  if ((*none = k >= chunks_of(d)))
    return COLLRT_OK;
  collrt_status_t st = move_chunk(c, s, d, k, diag);
  if (st) { /* never counted as copied: the receiver fails instead of using it */
    atomic_store_explicit(&d->failed, c->node.epoch, memory_order_release);
    return st;
  }
  ++*(s->kind == COLLRT_STEP_RECV ? &c->node.pulled : &c->node.pushed);
  atomic_fetch_add_explicit(&d->copied, 1, memory_order_release);
  return COLLRT_OK;
}

/* Eager: the sender copies its message into its slot and offers it
 * (ready = e); the receiver copies it out (done = e). The sender may fill
 * the slot again once the receiver took its last offer (done == ready), or
 * has started a later run (posted > ready: after an abandoned run it never
 * will), so its SEND completes as soon as the bytes are in the slot. */
static void eager_copy(collrt_coll_t *c, const collrt_step_t *s, uint8_t *slot, int out) {
  collrt_region_t r;
  if (out)
    collrt_step_source(&c->steps, s, &r);
  else
    collrt_step_dest(&c->steps, s, &r);
  const collrt_seg_t *seg = r.nsegs ? r.segs : &r.whole;
  for (uint32_t k = 0, n = r.nsegs ? r.nsegs : 1; k < n; ++k) {
    uint8_t *buf = c->buf[seg[k].buf] + seg[k].off;
    collrt_copy(out ? slot : buf, out ? buf : slot, (size_t)seg[k].len);
    slot += seg[k].len;
  }
}

static int eager_send(collrt_coll_t *c, const collrt_step_t *s, collrt_shm_desc_t *d) {
  collrt_node_t *n = &c->node;
  uint64_t offered = atomic_load_explicit(&d->ready, memory_order_relaxed);
  if (atomic_load_explicit(&d->done, memory_order_acquire) != offered &&
      atomic_load_explicit(&d->posted, memory_order_acquire) <= offered)
    return 0;
  eager_copy(c, s, (uint8_t *)n->mine + d->slot, 1);
  atomic_store_explicit(&d->ready, n->epoch, memory_order_release);
  collrt_ring(header(n->peer[local_index(n, s->peer)])->doorbell);
  return 1;
}

static int eager_receive(collrt_coll_t *c, const collrt_step_t *s, collrt_shm_desc_t *d) {
  collrt_node_t *n = &c->node;
  void *w = n->peer[local_index(n, s->peer)];
  if (atomic_load_explicit(&d->ready, memory_order_acquire) != n->epoch)
    return 0;
  eager_copy(c, s, (uint8_t *)w + d->slot, 0);
  atomic_store_explicit(&d->done, n->epoch, memory_order_release);
  collrt_ring(header(w)->doorbell);
  return 1;
}

/* A receive whose data is ready: opens the message to its sender's help
 * (once an epoch), copies chunks until none is left (*pulled: any), and is
 * done once every chunk, its own and the sender's, is copied. */
static collrt_status_t receive(collrt_coll_t *c, const collrt_step_t *s, collrt_shm_desc_t *d,
                               int *done, int *pulled, collrt_diag_t *diag) {
  collrt_node_t *n = &c->node;
  if (atomic_load_explicit(&d->open, memory_order_relaxed) != n->epoch) {
    d->chunk = chunk_bytes(n, d);
    d->pulled = 0;
    atomic_store_explicit(&d->claimed, 0, memory_order_relaxed);
    atomic_store_explicit(&d->copied, 0, memory_order_relaxed);
    atomic_store_explicit(&d->open, n->epoch, memory_order_release);
  }
  collrt_status_t st;
  int none = n->push_only && n->mode == COLLRT_SHM_CMA;
  while (!none) {
    if ((st = claim_chunk(c, s, d, &none, diag)))
      return st;
    *pulled |= !none;
    d->pulled += !none;
  }
  *done = atomic_load_explicit(&d->copied, memory_order_acquire) == chunks_of(d);
  if (!*done && atomic_load_explicit(&d->failed, memory_order_acquire) == n->epoch) {
    collrt_diag_set(diag, "rank %d: rank %d failed to copy its part of a %d-byte message (stmt %u) into this rank's buffer; see its diagnostic",
                    c->rank, s->peer, s->len, s->stmt);
    return COLLRT_ERR_MPI;
  }
  if (*done) {
    if (chunks_of(d) > 1)
      d->alone = d->pulled == (int64_t)chunks_of(d) ? d->alone + 1 : 0;
    atomic_store_explicit(&d->done, n->epoch, memory_order_release);
    collrt_ring(header(n->peer[local_index(n, s->peer)])->doorbell);
  }
  return COLLRT_OK;
}

/* Pending step k's descriptor if the step is a `kind` copied in chunks
 * and its receiver opened it in this run; else NULL. */
static collrt_shm_desc_t *opened(const collrt_coll_t *c, int k, int kind) {
  const collrt_node_t *n = &c->node;
  collrt_shm_desc_t *d = n->desc[n->pending[k]];
  return c->steps.steps[n->pending[k]].kind == kind && !d->slot &&
                 atomic_load_explicit(&d->open, memory_order_acquire) == n->epoch
             ? d
             : NULL;
}

/* An idle sender (no copy of its own under way, nothing pulled in this
 * pass) copies one chunk of a send whose receiver has opened it. Helping
 * only when idle keeps a busy rank to its own work: in a 2-rank alltoall
 * both ends are busy, and helping each other there cost 4-6% at 1 MiB. */
static collrt_status_t help(collrt_coll_t *c, int *moved, collrt_diag_t *diag) {
  collrt_node_t *n = &c->node;
  for (int k = 0; k < n->npending; ++k) {
    const collrt_step_t *s = &c->steps.steps[n->pending[k]];
    collrt_shm_desc_t *d = opened(c, k, COLLRT_STEP_SEND);
    if (!d)
      continue;
    int none;
    collrt_status_t st = claim_chunk(c, s, d, &none, diag);
    if (st || !none) {
      *moved = 1;
      collrt_ring(header(n->peer[local_index(n, s->peer)])->doorbell);
      return st;
    }
  }
  return COLLRT_OK;
}

collrt_status_t collrt_shm_progress(collrt_coll_t *c, int trace, int *moved,
                                    collrt_diag_t *diag) {
  collrt_node_t *n = &c->node;
  int pulled = 0;
  for (int k = 0; k < n->npending;) {
    uint32_t i = n->pending[k];
    const collrt_step_t *s = &c->steps.steps[i];
    collrt_shm_desc_t *d = n->desc[i];
    int done = 0;
    if (d->slot) {
      done = s->kind == COLLRT_STEP_SEND ? eager_send(c, s, d) : eager_receive(c, s, d);
    } else if (s->kind == COLLRT_STEP_SEND) {
      done = atomic_load_explicit(&d->done, memory_order_acquire) == n->epoch;
    } else if (atomic_load_explicit(&d->ready, memory_order_acquire) == n->epoch) {
      collrt_status_t st = receive(c, s, d, &done, &pulled, diag);
      if (st)
        return st;
    }
    if (!done) {
      ++k;
      continue;
    }
    collrt_engine_complete(c, i, trace);
    n->pending[k] = n->pending[--n->npending];
    *moved = 1;
  }
  *moved |= pulled;
  if (n->mode != COLLRT_SHM_CMA || c->ncopying || pulled)
    return COLLRT_OK;
  return help(c, moved, diag);
}

void collrt_shm_abandon(collrt_coll_t *c) {
  collrt_node_t *n = &c->node;
  for (int k = 0; k < n->npending; ++k) {
    collrt_shm_desc_t *d = opened(c, k, COLLRT_STEP_RECV);
    if (!d)
      continue;
    /* no more claims; then wait for the chunks the sender is copying into
     * this rank's buffer, which the application may reuse once we return */
    uint64_t claimed = atomic_exchange_explicit(&d->claimed, UINT64_MAX / 2, memory_order_relaxed);
    uint64_t busy = claimed < chunks_of(d) ? claimed : chunks_of(d);
    while (atomic_load_explicit(&d->copied, memory_order_acquire) < busy &&
           atomic_load_explicit(&d->failed, memory_order_acquire) != n->epoch)
      sched_yield();
  }
  n->npending = 0;
}

uint64_t collrt_node_bell(collrt_node_t *n) {
  if (!n->bell)
    n->bell = doorbell_new();
  return n->bell;
}

void collrt_node_bell_free(collrt_node_t *n) {
  doorbell_free(n->bell);
  n->bell = 0;
}

void collrt_shm_idle(collrt_coll_t *c) {
#ifdef COLLRT_SMPI
  /* a waiting rank must let simulated time pass, or the clock stops while
   * it polls (SimGrid only advances time when every actor blocks). With
   * nothing in MPI, it sleeps on its doorbell until a peer sets a flag;
   * with MPI requests too, it wakes for either, polling MPI every 0.2 us
   * (SimGrid skips waits shorter than its precision, 1e-7 s in bench/smpi,
   * so a shorter sleep would not let the date move). */
  sg_sem_t bell = (sg_sem_t)(uintptr_t)collrt_node_bell(&c->node);
  if (!c->nactive && !c->ncopying)
    sg_sem_acquire(bell);
  else
    sg_sem_acquire_timeout(bell, 2e-7);
#else
  (void)c;
  sched_yield();
#endif
}

/* The progress engine: issues steps under the FIFO rules with MPI_Isend /
 * MPI_Irecv on each FIFO's communicator (or through node shared memory,
 * shm.c, for a pair on one node), performs copies, and completes requests
 * with MPI_Testsome, or MPI_Waitsome under the `block` idle policy.
 *
 * Per pass the work is proportional to what is in flight on this rank, never
 * to P: the queues are scanned per FIFO (2 * nfifos heads), completions are
 * compacted in one linear sweep over the active requests, no sorting. Copies
 * up to one chunk (copy_chunk_bytes: 64 KiB, or its time under SMPI) are done when
 * issued (a chain of small steps pays no bookkeeping for them); larger ones
 * chunk by chunk with a poll in between, so a rank copying its own block
 * keeps its messages moving (MPI progresses a rendezvous transfer only
 * inside MPI calls). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"
#include "diag.h"
#include "env.h"

#ifdef COLLRT_SMPI
#include <time.h>
#include <smpi/smpi_helpers_internal.h> /* smpi_nanosleep: simulated sleep */
#endif

enum { COPY_INLINE = 64 * 1024, SPIN_POLLS_PER_YIELD = 1024 };

#ifdef COLLRT_SMPI
#define COLLRT_SMPI_ENGINE_LOCAL 1
#else
#define COLLRT_SMPI_ENGINE_LOCAL 0
#endif

#ifdef COLLRT_SMPI
/* SimGrid SMPI only (the build's one seam, COLLRT_SMPI): eager sends.
 *
 * SMPI "detaches" every send below smpi/send-is-detached-thresh (64 KiB by
 * default): the request completes at once and the receiver is charged
 * smpi/or per message. SimGrid 3.32 keeps every detached communication of
 * the whole simulation in one std::list (CommImpl::detach() appends it to
 * the maestro's activities_) and CommImpl::finish() removes it with
 * std::list::remove, a scan of the entire list, twice per message (when the
 * transfer ends and when the receiver tests it). Since a detached send never
 * occupies its FIFO's window, a direct plan posts all P-1 of its sends at
 * once: the list holds ~P^2 messages, each message costs O(P^2) and an
 * alltoall O(P^4) of wall time (512 ranks: hours). Simulated time is not
 * affected, only the simulator's own cost.
 *
 * With COLLRT_SMPI_OR_US set (bench/smpi/run sets it to the platform's
 * smpi/or, i.e. alpha, in microseconds), a send below COLLRT_SMPI_EAGER
 * bytes is posted with MPI_Issend instead: never detached, so it stays in
 * flight (and in its FIFO's window) until delivered, and the list stays
 * empty; the receiver's per-message overhead that SMPI no longer charges is
 * charged here, by a simulated sleep of COLLRT_SMPI_OR_US per such message
 * received, right after the MPI call that completed it (where SMPI's
 * finish_wait sleeps). Without it the engine posts MPI_Isend as on MPICH. */
enum { COLLRT_SMPI_EAGER = 65536 }; /* SMPI's default detached threshold */
static int smpi_eager_mode = -1;    /* -1: COLLRT_SMPI_OR_US not read yet */
static double smpi_or_s;            /* seconds charged per eager message */

static int smpi_issend_eager(void) {
  if (smpi_eager_mode < 0) {
    const char *v = getenv("COLLRT_SMPI_OR_US");
    smpi_eager_mode = v && *v;
    smpi_or_s = smpi_eager_mode ? strtod(v, NULL) * 1e-6 : 0;
  }
  return smpi_eager_mode;
}

/* Spends `seconds` of simulated time: with smpi/simulate-computation:no a
 * rank's own work costs none unless it says so. */
static void charge_sleep(double seconds) {
  if (seconds <= 0)
    return;
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  smpi_nanosleep(&ts, NULL);
}

void collrt_smpi_charge_copy(const collrt_coll_t *c, int64_t len) {
  charge_sleep((double)len * c->node.copy_ps_per_byte * 1e-12);
}

/* Charges the receive overhead of `n` eager messages (simulated time). */
static void smpi_charge_or(int n) {
  if (n > 0)
    charge_sleep(n * smpi_or_s);
}
#endif

static collrt_status_t mpi_fail(collrt_diag_t *diag, int rc, const char *what,
                                const collrt_step_t *s) {
  char msg[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(rc, msg, &n);
  if (s)
    collrt_diag_set(diag, "%s (peer %d, %lld bytes, fifo %u, tag %d, stmt %u) failed: %s",
                    what, s->peer, (long long)s->len, s->fifo, s->tag, s->stmt, msg);
  else
    collrt_diag_set(diag, "%s failed: %s", what, msg);
  return COLLRT_ERR_MPI;
}

void collrt_engine_complete(collrt_coll_t *c, uint32_t step, int trace) {
  collrt_fq_complete(&c->fq, step);
  if (trace)
    c->t_done[step] = MPI_Wtime();
}

static void copy_piece(void *ctx, uint8_t sbuf, int64_t soff, uint8_t dbuf, int64_t doff,
                       int64_t len) {
  collrt_coll_t *c = ctx;
  collrt_copy(c->buf[dbuf] + doff, c->buf[sbuf] + soff, (size_t)len);
}

/* Moves bytes [done, done + n) of copy step `s`, gathered or not. Under
 * SMPI (simulate-computation off) the copy also takes its time: n bytes at
 * the plan's gamma, as simulate.c and the cost model charge it, and as
 * shm.c charges a copy between the ranks of a node. */
static void copy_bytes(collrt_coll_t *c, const collrt_step_t *s, int64_t done, int64_t n) {
  if (!s->nsrc && !s->ndst) {
    copy_piece(c, s->buf, s->off + done, s->dst_buf, s->dst_off + done, n);
  } else {
    collrt_region_t src, dst;
    collrt_step_source(&c->steps, s, &src);
    collrt_step_dest(&c->steps, s, &dst);
    collrt_region_pairs(&src, &dst, done, n, copy_piece, c);
  }
#ifdef COLLRT_SMPI
  collrt_smpi_charge_copy(c, n);
#endif
}

/* The bytes of a copy between two polls: COPY_INLINE, about 6.5 us of
 * memcpy on a node that copies 10 GB/s, so that a rank copying a large
 * block still answers its completions. Under SMPI a byte costs the plan's
 * gamma instead, and the chunk is the bytes of the same 6.5 us at that rate
 * (4 KiB at 1.6 ns/B): a rank sleeping through a long simulated copy would
 * leave its links idle, unanswered (docs/smpi.md). */
void collrt_engine_set_gamma(collrt_coll_t *c, uint32_t ps_per_byte) {
  c->node.copy_ps_per_byte = ps_per_byte;
  c->copy_chunk_bytes = COPY_INLINE;
#ifdef COLLRT_SMPI
  enum { NODE_PS_PER_BYTE = 100, MIN_CHUNK = 256 };
  if (ps_per_byte > NODE_PS_PER_BYTE) {
    int64_t n = (int64_t)COPY_INLINE * NODE_PS_PER_BYTE / ps_per_byte;
    c->copy_chunk_bytes = n < MIN_CHUNK ? MIN_CHUNK : n;
  }
  /* a measurement knob: how much a rank asleep in its copy delays the
   * messages it would have answered (docs/smpi.md) */
  const char *bytes = getenv("COLLRT_COPY_CHUNK");
  if (bytes && atoll(bytes) > 0)
    c->copy_chunk_bytes = atoll(bytes);
#endif
}

/* Advances every large copy under way by one chunk. */
static void advance_copies(collrt_coll_t *c, int trace) {
  for (int k = 0; k < c->ncopying;) {
    uint32_t i = c->copy_step[k];
    const collrt_step_t *s = &c->steps.steps[i];
    int64_t done = c->copy_done[k], chunk = c->copy_chunk_bytes;
    int64_t n = s->len - done < chunk ? s->len - done : chunk;
    copy_bytes(c, s, done, n);
    c->copy_done[k] = done + n;
    if (c->copy_done[k] < s->len) {
      ++k;
      continue;
    }
    collrt_engine_complete(c, i, trace);
    --c->ncopying;
    c->copy_step[k] = c->copy_step[c->ncopying];
    c->copy_done[k] = c->copy_done[c->ncopying];
  }
}

/* Starts step i: a copy (an inline one completes at once), a transfer
 * through node shared memory, or an MPI request. */
static collrt_status_t start_step(collrt_coll_t *c, uint32_t i, int trace, collrt_diag_t *diag) {
  const collrt_step_t *s = &c->steps.steps[i];
  if (s->kind == COLLRT_STEP_REDUCE) {
    /* at once: the combine is one pass over both regions (reduce.c) */
    collrt_reduce_apply(s->rop, s->rtype, c->buf[s->dst_buf] + s->dst_off, c->buf[s->buf] + s->off,
                        (size_t)s->len / collrt_reduce_type_size(s->rtype));
#ifdef COLLRT_SMPI
    collrt_smpi_charge_copy(c, s->len);
#endif
    collrt_engine_complete(c, i, trace);
    return COLLRT_OK;
  }
  if (s->kind == COLLRT_STEP_COPY) {
    if (s->len <= c->copy_chunk_bytes) {
      copy_bytes(c, s, 0, s->len);
      collrt_engine_complete(c, i, trace);
    } else {
      c->copy_step[c->ncopying] = i;
      c->copy_done[c->ncopying++] = 0;
    }
    return COLLRT_OK;
  }
  if (c->node.desc && c->node.desc[i]) { /* between ranks of one node */
    collrt_shm_issue(c, i);
    return COLLRT_OK;
  }
  {
    int rc;
    MPI_Request *r = &c->reqs[c->nactive];
    /* a gathered message goes through its datatype, built at bind, unless
     * it folds (timing only, coll_internal.h): then bind built none */
    void *base;
    int count = (int)s->len;
    MPI_Datatype type = MPI_BYTE;
    if (collrt_gathered_folds(c, s))
      base = c->buf[COLLRT_BUF_SCRATCH];
    else if (s->nsrc) {
      base = MPI_BOTTOM;
      count = 1;
      type = c->dtype[i];
    } else
      base = c->buf[s->buf] + s->off;
    if (s->kind == COLLRT_STEP_SEND) {
#ifdef COLLRT_SMPI
      if (s->len < COLLRT_SMPI_EAGER && smpi_issend_eager())
        rc = MPI_Issend(base, count, type, s->peer, s->tag + c->fifo_tag[s->fifo],
                        c->fifo_comm[s->fifo], r);
      else
#endif
        rc = MPI_Isend(base, count, type, s->peer, s->tag + c->fifo_tag[s->fifo],
                       c->fifo_comm[s->fifo], r);
    } else
      rc = MPI_Irecv(base, count, type, s->peer, s->tag + c->fifo_tag[s->fifo],
                     c->fifo_comm[s->fifo], r);
    if (rc != MPI_SUCCESS)
      return mpi_fail(diag, rc, s->kind == COLLRT_STEP_SEND ? "MPI_Isend" : "MPI_Irecv", s);
    c->req_step[c->nactive++] = i;
  }
  return COLLRT_OK;
}

/* Starts every step the queues allow (an inline copy completes at once and
 * may release more); *issued = 1 if any started. The node arena takes its
 * NOTIFYs and AWAITs, and holds arena steps until the node finished its
 * last run (arena.c). */
static collrt_status_t issue_ready(collrt_coll_t *c, int trace, int *issued,
                                   collrt_diag_t *diag) {
  size_t i;
  *issued = 0;
  while (collrt_fq_next(&c->fq, &i)) {
    *issued = 1;
    if (trace)
      c->t_issue[i] = MPI_Wtime();
    if (collrt_arena_issue(c, (uint32_t)i, trace))
      continue;
    collrt_status_t st = start_step(c, (uint32_t)i, trace, diag);
    if (st)
      return st;
  }
  return COLLRT_OK;
}

/* Something waits on a flag another rank of the node sets in shared
 * memory, which MPI does not know of: a shared-memory transfer, an AWAIT,
 * or the arena's gate. */
static int node_waiting(const collrt_coll_t *c) {
  return c->node.npending || collrt_arena_waits_on_node(c);
}

/* Completes finished requests: MPI_Waitsome if `block` (at least one
 * completes), else MPI_Testsome. MPI sets finished entries to
 * MPI_REQUEST_NULL; one sweep drops them, keeping the rest in order. */
static collrt_status_t complete_requests(collrt_coll_t *c, int block, int trace,
                                         int *completed, collrt_diag_t *diag) {
  int n = 0;
  int rc = block ? MPI_Waitsome(c->nactive, c->reqs, &n, c->indices, c->statuses)
                 : MPI_Testsome(c->nactive, c->reqs, &n, c->indices, c->statuses);
  *completed = 0;
  if (rc != MPI_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "%s over %d requests", block ? "MPI_Waitsome" : "MPI_Testsome",
             c->nactive);
    return mpi_fail(diag, rc, what, NULL);
  }
  if (n == MPI_UNDEFINED || n == 0)
    return COLLRT_OK;
  *completed = 1;
#ifdef COLLRT_SMPI
  int eager_recvs = 0;
#endif
  for (int k = 0; k < n; ++k) {
    uint32_t i = c->req_step[c->indices[k]];
    const collrt_step_t *s = &c->steps.steps[i];
#ifdef COLLRT_SMPI
    eager_recvs += s->kind == COLLRT_STEP_RECV && s->len < COLLRT_SMPI_EAGER;
#else
    /* A shorter message than the plan expects means the ranks' counts
     * disagree (a longer one MPI reports as truncation): an error here,
     * not wrong bytes or a peer waiting for more. */
    if (s->kind == COLLRT_STEP_RECV && !s->nsrc) {
      int got = 0;
      MPI_Get_count(&c->statuses[k], MPI_BYTE, &got);
      if (got != s->len) {
        collrt_diag_set(diag, "rank %d received %d bytes from rank %d where its plan expects %lld (fifo %u, tag %d, stmt %u): the ranks' counts disagree",
                        c->rank, got, s->peer, (long long)s->len, s->fifo, s->tag, s->stmt);
        return COLLRT_ERR_COUNTS;
      }
    }
#endif
    collrt_engine_complete(c, i, trace);
  }
#ifdef COLLRT_SMPI
  if (smpi_issend_eager())
    smpi_charge_or(eager_recvs);
#endif
  int kept = 0;
  for (int k = 0; k < c->nactive; ++k)
    if (c->reqs[k] != MPI_REQUEST_NULL) {
      c->reqs[kept] = c->reqs[k];
      c->req_step[kept++] = c->req_step[k];
    }
  c->nactive = kept;
  return COLLRT_OK;
}

/* A rank with steps left, none in flight and none startable can never
 * finish: say which step holds it instead of waiting forever. */
static collrt_status_t stalled(collrt_coll_t *c, collrt_diag_t *diag) {
  size_t left = c->fq.nsteps - c->fq.ndone, first = 0;
  while (first < c->fq.nsteps && c->fq.state[first] == COLLRT_FQ_DONE)
    ++first;
  const collrt_step_t *s = &c->steps.steps[first];
  collrt_diag_set(diag, "rank %d stalled with %zu steps left and none in flight; step %zu (stmt %u, fifo %u) waits on %u steps, the first step %d",
                  c->rank, left, first, s->stmt, s->fifo, s->ndeps,
                  s->ndeps ? (int)c->steps.deps[s->dep_begin] : -1);
  return COLLRT_ERR_DEADLOCK;
}

/* One pass: start what may start, move large copies, complete requests.
 * With `block`, waits in MPI when nothing else can move. */
static collrt_status_t pass(collrt_coll_t *c, int block, int *progressed,
                            collrt_diag_t *diag) {
  int trace = (c->flags & COLLRT_BIND_TRACE) != 0, issued = 0, completed = 0;
  collrt_status_t st = issue_ready(c, trace, &issued, diag);
  if (st)
    return st;
  int copied = c->ncopying > 0, shm_moved = 0;
  if (copied)
    advance_copies(c, trace);
  if (c->node.npending && (st = collrt_shm_progress(c, trace, &shm_moved, diag)))
    return st;
  if (collrt_arena_waiting(c) &&
      (st = collrt_arena_progress(c, trace, &shm_moved, start_step, diag)))
    return st;
  if (c->nactive) {
    /* Block only when this pass moved nothing: a copy or shared-memory
     * transfer that just completed may have released steps that the next
     * pass issues (blocking first could wait for a message whose sender
     * waits for those). Never block while a copy has chunks to move, nor
     * while a shared-memory transfer waits on a flag MPI does not know of. */
    int idle = !copied && !shm_moved && !c->ncopying && !node_waiting(c);
    st = complete_requests(c, block && idle, trace, &completed, diag);
    if (st)
      return st;
  } else if (!copied && !shm_moved && !node_waiting(c) && !collrt_fq_done(&c->fq) && !issued) {
    return stalled(c, diag);
  }
  *progressed = issued || copied || completed || shm_moved;
  return COLLRT_OK;
}

/* Cancels and frees whatever an abandoned run left posted, so that a new
 * start begins with nothing in flight on the FIFO communicators. */
void collrt_engine_abandon(collrt_coll_t *c) {
  for (int k = 0; k < c->nactive; ++k)
    if (c->reqs[k] != MPI_REQUEST_NULL) {
      MPI_Cancel(&c->reqs[k]);
      MPI_Request_free(&c->reqs[k]);
    }
  c->nactive = 0;
  c->ncopying = 0;
  collrt_shm_abandon(c);
  if (c->running)
    collrt_arena_abandon(c);
  c->running = 0;
}

/* ---- The process's progress engine ----
 *
 * MPI lets a program start several collectives and complete them in any
 * order (persistent, nonblocking), and the ranks may complete them in
 * different orders: rank 0 waits on A then B, rank 1 on B then A. If a wait
 * advanced only its own collective, rank 0 would wait in A for messages
 * that rank 1 sends only once B has finished, and B never moves on rank 0.
 * So every started collective is on one list, and every call into the
 * engine (start, test, wait, collrt_progress) advances all of them; a run
 * that finishes while the engine serves another call keeps its outcome
 * until its own test or wait reports it.
 *
 * Under SimGrid SMPI every simulated rank is a thread of one process, and a
 * list shared by them would let one rank's wait make another rank's MPI
 * calls: there each call advances its own collective only. */
#include <pthread.h>

/* Under SMPI the simulated ranks switch inside MPI calls on one thread: a
 * lock held across them would be taken twice by that thread. */
#if COLLRT_SMPI_ENGINE_LOCAL
#define engine_lock() ((void)0)
#define engine_unlock() ((void)0)
#else
static pthread_mutex_t started_lock = PTHREAD_MUTEX_INITIALIZER;
#define engine_lock() pthread_mutex_lock(&started_lock)
#define engine_unlock() pthread_mutex_unlock(&started_lock)
#endif
static collrt_coll_t *started_head;
static int started_count;

static void started_link(collrt_coll_t *c) {
  if (COLLRT_SMPI_ENGINE_LOCAL || c->on_started_list)
    return;
  c->started_prev = NULL;
  c->started_next = started_head;
  if (started_head)
    started_head->started_prev = c;
  started_head = c;
  c->on_started_list = 1;
  ++started_count;
}

static void started_unlink(collrt_coll_t *c) {
  if (!c->on_started_list)
    return;
  if (c->started_prev)
    c->started_prev->started_next = c->started_next;
  else
    started_head = c->started_next;
  if (c->started_next)
    c->started_next->started_prev = c->started_prev;
  c->started_prev = c->started_next = NULL;
  c->on_started_list = 0;
  --started_count;
}

/* COLLRT_TIMEOUT (seconds, > 0): how long a wait lets a collective make no
 * progress before it reports what it waits on and fails; 0 = forever. */
static double timeout_seconds(void) {
  static double cached = -1;
  if (cached < 0) {
    /* a malformed value failed bind already (collrt_env_check_all) */
    double t = 0;
    cached = collrt_env_double("COLLRT_TIMEOUT", &t, NULL) == COLLRT_OK && t > 0 ? t : 0;
  }
  return cached;
}

/* A run ended: off the list, its outcome kept for its own test/wait. */
static void finish_run(collrt_coll_t *c, collrt_status_t st, const collrt_diag_t *diag) {
  started_unlink(c);
  if (st) {
    collrt_engine_abandon(c);
    c->outcome = COLLRT_OUTCOME_FAILED;
    c->failure = st;
    if (diag)
      c->failure_diag = *diag;
    else
      collrt_diag_set(&c->failure_diag, "%s", collrt_strerror(st));
  } else {
    collrt_arena_finish(c);
    c->running = 0;
    c->outcome = COLLRT_OUTCOME_DONE;
  }
}

/* One pass over one running collective; ends its run when it finishes or
 * fails. *progressed says whether anything moved. */
static void advance(collrt_coll_t *c, int block, int *progressed) {
  collrt_diag_t diag; /* written only on failure: not cleared per call */
  diag.message[0] = 0;
  int moved = 0;
  collrt_status_t st = pass(c, block, &moved, &diag);
  *progressed = moved;
  if (st) {
    finish_run(c, st, &diag);
    *progressed = 1;
    return;
  }
  if (moved && timeout_seconds()) /* the clock is read only for a timeout */
    c->last_progress = MPI_Wtime();
  if (collrt_fq_done(&c->fq)) {
    finish_run(c, COLLRT_OK, NULL);
    *progressed = 1;
  }
}

/* One pass over every running collective of the process (or, under SMPI,
 * over `self` alone). Returns whether anything moved. */
static int advance_all(collrt_coll_t *self) {
  int any = 0, moved = 0;
  if (COLLRT_SMPI_ENGINE_LOCAL || !started_count) {
    if (self && self->running && !self->outcome) {
      advance(self, 0, &moved);
      any |= moved;
    }
    return any;
  }
  for (collrt_coll_t *c = started_head, *next; c; c = next) {
    next = c->started_next; /* advance may unlink c */
    advance(c, 0, &moved);
    any |= moved;
  }
  return any;
}

collrt_status_t collrt_progress(collrt_diag_t *diag) {
  (void)diag;
  engine_lock();
  while (advance_all(NULL))
    ;
  engine_unlock();
  return COLLRT_OK;
}

int collrt_running_count(void) {
  engine_lock();
  int n = started_count;
  engine_unlock();
  return n;
}

collrt_status_t collrt_start(collrt_coll_t *c, collrt_diag_t *diag) {
  if (!c) {
    collrt_diag_set(diag, "collrt_start: coll is NULL");
    return COLLRT_ERR_ARG;
  }
  if (c->running || c->outcome) {
    collrt_diag_set(diag, "collrt_start: the collective is already started and its completion has not been seen by collrt_test or collrt_wait");
    return COLLRT_ERR_STATE;
  }
  collrt_status_t st = collrt_arena_start(c, diag);
  if (st)
    return st;
  /* MPI_IN_PLACE (bind.c): the send side is what the receive buffer holds
   * now */
  if (c->in_place_bytes)
    memcpy(c->in_place, c->buf[COLLRT_BUF_RECV], (size_t)c->in_place_bytes);
  collrt_fq_reset(&c->fq);
  c->nactive = 0;
  c->ncopying = 0;
  c->node.npending = 0;
  c->node.epoch++; /* every rank counts its starts alike: the flags' value */
  c->running = 1;
  c->outcome = COLLRT_OUTCOME_NONE;
  /* only a timeout and a trace need the clock */
  c->last_progress = timeout_seconds() || (c->flags & COLLRT_BIND_TRACE) ? MPI_Wtime() : 0;
  if (c->flags & COLLRT_BIND_TRACE)
    c->t_start = c->last_progress;
  engine_lock();
  started_link(c);
  /* post the first window now, so that a program that starts several
   * collectives and then computes already has their messages moving */
  int moved = 0;
  advance(c, 0, &moved);
  engine_unlock();
  return COLLRT_OK;
}

static collrt_status_t check_started(collrt_coll_t *c, const void *out, collrt_diag_t *diag) {
  if (!c || !out) {
    collrt_diag_set(diag, "collrt_test/wait: %s is NULL", c ? "out_done" : "coll");
    return COLLRT_ERR_ARG;
  }
  if (!c->running && !c->outcome) {
    collrt_diag_set(diag, "collrt_test/wait: the collective was not started (call collrt_start first)");
    return COLLRT_ERR_STATE;
  }
  return COLLRT_OK;
}

/* Reports a finished run once: its outcome is consumed. */
static collrt_status_t report(collrt_coll_t *c, int *done, collrt_diag_t *diag) {
  int outcome = c->outcome;
  c->outcome = COLLRT_OUTCOME_NONE;
  if (outcome == COLLRT_OUTCOME_FAILED) {
    if (diag)
      *diag = c->failure_diag;
    return c->failure;
  }
  *done = 1;
  return COLLRT_OK;
}

/* COLLRT_TIMEOUT passed with no progress: say, on this rank, which steps
 * the run waits on, and fail it (never wait forever on a peer that does not
 * come). */
static collrt_status_t timed_out(collrt_coll_t *c, double waited, collrt_diag_t *diag) {
  char list[400];
  size_t len = 0;
  int shown = 0;
  list[0] = 0;
  for (int k = 0; k < c->nactive && shown < 4 && len + 96 < sizeof list; ++k, ++shown) {
    const collrt_step_t *s = &c->steps.steps[c->req_step[k]];
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %lld B %s peer %d (fifo %u, tag %d, stmt %u)",
                            shown ? "; " : "", s->kind == COLLRT_STEP_SEND ? "send" : "receive",
                            (long long)s->len, s->kind == COLLRT_STEP_SEND ? "to" : "from",
                            s->peer, s->fifo, s->tag, s->stmt);
  }
  size_t left = c->fq.nsteps - c->fq.ndone;
  collrt_diag_set(diag, "rank %d: no progress for %.1f s (COLLRT_TIMEOUT); %zu steps left, %d MPI transfers in flight%s%s%s; a peer has not called this collective, or the ranks' arguments disagree",
                  c->rank, waited, left, c->nactive, c->nactive ? ": " : "", list,
                  c->node.npending ? ", and transfers over node shared memory" : "");
  fprintf(stderr, "collrt: %s\n", diag ? diag->message : "timeout");
  return COLLRT_ERR_TIMEOUT;
}

collrt_status_t collrt_test(collrt_coll_t *c, int *out_done, collrt_diag_t *diag) {
  collrt_status_t st = check_started(c, out_done, diag);
  if (st)
    return st;
  *out_done = 0;
  engine_lock();
  while (c->running && !c->outcome && advance_all(c))
    ;
  engine_unlock();
  return c->outcome ? report(c, out_done, diag) : COLLRT_OK;
}

/* Whether the process may wait inside MPI for this collective alone: it is
 * the only one running, and no other thread can start one meanwhile. */
static int may_block(const collrt_coll_t *c) {
  if (started_count > 1 || (started_count == 1 && started_head != c))
    return 0;
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level != MPI_THREAD_MULTIPLE;
}

collrt_status_t collrt_wait(collrt_coll_t *c, collrt_diag_t *diag) {
  int done = 0;
  collrt_status_t st = check_started(c, &done, diag);
  if (st)
    return st;
  collrt_wait_policy_t policy = c->wait_policy;
  double limit = timeout_seconds();
  unsigned idle = 0;
  engine_lock();
  while (c->running && !c->outcome) {
    int moved;
    if (policy == COLLRT_WAIT_BLOCK && !limit && may_block(c))
      advance(c, 1, &moved);
    else
      moved = advance_all(c);
    if (moved || c->outcome) {
      idle = 0;
      continue;
    }
    if (limit) {
      double waited = MPI_Wtime() - c->last_progress;
      if (waited > limit) {
        collrt_diag_t why = {{0}};
        finish_run(c, timed_out(c, waited, &why), &why);
        break;
      }
    }
    /* between idle passes let other threads in; spin still yields now and
     * then (as MPICH's own wait does), so a rank that shares its core with
     * another process cannot starve it for long; a flag in shared memory
     * cannot be waited on in MPI, so yield and block wait on it by yielding
     * (under SMPI: by letting simulated time pass) */
    engine_unlock();
    if (node_waiting(c) && policy != COLLRT_WAIT_SPIN)
      collrt_shm_idle(c);
    else if (policy == COLLRT_WAIT_YIELD || (++idle % SPIN_POLLS_PER_YIELD) == 0)
      sched_yield();
    engine_lock();
  }
  engine_unlock();
  return report(c, &done, diag);
}

/* Drops a collective from the engine (collrt_coll_free). */
void collrt_engine_forget(collrt_coll_t *c) {
  engine_lock();
  started_unlink(c);
  engine_unlock();
}

collrt_wait_policy_t collrt_coll_wait_policy(const collrt_coll_t *c) {
  return c ? c->wait_policy : COLLRT_WAIT_AUTO;
}

/* What carries this rank's messages: the node's shared-memory mode and its
 * steps (shm.c decided them at bind and fills them in, collrt_shm_transport),
 * and the message steps that go as contiguous bytes of the folded scratch
 * (collrt_gathered_folds, the test bind and the engine share). */
collrt_status_t collrt_coll_transport(const collrt_coll_t *c, collrt_transport_info_t *out,
                                      collrt_diag_t *diag) {
  if (!c || !out) {
    collrt_diag_set(diag, "collrt_coll_transport: %s is NULL", c ? "out" : "coll");
    return COLLRT_ERR_ARG;
  }
  memset(out, 0, sizeof *out);
  collrt_shm_transport(c, out);
  for (size_t i = 0; i < c->steps.count; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    out->steps += collrt_step_is_message(s->kind);
    out->folded_steps += collrt_step_is_message(s->kind) && collrt_gathered_folds(c, s);
  }
  return COLLRT_OK;
}

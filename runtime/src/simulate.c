/* Whole-communicator simulation of a plan, without MPI.
 *
 * Every rank is expanded, then steps are issued under the FIFO rules
 * (fifo_queue.h) with rendezvous semantics: the k-th send from s to d on
 * (fifo, tag) matches the k-th receive at d from s on (fifo, tag), and both
 * complete only once both are issued. Each byte carries a label (origin rank,
 * origin send-buffer offset) so the final receive buffers can be compared
 * with what MPI's collective defines.
 *
 * Reductions. A label also carries the set of ranks whose contributions the
 * byte combines (bit r: rank r's send buffer; P <= 64 when the plan
 * reduces). Messages and copies move labels whole; a REDUCE step is a
 * checked union, byte by byte: both bytes must have been written, be the
 * same position of the reduction (for allreduce every rank's send-buffer
 * byte at offset o is position o), and hold disjoint sets; otherwise the
 * simulation stops naming the rank, statement, buffer, offset and the rank
 * combined twice. At the end an allreduce output byte must hold position o
 * with every rank's contribution, a bcast output byte the root's (rank 0)
 * byte. What a REDUCE computes on values is reduce.c's; which contributions
 * it combines is all the verifier needs, and races between a REDUCE and
 * other accesses are the hazard check's (hazard.h).
 *
 * Model time (an estimate, in the plan's alpha/beta/gamma): a step is issued
 * at max(completion of its dependency, issue of the previous entry of its
 * queue, completion of the (n - depth)-th completed transfer of its queue when
 * it is the n-th windowed transfer); a message completes at
 * max(issue of send, issue of recv) + alpha + len * beta, a copy at
 * issue + len * gamma. Links are not shared (no contention); the makespan is
 * the latest completion over all ranks.
 *
 * The node arena (plan_format.h): the ranks r / ranks_per_node share one
 * label array and its counters; a NOTIFY completes when issued, an AWAIT
 * once its counter has every NOTIFY of the node (at the latest of them).
 * One run only: that runs do not overlap on the arena is the engine's rule
 * (arena.c: a rank's arena steps wait until every rank of its node finished
 * the run before). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collc/simulate.h"
#include "diag.h"
#include "fifo_queue.h"
#include "hazard.h"

#define LABEL(rank, off) ((((uint64_t)(rank) << 40) | (uint64_t)(off)) + 1u)
/* bcast: the root whose send buffer every rank receives */
#define BCAST_ROOT 0
/* ranks whose contributions a label's set can name */
#define SIM_MAX_SET_RANKS 64

/* A byte's origin (LABEL, or for allreduce offset + 1: a position of the
 * reduction; 0 = never written) and the ranks whose contributions it holds. */
typedef struct sim_label {
  uint64_t origin, set;
} sim_label_t;

typedef struct sim_rank {
  collrt_expand_input_t in;
  int64_t *arrays; /* scounts, sdispls, rcounts, rdispls: 4 * size */
  collrt_steps_t steps;
  collrt_table_entry_t *entries; /* the bind-time exchange's result */
  collrt_tables_t tables;
  collrt_fifo_queue_t fq;
  int fq_ready;
  sim_label_t *label[COLLRT_BUF_COUNT_];
  size_t base;       /* global index of step 0 */
  double *issue_t;   /* ps, per step */
  double *done_t;
  double *queue_last;  /* per queue: issue time of the last issued entry */
  uint32_t *queue_issued;  /* per queue: windowed entries issued */
  uint32_t *queue_completed;
  double *ctimes;    /* per queue (fq.qbegin offsets): completion times */
  int queued;
} sim_rank_t;

/* The node arena of ranks [first, first + n). */
typedef struct sim_node {
  int first, n;
  sim_label_t *label;    /* the arena's bytes */
  int64_t ncounters;
  uint64_t *notified;    /* per counter: NOTIFYs executed */
  uint64_t *expected;    /* per counter: NOTIFYs the node's programs hold */
  double *last;          /* per counter: time of the latest NOTIFY */
} sim_node_t;

typedef struct match_rec {
  int src, dst;
  int32_t tag;
  uint8_t fifo;
  uint32_t seq;
  size_t gidx;
} match_rec_t;

static int cmp_rec(const void *pa, const void *pb) {
  const match_rec_t *a = pa, *b = pb;
  if (a->src != b->src) return a->src < b->src ? -1 : 1;
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  if (a->fifo != b->fifo) return a->fifo < b->fifo ? -1 : 1;
  if (a->tag != b->tag) return a->tag < b->tag ? -1 : 1;
  if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
  return 0;
}

static int same_key(const match_rec_t *a, const match_rec_t *b) {
  return a->src == b->src && a->dst == b->dst && a->fifo == b->fifo && a->tag == b->tag;
}

typedef struct sim {
  const collrt_plan_t *plan;
  const collrt_plan_desc_t *d;
  int P;
  sim_rank_t *r;
  size_t total;
  int *owner;       /* global step -> rank */
  size_t *partner;  /* global step -> matched global step (SIZE_MAX: none) */
  int *work;
  size_t whead, wcount;
  sim_node_t *nodes; /* NULL: the plan has no arena */
  int nnodes, rpn;
  collrt_sim_result_t res;
  collrt_status_t failed; /* a REDUCE that combines wrongly stops the run */
  collrt_diag_t *diag;
} sim_t;

static const collrt_step_t *gstep(const sim_t *s, size_t g, sim_rank_t **rk) {
  sim_rank_t *r = &s->r[s->owner[g]];
  if (rk)
    *rk = r;
  return &r->steps.steps[g - r->base];
}

static void describe(const sim_t *s, size_t g, char *buf, size_t n) {
  sim_rank_t *r;
  const collrt_step_t *st = gstep(s, g, &r);
  if (st->kind == COLLRT_STEP_COPY || st->kind == COLLRT_STEP_REDUCE)
    snprintf(buf, n, "%s %lldB (fifo %u, stmt %u)", st->kind == COLLRT_STEP_COPY ? "copy" : "reduce",
             (long long)st->len, st->fifo, st->stmt);
  else if (collrt_step_is_signal(st->kind))
    snprintf(buf, n, "%s counter %d (fifo %u, stmt %u)",
             st->kind == COLLRT_STEP_NOTIFY ? "notify" : "await", st->peer, st->fifo, st->stmt);
  else
    snprintf(buf, n, "%s%d %lldB (fifo %u, tag %d, stmt %u)",
             st->kind == COLLRT_STEP_SEND ? "send->" : "recv<-", st->peer,
             (long long)st->len, st->fifo, st->tag, st->stmt);
}

/* Lays out counts and displacements for rank `me` (see simulate.h). */
static collrt_status_t build_input(sim_t *s, const collrt_sim_input_t *input,
                                   int me) {
  int P = s->P;
  sim_rank_t *r = &s->r[me];
  r->arrays = calloc(4 * (size_t)P, sizeof *r->arrays);
  if (!r->arrays)
    return COLLRT_ERR_NOMEM;
  int64_t *sc = r->arrays, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  const int64_t *c = input->counts;
  int64_t soff = 0, roff = 0;
  if (s->d->op == COLLRT_OP_ALLREDUCE || s->d->op == COLLRT_OP_BCAST) {
    /* one message of c[0] bytes, the same on every rank */
    for (int j = 0; j < P; ++j) {
      sc[j] = rc[j] = c[0];
      sd[j] = rd[j] = 0;
    }
    soff = roff = c[0];
  } else if (s->d->op == COLLRT_OP_ALLTOALL) {
    for (int j = 0; j < P; ++j) {
      sc[j] = rc[j] = c[0];
      sd[j] = rd[j] = j * c[0];
    }
    soff = roff = P * c[0];
  } else if (s->d->op == COLLRT_OP_ALLTOALLV) {
    /* reverse rank order with 1-byte gaps, so displacement bugs show */
    soff = roff = 1;
    for (int j = P - 1; j >= 0; --j) {
      sc[j] = c[(size_t)me * P + j];
      rc[j] = c[(size_t)j * P + me];
      sd[j] = soff;
      rd[j] = roff;
      soff += sc[j] + 1;
      roff += rc[j] + 1;
    }
  } else {
    roff = 1;
    for (int j = P - 1; j >= 0; --j) {
      sc[j] = c[me];
      sd[j] = 0;
      rc[j] = c[j];
      rd[j] = roff;
      roff += rc[j] + 1;
    }
    soff = c[me];
  }
  r->in.size = P;
  r->in.rank = me;
  r->in.scounts = sc;
  r->in.sdispls = sd;
  r->in.rcounts = rc;
  r->in.rdispls = rd;
  r->in.send_bytes = soff;
  r->in.recv_bytes = roff;
  return COLLRT_OK;
}

static collrt_status_t match_all(sim_t *s) {
  size_t nsend = 0, nrecv = 0;
  for (int p = 0; p < s->P; ++p)
    for (size_t i = 0; i < s->r[p].steps.count; ++i) {
      uint8_t k = s->r[p].steps.steps[i].kind;
      nsend += k == COLLRT_STEP_SEND;
      nrecv += k == COLLRT_STEP_RECV;
    }
  collrt_status_t st = COLLRT_OK;
  match_rec_t *snd = malloc((nsend + 1) * sizeof *snd);
  match_rec_t *rcv = malloc((nrecv + 1) * sizeof *rcv);
  if (!snd || !rcv) {
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  size_t a = 0, b = 0;
  for (int p = 0; p < s->P; ++p)
    for (size_t i = 0; i < s->r[p].steps.count; ++i) {
      const collrt_step_t *x = &s->r[p].steps.steps[i];
      match_rec_t m = {x->kind == COLLRT_STEP_SEND ? p : x->peer,
                       x->kind == COLLRT_STEP_SEND ? x->peer : p, x->tag,
                       x->fifo, (uint32_t)i, s->r[p].base + i};
      if (x->kind == COLLRT_STEP_SEND)
        snd[a++] = m;
      else if (x->kind == COLLRT_STEP_RECV)
        rcv[b++] = m;
    }
  qsort(snd, nsend, sizeof *snd, cmp_rec);
  qsort(rcv, nrecv, sizeof *rcv, cmp_rec);
  char d1[96], d2[96];
  for (a = 0, b = 0; a < nsend || b < nrecv;) {
    int c = a == nsend ? 1 : b == nrecv ? -1 : cmp_rec(&snd[a], &rcv[b]);
    if (a < nsend && b < nrecv && same_key(&snd[a], &rcv[b]))
      c = 0;
    if (c != 0) {
      const match_rec_t *m = c < 0 ? &snd[a] : &rcv[b];
      describe(s, m->gidx, d1, sizeof d1);
      collrt_diag_set(s->diag, "rank %d's %s has no matching %s on rank %d",
                      s->owner[m->gidx], d1, c < 0 ? "receive" : "send",
                      c < 0 ? m->dst : m->src);
      st = COLLRT_ERR_COUNTS;
      goto out;
    }
    const collrt_step_t *x = gstep(s, snd[a].gidx, NULL);
    const collrt_step_t *y = gstep(s, rcv[b].gidx, NULL);
    if (x->len != y->len) {
      describe(s, snd[a].gidx, d1, sizeof d1);
      describe(s, rcv[b].gidx, d2, sizeof d2);
      collrt_diag_set(s->diag, "rank %d's %s is matched by rank %d's %s: lengths %lld and %lld differ",
                      snd[a].src, d1, snd[a].dst, d2, (long long)x->len, (long long)y->len);
      st = COLLRT_ERR_COUNTS;
      goto out;
    }
    s->partner[snd[a].gidx] = rcv[b].gidx;
    s->partner[rcv[b].gidx] = snd[a].gidx;
    ++a;
    ++b;
  }
out:
  free(snd);
  free(rcv);
  return st;
}

static void push_work(sim_t *s, int p) {
  if (s->r[p].queued)
    return;
  s->r[p].queued = 1;
  s->work[(s->whead + s->wcount++) % (size_t)s->P] = p;
}

typedef struct move_ctx {
  sim_t *s;
  int from, to;
} move_ctx_t;

static void move_piece(void *ctx, uint8_t sbuf, int64_t soff, uint8_t dbuf, int64_t doff,
                       int64_t len) {
  move_ctx_t *m = ctx;
  memmove(m->s->r[m->to].label[dbuf] + doff, m->s->r[m->from].label[sbuf] + soff,
          (size_t)len * sizeof(sim_label_t));
}

/* Moves the labels of `src`'s source region on rank `from` to `dst`'s
 * destination region on rank `to` (the same step for a COPY). */
static void move_bytes(sim_t *s, int from, const collrt_step_t *src, int to,
                       const collrt_step_t *dst) {
  collrt_region_t a, b;
  collrt_step_source(&s->r[from].steps, src, &a);
  collrt_step_dest(&s->r[to].steps, dst, &b);
  move_ctx_t m = {s, from, to};
  collrt_region_pairs(&a, &b, 0, src->len, move_piece, &m);
}

static const char *const buf_names[] = {"send", "receive", "scratch", "arena"};

static void label_text(uint64_t l, char *buf, size_t n);

/* REDUCE on labels: a checked union (see the top of this file). */
static void reduce_labels(sim_t *s, int p, const collrt_step_t *st) {
  sim_label_t *dst = s->r[p].label[st->dst_buf] + st->dst_off;
  const sim_label_t *src = s->r[p].label[st->buf] + st->off;
  int64_t esize = (int64_t)collrt_reduce_type_size(st->rtype);
  for (int64_t k = 0; k < st->len; ++k) {
    const sim_label_t *a = &dst[k], *b = &src[k];
    int unwritten = !a->origin ? 1 : !b->origin ? 2 : 0;
    const char *bn = buf_names[unwritten == 2 ? st->buf : st->dst_buf];
    int64_t at = unwritten == 2 ? st->off + k : st->dst_off + k;
    if (unwritten) {
      collrt_diag_set(s->diag, "rank %d's stmt[%u] REDUCE (%s %s) reads its %s's %s buffer byte %lld (element %lld) before anything was written there",
                      p, st->stmt, collrt_reduce_op_name(st->rop), collrt_reduce_type_name(st->rtype),
                      unwritten == 2 ? "source" : "destination", bn, (long long)at, (long long)(at / esize));
    } else if (a->origin != b->origin) {
      char x[80], y[80];
      label_text(b->origin, x, sizeof x);
      label_text(a->origin, y, sizeof y);
      collrt_diag_set(s->diag, "rank %d's stmt[%u] REDUCE combines %s into %s (%s buffer byte %lld): not the same element of the reduction",
                      p, st->stmt, x, y, buf_names[st->dst_buf], (long long)(st->dst_off + k));
    } else if (a->set & b->set) {
      int twice = __builtin_ctzll(a->set & b->set);
      collrt_diag_set(s->diag, "rank %d's stmt[%u] REDUCE combines the contribution of rank %d twice into its %s buffer element %lld (byte %lld)",
                      p, st->stmt, twice, buf_names[st->dst_buf], (long long)((st->dst_off + k) / esize),
                      (long long)(st->dst_off + k));
    } else {
      dst[k].set |= b->set;
      continue;
    }
    s->failed = COLLRT_ERR_BOUNDS;
    return;
  }
}

static int queue_index(const collrt_step_t *st) {
  return 2 * st->fifo + (st->kind == COLLRT_STEP_RECV);
}

static void finish(sim_t *s, sim_rank_t *r, size_t i, double t) {
  const collrt_step_t *st = &r->steps.steps[i];
  r->done_t[i] = t;
  if (collrt_step_is_message(st->kind)) {
    int q = queue_index(st);
    r->ctimes[r->fq.qbegin[q] + r->queue_completed[q]++] = t;
  }
  if (t > s->res.model_time_us)
    s->res.model_time_us = t;
  collrt_fq_complete(&r->fq, i);
}

/* An AWAIT completes once its counter has every NOTIFY of the node. */
static int counter_full(const sim_node_t *nd, int32_t c) {
  return nd->notified[c] == nd->expected[c];
}

static void signal_step(sim_t *s, int p, size_t i, double t) {
  sim_rank_t *r = &s->r[p];
  const collrt_step_t *st = &r->steps.steps[i];
  sim_node_t *nd = &s->nodes[p / s->rpn];
  int32_t c = st->peer;
  if (st->kind == COLLRT_STEP_AWAIT) {
    if (counter_full(nd, c))
      finish(s, r, i, t > nd->last[c] ? t : nd->last[c]);
    return; /* stays issued: the last NOTIFY completes it */
  }
  finish(s, r, i, t);
  ++nd->notified[c];
  if (t > nd->last[c])
    nd->last[c] = t;
  if (!counter_full(nd, c))
    return;
  for (int q = nd->first; q < nd->first + nd->n; ++q) {
    sim_rank_t *w = &s->r[q];
    for (size_t k = 0; k < w->steps.count; ++k) {
      const collrt_step_t *a = &w->steps.steps[k];
      if (a->kind == COLLRT_STEP_AWAIT && a->peer == c && w->fq.state[k] == COLLRT_FQ_ISSUED) {
        finish(s, w, k, w->issue_t[k] > nd->last[c] ? w->issue_t[k] : nd->last[c]);
        push_work(s, q);
      }
    }
  }
}

static void issue(sim_t *s, int p, size_t i) {
  const collrt_plan_desc_t *d = s->d;
  sim_rank_t *r = &s->r[p];
  const collrt_step_t *st = &r->steps.steps[i];
  int q = queue_index(st);
  double t = r->queue_last[q];
  for (uint32_t k = 0; k < st->ndeps; ++k) {
    double dt = r->done_t[r->steps.deps[st->dep_begin + k]];
    if (dt > t)
      t = dt;
  }
  uint32_t depth = r->fq.depth[q];
  if (collrt_step_is_message(st->kind)) {
    uint32_t n = r->queue_issued[q]++;
    if (depth && n >= depth) {
      double w = r->ctimes[r->fq.qbegin[q] + (n - depth)];
      if (w > t)
        t = w;
    }
  }
  r->issue_t[i] = t;
  r->queue_last[q] = t;
  if (collrt_step_is_signal(st->kind)) {
    signal_step(s, p, i, t);
    return;
  }
  if (st->kind == COLLRT_STEP_REDUCE) {
    reduce_labels(s, p, st);
    s->res.copy_bytes += (uint64_t)st->len;
    finish(s, r, i, t + (double)st->len * d->gamma_ps_per_byte);
    return;
  }
  if (st->kind == COLLRT_STEP_COPY) {
    move_bytes(s, p, st, p, st);
    s->res.copy_bytes += (uint64_t)st->len;
    finish(s, r, i, t + (double)st->len * d->gamma_ps_per_byte);
    return;
  }
  size_t g = r->base + i, pg = s->partner[g];
  sim_rank_t *pr;
  const collrt_step_t *ps = gstep(s, pg, &pr);
  size_t pi = pg - pr->base;
  if (pr->fq.state[pi] != COLLRT_FQ_ISSUED)
    return;
  const collrt_step_t *snd = st->kind == COLLRT_STEP_SEND ? st : ps;
  const collrt_step_t *rcv = st->kind == COLLRT_STEP_SEND ? ps : st;
  int sp = st->kind == COLLRT_STEP_SEND ? p : st->peer;
  int rp = st->kind == COLLRT_STEP_SEND ? st->peer : p;
  move_bytes(s, sp, snd, rp, rcv);
  s->res.messages++;
  s->res.bytes += (uint64_t)st->len;
  double start = pr->issue_t[pi] > t ? pr->issue_t[pi] : t;
  double end = start + d->alpha_ps + (double)st->len * d->beta_ps_per_byte;
  finish(s, r, i, end);
  finish(s, pr, pi, end);
  push_work(s, st->peer);
}

static collrt_status_t report_deadlock(sim_t *s) {
  char msg[sizeof s->diag->message], d1[96];
  size_t n = 0;
  int shown = 0, stuck = 0;
  for (int p = 0; p < s->P; ++p) {
    sim_rank_t *r = &s->r[p];
    if (collrt_fq_done(&r->fq))
      continue;
    ++stuck;
    if (shown == 4)
      continue;
    size_t i = 0;
    while (r->fq.state[i] == COLLRT_FQ_DONE)
      ++i;
    describe(s, r->base + i, d1, sizeof d1);
    const collrt_step_t *at = &r->steps.steps[i];
    char awaiting[80];
    if (at->kind == COLLRT_STEP_AWAIT && s->nodes) {
      const sim_node_t *nd = &s->nodes[p / s->rpn];
      snprintf(awaiting, sizeof awaiting, "issued, %llu of the node's %llu NOTIFYs of its counter done",
               (unsigned long long)nd->notified[at->peer], (unsigned long long)nd->expected[at->peer]);
    }
    const char *why = r->fq.state[i] != COLLRT_FQ_ISSUED ? "not issued"
                      : at->kind == COLLRT_STEP_AWAIT && s->nodes ? awaiting
                                                                  : "issued, its partner is not";
    n += (size_t)snprintf(msg + n, n < sizeof msg ? sizeof msg - n : 0, "%srank %d at %s [%s]",
                          shown ? "; " : "", p, d1, why);
    if (n >= sizeof msg)
      n = sizeof msg - 1;
    ++shown;
  }
  collrt_diag_set(s->diag, "no transfer can progress; %d rank%s stuck: %s", stuck,
                  stuck == 1 ? "" : "s", msg);
  return COLLRT_ERR_DEADLOCK;
}

static void label_text(uint64_t l, char *buf, size_t n) {
  if (!l)
    snprintf(buf, n, "an unwritten byte");
  else
    snprintf(buf, n, "byte %llu of rank %llu's send buffer",
             (unsigned long long)((l - 1) & ((1ull << 40) - 1)),
             (unsigned long long)((l - 1) >> 40));
}

/* allreduce and bcast: every rank's receive buffer holds, at offset o,
 * position o combining every rank's contribution (allreduce) or the root's
 * byte o (bcast). */
static collrt_status_t check_one_message(sim_t *s) {
  int P = s->P, all = s->d->op == COLLRT_OP_ALLREDUCE;
  uint64_t full = P >= 64 ? ~0ull : (1ull << P) - 1;
  for (int p = 0; p < P; ++p) {
    const sim_rank_t *r = &s->r[p];
    for (int64_t o = 0; o < r->in.recv_bytes; ++o) {
      const sim_label_t *g = &r->label[COLLRT_BUF_RECV][o];
      uint64_t want = all ? (uint64_t)o + 1u : LABEL(BCAST_ROOT, o);
      char x[80], y[80];
      if (g->origin != want || (!all && g->set != 1ull << BCAST_ROOT)) {
        if (all && g->origin)
          snprintf(x, sizeof x, "byte %llu of the ranks' send buffers", (unsigned long long)(g->origin - 1));
        else
          label_text(g->origin, x, sizeof x);
        if (all)
          snprintf(y, sizeof y, "byte %lld of every rank's send buffer, combined", (long long)o);
        else
          label_text(want, y, sizeof y);
        collrt_diag_set(s->diag, "rank %d's receive buffer at offset %lld holds %s, expected %s", p,
                        (long long)o, x, y);
        return COLLRT_ERR_BOUNDS;
      }
      if (all && g->set != full) {
        int missing = __builtin_ctzll(full & ~g->set), have = __builtin_popcountll(g->set);
        collrt_diag_set(s->diag, "rank %d's receive buffer at offset %lld combines the contributions of %d of %d ranks: rank %d's is missing",
                        p, (long long)o, have, P, missing);
        return COLLRT_ERR_BOUNDS;
      }
    }
  }
  return COLLRT_OK;
}

static collrt_status_t check_result(sim_t *s) {
  int P = s->P;
  collrt_status_t st = COLLRT_OK;
  if (s->d->op == COLLRT_OP_ALLREDUCE || s->d->op == COLLRT_OP_BCAST)
    return check_one_message(s);
  for (int p = 0; p < P && !st; ++p) {
    sim_rank_t *r = &s->r[p];
    const sim_label_t *got = r->label[COLLRT_BUF_RECV];
    /* what MPI's collective writes; bytes no region covers stay unwritten */
    uint64_t *want = calloc((size_t)r->in.recv_bytes + 1, sizeof *want);
    if (!want)
      return COLLRT_ERR_NOMEM;
    for (int j = 0; j < P; ++j) {
      int64_t base = s->d->op == COLLRT_OP_ALLGATHERV ? 0 : s->r[j].in.sdispls[p];
      for (int64_t k = 0; k < r->in.rcounts[j]; ++k)
        want[r->in.rdispls[j] + k] = LABEL(j, base + k);
    }
    for (int64_t off = 0; off < r->in.recv_bytes; ++off) {
      if (got[off].origin != want[off]) {
        char g[80], w[80];
        label_text(got[off].origin, g, sizeof g);
        label_text(want[off], w, sizeof w);
        collrt_diag_set(s->diag, "rank %d's receive buffer at offset %lld holds %s, expected %s",
                        p, (long long)off, g, w);
        st = COLLRT_ERR_BOUNDS;
        break;
      }
    }
    free(want);
  }
  return st;
}

static const collrt_expand_input_t *rank_input(void *ctx, int p) {
  return &((sim_t *)ctx)->r[p].in;
}

/* The bind-time exchange in memory (collrt_exchange_in_memory). */
static collrt_status_t exchange(sim_t *s) {
  collrt_table_entry_t **entries = calloc((size_t)s->P, sizeof *entries);
  collrt_tables_t *tables = calloc((size_t)s->P, sizeof *tables);
  collrt_status_t st = COLLRT_ERR_NOMEM;
  if (entries && tables)
    st = collrt_exchange_in_memory(s->plan, s->P, rank_input, s, entries, tables, s->diag);
  else
    collrt_diag_set(s->diag, "cannot allocate the bind-time exchange of %d ranks", s->P);
  for (int p = 0; p < s->P && !st; ++p) {
    s->r[p].entries = entries[p];
    s->r[p].tables = tables[p];
    s->r[p].in.tables = &s->r[p].tables;
  }
  free(entries);
  free(tables);
  return st;
}

/* The node arenas, once every rank is expanded: the node's ranks must agree
 * on its size (bind checks the same over MPI), and each AWAIT waits for
 * the NOTIFYs of its counter that the node's programs hold. */
static collrt_status_t build_nodes(sim_t *s) {
  if (!s->P || !s->r[0].steps.has_arena)
    return COLLRT_OK;
  s->rpn = (int)s->d->ranks_per_node;
  int nnodes = (s->P + s->rpn - 1) / s->rpn;
  s->nodes = calloc((size_t)nnodes, sizeof *s->nodes);
  if (!s->nodes) {
    collrt_diag_set(s->diag, "cannot allocate the arenas of %d nodes", nnodes);
    return COLLRT_ERR_NOMEM;
  }
  s->nnodes = nnodes;
  for (int k = 0; k < s->nnodes; ++k) {
    sim_node_t *nd = &s->nodes[k];
    nd->first = k * s->rpn;
    nd->n = s->P - nd->first < s->rpn ? s->P - nd->first : s->rpn;
    const collrt_steps_t *a = &s->r[nd->first].steps;
    for (int q = nd->first + 1; q < nd->first + nd->n; ++q) {
      const collrt_steps_t *b = &s->r[q].steps;
      if (b->arena_bytes != a->arena_bytes || b->arena_counters != a->arena_counters) {
        collrt_diag_set(s->diag, "ranks %d and %d share a node but disagree on its ARENA: %lld bytes and %lld counters against %lld and %lld",
                        nd->first, q, (long long)a->arena_bytes, (long long)a->arena_counters,
                        (long long)b->arena_bytes, (long long)b->arena_counters);
        return COLLRT_ERR_COUNTS;
      }
    }
    nd->ncounters = a->arena_counters;
    nd->label = calloc((size_t)a->arena_bytes + 1, sizeof *nd->label);
    nd->notified = calloc((size_t)nd->ncounters + 1, sizeof *nd->notified);
    nd->expected = calloc((size_t)nd->ncounters + 1, sizeof *nd->expected);
    nd->last = calloc((size_t)nd->ncounters + 1, sizeof *nd->last);
    if (!nd->label || !nd->notified || !nd->expected || !nd->last) {
      collrt_diag_set(s->diag, "cannot allocate the %lld-byte arena of node %d", (long long)a->arena_bytes, k);
      return COLLRT_ERR_NOMEM;
    }
    for (int q = nd->first; q < nd->first + nd->n; ++q)
      for (size_t i = 0; i < s->r[q].steps.count; ++i)
        if (s->r[q].steps.steps[i].kind == COLLRT_STEP_NOTIFY)
          ++nd->expected[s->r[q].steps.steps[i].peer];
  }
  return COLLRT_OK;
}

static collrt_status_t check_arena_hazards(sim_t *s) {
  if (!s->nodes)
    return COLLRT_OK;
  const collrt_steps_t **ss = malloc((size_t)s->rpn * sizeof *ss);
  int *ranks = malloc((size_t)s->rpn * sizeof *ranks);
  collrt_status_t st = ss && ranks ? COLLRT_OK : COLLRT_ERR_NOMEM;
  for (int k = 0; k < s->nnodes && !st; ++k) {
    const sim_node_t *nd = &s->nodes[k];
    for (int j = 0; j < nd->n; ++j) {
      ss[j] = &s->r[nd->first + j].steps;
      ranks[j] = nd->first + j;
    }
    st = collrt_check_arena_hazards(ss, ranks, nd->n, s->diag);
  }
  free(ss);
  free(ranks);
  return st;
}

collrt_status_t collrt_simulate(const collrt_plan_t *plan,
                                const collrt_sim_input_t *input,
                                collrt_sim_result_t *out, collrt_diag_t *diag) {
  if (!plan || !input || !input->counts || input->size < 1 || !out) {
    collrt_diag_set(diag, "collrt_simulate: NULL argument or size < 1");
    return COLLRT_ERR_ARG;
  }
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  int P = input->size;
  int one_message = d->op == COLLRT_OP_ALLREDUCE || d->op == COLLRT_OP_BCAST;
  size_t ncounts = d->op == COLLRT_OP_ALLGATHERV || one_message ? (size_t)P : (size_t)P * P;
  for (size_t k = 0; k < ncounts; ++k)
    if (input->counts[k] < 0 || input->counts[k] > (1ll << 36) ||
        ((d->op == COLLRT_OP_ALLTOALL || one_message) && input->counts[k] != input->counts[0])) {
      collrt_diag_set(diag, "simulation counts[%zu] = %lld is %s", k, (long long)input->counts[k],
                      input->counts[k] < 0 ? "negative" : input->counts[k] > (1ll << 36) ? "too large to simulate"
                      : "not equal to counts[0] (alltoall, allreduce and bcast counts are uniform)");
      return COLLRT_ERR_ARG;
    }
  sim_t s;
  memset(&s, 0, sizeof s);
  s.plan = plan;
  s.d = d;
  s.P = P;
  s.diag = diag;
  collrt_status_t st = COLLRT_OK;
  s.r = calloc((size_t)P, sizeof *s.r);
  s.work = malloc((size_t)P * sizeof *s.work);
  if (!s.r || !s.work) {
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  for (int p = 0; p < P; ++p)
    if ((st = build_input(&s, input, p)))
      goto out;
  if (collrt_plan_has_exchange(plan) && (st = exchange(&s)))
    goto out;
  for (int p = 0; p < P; ++p) {
    if ((st = collrt_expand(plan, &s.r[p].in, &s.r[p].steps, diag)))
      goto out;
    free(s.r[p].entries); /* expansion consumed the tables */
    s.r[p].entries = NULL;
    s.r[p].in.tables = NULL;
    s.r[p].base = s.total;
    s.total += s.r[p].steps.count;
    if (s.r[p].steps.count > s.res.max_steps)
      s.res.max_steps = s.r[p].steps.count;
  }
  if ((st = build_nodes(&s)))
    goto out;
  s.owner = malloc((s.total + 1) * sizeof *s.owner);
  s.partner = malloc((s.total + 1) * sizeof *s.partner);
  if (!s.owner || !s.partner) {
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  for (int p = 0; p < P; ++p) {
    sim_rank_t *r = &s.r[p];
    size_t n = r->steps.count;
    for (size_t i = 0; i < n; ++i) {
      s.owner[r->base + i] = p;
      s.partner[r->base + i] = SIZE_MAX;
    }
    if ((st = collrt_fq_init(&r->fq, &r->steps, d->fifos, d->nfifos)))
      goto out;
    r->fq_ready = 1;
    int nq = 2 * d->nfifos;
    r->issue_t = calloc(n + 1, sizeof(double));
    r->done_t = calloc(n + 1, sizeof(double));
    r->ctimes = calloc(n + 1, sizeof(double));
    r->queue_last = calloc((size_t)nq, sizeof(double));
    r->queue_issued = calloc((size_t)nq, sizeof(uint32_t));
    r->queue_completed = calloc((size_t)nq, sizeof(uint32_t));
    int64_t bytes[COLLRT_BUF_COUNT_] = {r->in.send_bytes, r->in.recv_bytes, r->steps.scratch_bytes};
    for (int b = 0; b < COLLRT_BUF_ARENA; ++b)
      r->label[b] = calloc((size_t)bytes[b] + 1, sizeof(sim_label_t));
    if (s.nodes)
      r->label[COLLRT_BUF_ARENA] = s.nodes[p / s.rpn].label;
    if (!r->issue_t || !r->done_t || !r->ctimes || !r->queue_last || !r->queue_issued ||
        !r->queue_completed || !r->label[0] || !r->label[1] || !r->label[2]) {
      collrt_diag_set(diag, "cannot allocate simulation state for rank %d", p);
      st = COLLRT_ERR_NOMEM;
      goto out;
    }
    for (int64_t o = 0; o < r->in.send_bytes; ++o) {
      r->label[COLLRT_BUF_SEND][o].origin = d->op == COLLRT_OP_ALLREDUCE ? (uint64_t)o + 1u : LABEL(p, o);
      r->label[COLLRT_BUF_SEND][o].set = p < SIM_MAX_SET_RANKS ? 1ull << p : 0;
    }
    for (size_t i = 0; i < n && P > SIM_MAX_SET_RANKS; ++i)
      if (r->steps.steps[i].kind == COLLRT_STEP_REDUCE || d->op == COLLRT_OP_ALLREDUCE) {
        collrt_diag_set(diag, "cannot verify a reduction at P = %d: the simulator tracks the contributions of at most %d ranks",
                        P, SIM_MAX_SET_RANKS);
        st = COLLRT_ERR_ARG;
        goto out;
      }
  }
  if ((st = match_all(&s)))
    goto out;
  for (int p = 0; p < P; ++p)
    push_work(&s, p);
  while (s.wcount) {
    int p = s.work[s.whead];
    s.whead = (s.whead + 1) % (size_t)P;
    --s.wcount;
    s.r[p].queued = 0;
    size_t i;
    while (!s.failed && collrt_fq_next(&s.r[p].fq, &i))
      issue(&s, p, i);
    if ((st = s.failed))
      goto out;
  }
  for (int p = 0; p < P; ++p)
    if (!collrt_fq_done(&s.r[p].fq)) {
      st = report_deadlock(&s);
      goto out;
    }
  /* a program that completes may still have raced: the engine may start
   * unordered transfers in another order than this simulation did */
  for (int p = 0; p < P; ++p)
    if ((st = collrt_check_hazards(&s.r[p].steps, p, diag)))
      goto out;
  if ((st = check_arena_hazards(&s)))
    goto out;
  if ((st = check_result(&s)))
    goto out;
  s.res.model_time_us /= 1e6;
  *out = s.res;
out:
  if (s.r)
    for (int p = 0; p < P; ++p) {
      sim_rank_t *r = &s.r[p];
      free(r->arrays);
      free(r->entries);
      collrt_steps_free(&r->steps);
      if (r->fq_ready)
        collrt_fq_free(&r->fq);
      for (int b = 0; b < COLLRT_BUF_ARENA; ++b)
        free(r->label[b]);
      free(r->issue_t);
      free(r->done_t);
      free(r->ctimes);
      free(r->queue_last);
      free(r->queue_issued);
      free(r->queue_completed);
    }
  for (int k = 0; k < s.nnodes; ++k) {
    free(s.nodes[k].label);
    free(s.nodes[k].notified);
    free(s.nodes[k].expected);
    free(s.nodes[k].last);
  }
  free(s.nodes);
  free(s.r);
  free(s.work);
  free(s.owner);
  free(s.partner);
  return st;
}

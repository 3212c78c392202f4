/* Expansion: the plan's program interpreted for one rank, producing the
 * rank's steps with their event dependencies resolved to step indices. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "env.h"
#include "expr_eval.h"
#include "plan_internal.h"

/* Work budgets (plan.h, "Budgets"): a plan that validates can still ask
 * for absurd work at bind, e.g. 2^24 one-byte sends in a 4-rank plan; it is
 * refused before anything that size is allocated. */
#define BUDGET_BASE_STEPS (1ull << 16)
#define BUDGET_STEPS_PER_RANK 64ull
#define BUDGET_BYTES_PER_STEP 16ull
#define BUDGET_STMTS_PER_STEP 16ull
#define BUDGET_BASE_SCRATCH (1ll << 30)
#define BUDGET_SCRATCH_PER_BYTE 4ll

/* An executed transfer that produced a step, or was skipped (length 0) but
 * signals an event: the nodes of the dependency graph before resolution. */
typedef struct node {
  int32_t step;          /* step index, or -1 if skipped */
  uint32_t wait_begin;   /* waits[wait_begin .. + nwaits) */
  uint32_t nwaits;
  uint32_t next_signal;  /* next node signalling the same event, or NO_NODE */
  uint32_t visit;        /* DFS epoch (resolution of skipped nodes) */
  uint16_t stmt;
  uint8_t on_stack;
} node_t;

typedef struct wait_rec {
  int64_t i, j;
  uint16_t stmt;
  uint8_t id; /* event id + 1 */
} wait_rec_t;

/* An event (id, i, j) and the list of nodes that signal it. */
typedef struct event_slot {
  int64_t i, j;
  uint32_t first, last; /* node list through node_t.next_signal */
  uint8_t id;           /* event id + 1; 0 = empty slot */
} event_slot_t;

#define NO_NODE UINT32_MAX

/* A growable array of `elem`-byte entries; doubles, bounded by `limit`. */
typedef struct vec {
  void *data;
  size_t count, cap;
} vec_t;

typedef struct expander {
  const collrt_plan_t *plan;
  const collrt_expand_input_t *in;
  collrt_diag_t *diag;
  int64_t vars[COLLRT_MAX_VARS];
  collrt_expr_ctx_t ctx;
  vec_t steps, nodes, waits, deps, segs, dst_segs;
  vec_t puts;      /* the exchange pass: collrt_put_t records */
  int exchange;    /* 1: the exchange pass (LETs and EXCHANGEs), 0: expansion */
  event_slot_t *events;
  size_t ev_count, ev_cap; /* ev_cap is a power of two or 0 */
  uint64_t executed;
  uint64_t step_budget, stmt_budget; /* see "Budgets" in plan.h */
  uint64_t sum_budget;               /* SUM iterations left */
  uint32_t epoch;
  int fifo;
  int xfer;        /* statement of the transfer whose body runs, or -1 */
  size_t xfer_segs; /* its first source segment in segs */
  int64_t buf_bytes[COLLRT_BUF_COUNT_];
  int64_t arena_counters;
} expander_t;

/* Appends one zeroed entry to *out: COLLRT_ERR_BOUNDS past the bind budget
 * (checked on every push, not only when the array grows), COLLRT_ERR_NOMEM
 * if the array cannot grow. */
static collrt_status_t vec_push(expander_t *x, vec_t *v, size_t elem, const char *what,
                                void **out) {
  if (v->count >= x->step_budget) {
    collrt_diag_set(x->diag, "rank %d: the plan asks for more than %llu %s at P = %d (the bind budget; set COLLRT_STEP_BUDGET to allow more)",
                    x->in->rank, (unsigned long long)x->step_budget, what, x->in->size);
    return COLLRT_ERR_BOUNDS;
  }
  if (v->count == v->cap) {
    size_t ncap = v->cap ? 2 * v->cap : 64;
    void *n = realloc(v->data, ncap * elem);
    if (!n) {
      collrt_diag_set(x->diag, "rank %d: cannot allocate %zu %s", x->in->rank, ncap, what);
      return COLLRT_ERR_NOMEM;
    }
    v->data = n;
    v->cap = ncap;
  }
  *out = (char *)v->data + elem * v->count++;
  memset(*out, 0, elem);
  return COLLRT_OK;
}

static void vec_trim(vec_t *v, size_t elem) {
  if (v->count && v->count < v->cap) {
    void *n = realloc(v->data, v->count * elem);
    if (n) { /* on failure the larger array stays valid */
      v->data = n;
      v->cap = v->count;
    }
  }
}

#define VEC_AT(v, type, k) (((type *)(v).data)[k])

/* splitmix64 (Steele, Lea, Flood 2014); see the FOR comment of plan_format.h */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Fisher-Yates; see the FOR comment of plan_format.h for the exact rule. */
void collrt_order_permutation(int64_t lo, uint64_t n, int64_t seed, uint64_t salt, int64_t *out) {
  uint64_t state = (uint64_t)seed * 0x9E3779B97F4A7C15ull + salt;
  for (uint64_t k = 0; k < n; ++k)
    out[k] = lo + (int64_t)k;
  for (uint64_t k = n; k > 1; --k) {
    uint64_t j = splitmix64(&state) % k;
    int64_t t = out[k - 1];
    out[k - 1] = out[j];
    out[j] = t;
  }
}

static uint64_t event_hash(uint8_t id, int64_t i, int64_t j) {
  uint64_t s = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full ^ id;
  return splitmix64(&s);
}

static event_slot_t *event_find(expander_t *x, uint8_t id, int64_t i, int64_t j) {
  if (!x->ev_cap)
    return NULL;
  size_t mask = x->ev_cap - 1;
  for (size_t h = event_hash(id, i, j) & mask;; h = (h + 1) & mask) {
    event_slot_t *e = &x->events[h];
    if (!e->id || (e->id == id && e->i == i && e->j == j))
      return e;
  }
}

static collrt_status_t event_grow(expander_t *x) {
  size_t ncap = x->ev_cap ? 2 * x->ev_cap : 64;
  event_slot_t *old = x->events;
  size_t ocap = x->ev_cap;
  x->events = calloc(ncap, sizeof *x->events);
  if (!x->events) {
    x->events = old;
    collrt_diag_set(x->diag, "cannot allocate the event table (%zu entries)", ncap);
    return COLLRT_ERR_NOMEM;
  }
  x->ev_cap = ncap;
  for (size_t k = 0; k < ocap; ++k)
    if (old[k].id)
      *event_find(x, old[k].id, old[k].i, old[k].j) = old[k];
  free(old);
  return COLLRT_OK;
}

static collrt_status_t eval(expander_t *x, unsigned si, unsigned e,
                            int64_t *out) {
  uint16_t ref = x->plan->stmts[si].expr[e];
  if (ref == COLLRT_EXPR_NONE) {
    *out = 0;
    return COLLRT_OK;
  }
  char why[200];
  collrt_status_t st = collrt_expr_eval(&x->ctx, ref, out, why, sizeof why);
  if (st)
    collrt_diag_set(x->diag, "stmt[%u].expr[%u] on rank %d: %s", si, e, x->in->rank, why);
  return st;
}

static const char *kind_name(uint8_t k) {
  static const char *names[] = {"?",    "PHASE", "FOR", "IF",       "LET", "SEND",  "RECV", "COPY",
                                "SEG", "DEP",   "EXCHANGE", "PUT", "ARENA", "NOTIFY", "AWAIT", "REDUCE"};
  return k <= COLLRT_STMT_REDUCE ? names[k] : "?";
}

static collrt_status_t check_region(expander_t *x, unsigned si, const char *what,
                                    uint8_t buf, int64_t off, int64_t len) {
  static const char *bufs[] = {"send", "receive", "scratch", "arena"};
  int64_t cap = x->buf_bytes[buf];
  if (off < 0 || off > cap || len > cap - off) {
    collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: %s region [%lld, %lld + %lld) is outside the %lld-byte %s buffer",
                    si, kind_name(x->plan->stmts[si].kind), x->in->rank, what,
                    (long long)off, (long long)off, (long long)len, (long long)cap, bufs[buf]);
    return COLLRT_ERR_BOUNDS;
  }
  return COLLRT_OK;
}

static collrt_status_t check_length(expander_t *x, unsigned si, int64_t len) {
  if (len < 0 || len > INT_MAX) {
    collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: length %lld is outside [0, %d]",
                    si, kind_name(x->plan->stmts[si].kind), x->in->rank, (long long)len, INT_MAX);
    return COLLRT_ERR_BOUNDS;
  }
  return COLLRT_OK;
}

static collrt_status_t add_wait(expander_t *x, unsigned si, uint8_t id, int64_t i, int64_t j) {
  wait_rec_t *w;
  collrt_status_t st = vec_push(x, &x->waits, sizeof *w, "event waits", (void **)&w);
  if (st)
    return st;
  w->id = id;
  w->i = i;
  w->j = j;
  w->stmt = (uint16_t)si;
  return COLLRT_OK;
}

/* SEG: one piece of the running transfer's data (validation placed it). */
static collrt_status_t segment(expander_t *x, unsigned si) {
  const collrt_stmt_t *s = &x->plan->stmts[si];
  int64_t off, len;
  collrt_status_t st;
  if ((st = eval(x, si, COLLRT_E_SEG_OFF, &off)) || (st = eval(x, si, COLLRT_E_SEG_LEN, &len)) ||
      (st = check_length(x, si, len)))
    return st;
  if (len == 0)
    return COLLRT_OK;
  if ((st = check_region(x, si, "segment", s->buf0, off, len)))
    return st;
  vec_t *v = s->slot == COLLRT_SIDE_DST ? &x->dst_segs : &x->segs;
  size_t first = s->slot == COLLRT_SIDE_DST ? 0 : x->xfer_segs;
  collrt_seg_t *g;
  /* A piece that continues the transfer's last one extends it: the same
   * bytes in the same order, one segment fewer for bind to keep (dim-rings,
   * 4 KiB, 1024 ranks: 12928 pieces a rank, 9542 segments). */
  if (v->count > first) {
    g = &VEC_AT(*v, collrt_seg_t, v->count - 1);
    if (g->buf == s->buf0 && g->off + g->len == off && g->len + len <= INT_MAX) {
      g->len += (int32_t)len;
      return COLLRT_OK;
    }
  }
  if ((st = vec_push(x, v, sizeof *g, "segments", (void **)&g)))
    return st;
  g->buf = s->buf0;
  g->off = off;
  g->len = (int32_t)len;
  return COLLRT_OK;
}

static int64_t seg_sum(const collrt_seg_t *g, size_t n) {
  int64_t t = 0;
  for (size_t k = 0; k < n; ++k)
    t += g[k].len;
  return t;
}

static collrt_status_t run_body(expander_t *x, unsigned first, unsigned end);

/* PUT (exchange pass): one record for `peer`. */
static collrt_status_t put(expander_t *x, unsigned si) {
  const collrt_stmt_t *s = &x->plan->stmts[si];
  int64_t peer, index, value;
  collrt_status_t st;
  if ((st = eval(x, si, COLLRT_E_PEER, &peer)) || (st = eval(x, si, COLLRT_E_PUT_INDEX, &index)) ||
      (st = eval(x, si, COLLRT_E_PUT_VALUE, &value)))
    return st;
  if (peer < 0 || peer >= x->in->size) {
    collrt_diag_set(x->diag, "stmt[%u] PUT on rank %d: peer %lld is outside [0, %d)", si,
                    x->in->rank, (long long)peer, x->in->size);
    return COLLRT_ERR_BOUNDS;
  }
  collrt_put_t *r;
  if ((st = vec_push(x, &x->puts, sizeof *r, "exchange records", (void **)&r)))
    return st;
  r->peer = (int32_t)peer;
  r->table = s->slot;
  r->index = index;
  r->value = value;
  return COLLRT_OK;
}

static collrt_status_t transfer(expander_t *x, unsigned si) {
  const collrt_stmt_t *s = &x->plan->stmts[si];
  collrt_status_t st;
  int64_t e[COLLRT_STMT_EXPRS];
  for (unsigned k = 0; k < COLLRT_STMT_EXPRS; ++k)
    if ((st = eval(x, si, k, &e[k])))
      return st;
  int rank = x->in->rank;
  uint32_t wait_begin = (uint32_t)x->waits.count;
  if (s->wait_event && (st = add_wait(x, si, s->wait_event, e[COLLRT_E_WAIT_I], e[COLLRT_E_WAIT_J])))
    return st;
  /* the body adds segments and DEP waits */
  size_t seg_begin = x->segs.count;
  x->xfer_segs = seg_begin;
  x->dst_segs.count = 0;
  x->xfer = (int)si;
  st = run_body(x, si + 1, si + 1 + s->body);
  x->xfer = -1;
  if (st)
    return st;
  int gsrc = (s->slot & COLLRT_GATHER_SRC) != 0, gdst = (s->slot & COLLRT_GATHER_DST) != 0;
  size_t nsrc = x->segs.count - seg_begin, ndst = x->dst_segs.count;
  int64_t len = e[COLLRT_E_LEN];
  if (gsrc || gdst) {
    /* (no pointer arithmetic on a still-empty vector: NULL + 0 is UB) */
    int64_t ls = !gsrc ? -1 : nsrc ? seg_sum(&VEC_AT(x->segs, collrt_seg_t, seg_begin), nsrc) : 0;
    int64_t ld = !gdst ? -1 : ndst ? seg_sum((collrt_seg_t *)x->dst_segs.data, ndst) : 0;
    if (gsrc && gdst && ls != ld) {
      collrt_diag_set(x->diag, "stmt[%u] COPY on rank %d: source segments hold %lld bytes but destination segments %lld",
                      si, rank, (long long)ls, (long long)ld);
      return COLLRT_ERR_BOUNDS;
    }
    len = gsrc ? ls : ld;
  }
  if ((st = check_length(x, si, len)))
    return st;
  int32_t produced = -1;
  if (s->kind == COLLRT_STMT_NOTIFY || s->kind == COLLRT_STMT_AWAIT) {
    int64_t counter = e[COLLRT_E_COUNTER];
    if (counter < 0 || counter >= x->arena_counters) {
      collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: counter %lld is outside the arena's %lld counters",
                      si, kind_name(s->kind), rank, (long long)counter, (long long)x->arena_counters);
      return COLLRT_ERR_BOUNDS;
    }
    collrt_step_t *p;
    if ((st = vec_push(x, &x->steps, sizeof *p, "steps", (void **)&p)))
      return st;
    p->kind = s->kind == COLLRT_STMT_NOTIFY ? COLLRT_STEP_NOTIFY : COLLRT_STEP_AWAIT;
    p->fifo = (uint8_t)x->fifo;
    p->peer = (int32_t)counter;
    p->tag = -1;
    p->stmt = (uint16_t)si;
    p->seg_begin = (uint32_t)seg_begin;
    produced = (int32_t)(x->steps.count - 1);
  } else if (len > 0) {
    if (s->kind == COLLRT_STMT_REDUCE) {
      size_t esize = collrt_reduce_type_size(s->rtype);
      if (len % (int64_t)esize) {
        collrt_diag_set(x->diag, "stmt[%u] REDUCE on rank %d: length %lld is not a whole number of %s elements (%zu bytes each)",
                        si, rank, (long long)len, collrt_reduce_type_name(s->rtype), esize);
        return COLLRT_ERR_BOUNDS;
      }
      int64_t so = e[COLLRT_E_SRC_OFF], d0 = e[COLLRT_E_DST_OFF];
      if (s->buf0 == s->buf1 && so < d0 + len && d0 < so + len) {
        collrt_diag_set(x->diag, "stmt[%u] REDUCE on rank %d: source [%lld, %lld) and destination [%lld, %lld) overlap in one buffer",
                        si, rank, (long long)so, (long long)(so + len), (long long)d0, (long long)(d0 + len));
        return COLLRT_ERR_BOUNDS;
      }
    }
    if (s->kind != COLLRT_STMT_COPY && s->kind != COLLRT_STMT_REDUCE) {
      int64_t peer = e[COLLRT_E_PEER], tag = e[COLLRT_E_TAG];
      if (peer < 0 || peer >= x->in->size) {
        collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: peer %lld is outside [0, %d)",
                        si, kind_name(s->kind), rank, (long long)peer, x->in->size);
        return COLLRT_ERR_BOUNDS;
      }
      if (tag < 0 || tag > 32767) {
        collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: tag %lld is outside [0, 32767]",
                        si, kind_name(s->kind), rank, (long long)tag);
        return COLLRT_ERR_BOUNDS;
      }
      if (!gsrc && (st = check_region(x, si, "buffer", s->buf0, e[COLLRT_E_OFF], len)))
        return st;
    } else {
      if ((!gsrc && (st = check_region(x, si, "source", s->buf0, e[COLLRT_E_SRC_OFF], len))) ||
          (!gdst && (st = check_region(x, si, "destination", s->buf1, e[COLLRT_E_DST_OFF], len))))
        return st;
    }
    for (size_t k = 0; k < ndst; ++k) {
      collrt_seg_t *g;
      if ((st = vec_push(x, &x->segs, sizeof *g, "segments", (void **)&g)))
        return st;
      *g = ((collrt_seg_t *)x->dst_segs.data)[k];
    }
    collrt_step_t *p;
    if ((st = vec_push(x, &x->steps, sizeof *p, "steps", (void **)&p)))
      return st;
    p->kind = s->kind == COLLRT_STMT_SEND     ? COLLRT_STEP_SEND
              : s->kind == COLLRT_STMT_RECV   ? COLLRT_STEP_RECV
              : s->kind == COLLRT_STMT_REDUCE ? COLLRT_STEP_REDUCE
                                              : COLLRT_STEP_COPY;
    p->fifo = (uint8_t)x->fifo;
    p->buf = gsrc ? 0 : s->buf0;
    p->len = (int32_t)len;
    p->stmt = (uint16_t)si;
    p->seg_begin = (uint32_t)seg_begin;
    p->nsrc = (uint32_t)nsrc;
    p->ndst = (uint32_t)ndst;
    if (s->kind == COLLRT_STMT_COPY || s->kind == COLLRT_STMT_REDUCE) {
      p->rop = s->rop;
      p->rtype = s->rtype;
      p->dst_buf = gdst ? 0 : s->buf1;
      p->off = gsrc ? 0 : e[COLLRT_E_SRC_OFF];
      p->dst_off = gdst ? 0 : e[COLLRT_E_DST_OFF];
      p->peer = -1;
      p->tag = -1;
    } else {
      p->peer = (int32_t)e[COLLRT_E_PEER];
      p->tag = (int16_t)e[COLLRT_E_TAG];
      p->off = gsrc ? 0 : e[COLLRT_E_OFF];
    }
    produced = (int32_t)(x->steps.count - 1);
  } else {
    x->segs.count = seg_begin; /* a skipped transfer keeps no segments */
  }
  if (produced < 0 && !s->signal_event) {
    x->waits.count = wait_begin; /* nobody can depend on it */
    return COLLRT_OK;
  }
  node_t *n;
  if ((st = vec_push(x, &x->nodes, sizeof *n, "transfers", (void **)&n)))
    return st;
  n->step = produced;
  n->wait_begin = wait_begin;
  n->nwaits = (uint32_t)(x->waits.count - wait_begin);
  n->next_signal = NO_NODE;
  n->stmt = (uint16_t)si;
  if (s->signal_event) {
    if (2 * (x->ev_count + 1) > x->ev_cap && (st = event_grow(x)))
      return st;
    event_slot_t *ev = event_find(x, s->signal_event, e[COLLRT_E_SIGNAL_I], e[COLLRT_E_SIGNAL_J]);
    uint32_t me = (uint32_t)(x->nodes.count - 1);
    if (!ev->id) {
      ev->id = s->signal_event;
      ev->i = e[COLLRT_E_SIGNAL_I];
      ev->j = e[COLLRT_E_SIGNAL_J];
      ev->first = me;
      ++x->ev_count;
    } else {
      VEC_AT(x->nodes, node_t, ev->last).next_signal = me;
    }
    ev->last = me;
  }
  return COLLRT_OK;
}

/* Appends to x->deps the steps that node `n`'s waits stand for: every
 * signaller of each waited event, looking through skipped signallers to what
 * they waited on. A cycle through skipped transfers can never complete. */
static collrt_status_t resolve_waits(expander_t *x, uint32_t n);

static collrt_status_t resolve_signallers(expander_t *x, const wait_rec_t *w) {
  event_slot_t *ev = event_find(x, w->id, w->i, w->j);
  if (!ev || !ev->id) {
    collrt_diag_set(x->diag, "stmt[%u] on rank %d waits on event %u(%lld, %lld), which no transfer signals",
                    w->stmt, x->in->rank, w->id - 1u, (long long)w->i, (long long)w->j);
    return COLLRT_ERR_BOUNDS;
  }
  for (uint32_t m = ev->first; m != NO_NODE; m = VEC_AT(x->nodes, node_t, m).next_signal) {
    node_t *sig = &VEC_AT(x->nodes, node_t, m);
    if (sig->step >= 0) {
      uint32_t *d;
      collrt_status_t st = vec_push(x, &x->deps, sizeof *d, "dependencies", (void **)&d);
      if (st)
        return st;
      *d = (uint32_t)sig->step;
      continue;
    }
    if (sig->on_stack) {
      collrt_diag_set(x->diag, "rank %d: the waits of skipped (zero-length) transfers form a cycle through stmt[%u]; it can never complete",
                      x->in->rank, sig->stmt);
      return COLLRT_ERR_DEADLOCK;
    }
    if (sig->visit == x->epoch)
      continue;
    collrt_status_t st = resolve_waits(x, m);
    if (st)
      return st;
  }
  return COLLRT_OK;
}

static collrt_status_t resolve_waits(expander_t *x, uint32_t n) {
  node_t *nd = &VEC_AT(x->nodes, node_t, n);
  nd->visit = x->epoch;
  nd->on_stack = 1;
  collrt_status_t st = COLLRT_OK;
  for (uint32_t k = 0; k < nd->nwaits && !st; ++k)
    st = resolve_signallers(x, &VEC_AT(x->waits, wait_rec_t, nd->wait_begin + k));
  VEC_AT(x->nodes, node_t, n).on_stack = 0;
  return st;
}

static collrt_status_t resolve_all(expander_t *x) {
  for (size_t n = 0; n < x->nodes.count; ++n) {
    node_t *nd = &VEC_AT(x->nodes, node_t, n);
    if (nd->step < 0)
      continue;
    collrt_step_t *p = &VEC_AT(x->steps, collrt_step_t, nd->step);
    p->dep_begin = (uint32_t)x->deps.count;
    ++x->epoch;
    collrt_status_t st = resolve_waits(x, (uint32_t)n);
    if (st)
      return st;
    p = &VEC_AT(x->steps, collrt_step_t, VEC_AT(x->nodes, node_t, n).step);
    p->ndeps = (uint32_t)(x->deps.count - p->dep_begin);
  }
  return COLLRT_OK;
}

static collrt_status_t run_for(expander_t *x, unsigned si) {
  const collrt_stmt_t *s = &x->plan->stmts[si];
  int64_t lo, hi, seed = 0;
  collrt_status_t st;
  if ((st = eval(x, si, COLLRT_E_LO, &lo)) || (st = eval(x, si, COLLRT_E_HI, &hi)))
    return st;
  if (hi <= lo)
    return COLLRT_OK;
  uint64_t n = (uint64_t)hi - (uint64_t)lo;
  unsigned first = si + 1, end = si + 1 + s->body;
  if (s->buf0 == COLLRT_ORDER_ASCENDING) {
    if (n > x->stmt_budget - x->executed) {
      collrt_diag_set(x->diag, "stmt[%u] FOR on rank %d: %llu iterations exceed the bind budget of %llu statements (COLLRT_STEP_BUDGET)",
                      si, x->in->rank, (unsigned long long)n, (unsigned long long)x->stmt_budget);
      return COLLRT_ERR_BOUNDS;
    }
    for (int64_t v = lo; v < hi; ++v) {
      x->vars[s->slot] = v;
      if ((st = run_body(x, first, end)))
        return st;
    }
    return COLLRT_OK;
  }
  if ((st = eval(x, si, COLLRT_E_SEED, &seed)))
    return st;
  if (n > x->step_budget) {
    collrt_diag_set(x->diag, "stmt[%u] FOR on rank %d: random range of %llu values exceeds the bind budget of %llu (COLLRT_STEP_BUDGET)",
                    si, x->in->rank, (unsigned long long)n, (unsigned long long)x->step_budget);
    return COLLRT_ERR_BOUNDS;
  }
  int64_t *perm = malloc(n * sizeof *perm);
  if (!perm) {
    collrt_diag_set(x->diag, "cannot allocate a %llu-entry permutation", (unsigned long long)n);
    return COLLRT_ERR_NOMEM;
  }
  collrt_order_permutation(lo, n, seed,
                           s->buf0 == COLLRT_ORDER_RANDOM ? (uint64_t)x->in->rank : 0, perm);
  for (uint64_t k = 0; k < n && !st; ++k) {
    x->vars[s->slot] = perm[k];
    st = run_body(x, first, end);
  }
  free(perm);
  return st;
}

/* The FIFO of PHASE si: its slot, plus its offset in a phase loop. */
static collrt_status_t phase_fifo(expander_t *x, unsigned si) {
  const collrt_stmt_t *s = &x->plan->stmts[si];
  int64_t offset = 0;
  collrt_status_t st;
  if (s->expr[COLLRT_E_FIFO_OFFSET] != COLLRT_EXPR_NONE &&
      (st = eval(x, si, COLLRT_E_FIFO_OFFSET, &offset)))
    return st;
  /* slot < nfifos (validated), so this cannot overflow */
  if (offset < 0 || offset >= (int64_t)x->plan->desc.nfifos - s->slot) {
    collrt_diag_set(x->diag, "stmt[%u] PHASE on rank %d: FIFO %u + %lld is outside the plan's %u FIFOs",
                    si, x->in->rank, s->slot, (long long)offset, x->plan->desc.nfifos);
    return COLLRT_ERR_BOUNDS;
  }
  x->fifo = s->slot + (int)offset;
  return COLLRT_OK;
}

/* ARENA: the node arena's size, which the transfers after it may address. */
static collrt_status_t arena(expander_t *x, unsigned si) {
  int64_t bytes, counters;
  collrt_status_t st;
  if ((st = eval(x, si, COLLRT_E_ARENA_BYTES, &bytes)) ||
      (st = eval(x, si, COLLRT_E_ARENA_COUNTERS, &counters)))
    return st;
  /* the node's ranks share it: the budget is a rank's, times the node's */
  int64_t rpn = (int64_t)x->plan->desc.ranks_per_node;
  int64_t data = x->in->send_bytes + x->in->recv_bytes, budget = BUDGET_BASE_SCRATCH;
  if (data <= INT64_MAX / BUDGET_SCRATCH_PER_BYTE / rpn && BUDGET_SCRATCH_PER_BYTE * data * rpn > budget)
    budget = BUDGET_SCRATCH_PER_BYTE * data * rpn;
  else if (data > INT64_MAX / BUDGET_SCRATCH_PER_BYTE / rpn)
    budget = INT64_MAX;
  if (bytes < 0 || bytes > budget) {
    collrt_diag_set(x->diag, "stmt[%u] ARENA on rank %d: %lld bytes is %s", si, x->in->rank, (long long)bytes,
                    bytes < 0 ? "negative" : "more than the bind budget (max(1 GiB, 4 x the user's buffers x ranks per node))");
    return COLLRT_ERR_BOUNDS;
  }
  if (counters < 0 || counters > COLLRT_MAX_ARENA_COUNTERS) {
    collrt_diag_set(x->diag, "stmt[%u] ARENA on rank %d: %lld counters is outside [0, %d]", si, x->in->rank,
                    (long long)counters, COLLRT_MAX_ARENA_COUNTERS);
    return COLLRT_ERR_BOUNDS;
  }
  x->buf_bytes[COLLRT_BUF_ARENA] = bytes;
  x->arena_counters = counters;
  return COLLRT_OK;
}

static collrt_status_t run_body(expander_t *x, unsigned first, unsigned end) {
  const collrt_stmt_t *stmts = x->plan->stmts;
  collrt_status_t st;
  for (unsigned i = first; i < end; i += 1u + stmts[i].body) {
    const collrt_stmt_t *s = &stmts[i];
    if (++x->executed > x->stmt_budget) {
      collrt_diag_set(x->diag, "stmt[%u] on rank %d: more than %llu statements executed (the bind budget; set COLLRT_STEP_BUDGET to allow more)",
                      i, x->in->rank, (unsigned long long)x->stmt_budget);
      return COLLRT_ERR_BOUNDS;
    }
    int64_t v;
    switch (s->kind) {
    case COLLRT_STMT_PHASE:
      if (x->exchange)
        return COLLRT_OK; /* every EXCHANGE precedes the first PHASE */
      if ((st = phase_fifo(x, i)))
        return st;
      st = run_body(x, i + 1, i + 1 + s->body);
      break;
    case COLLRT_STMT_EXCHANGE:
      st = x->exchange ? run_body(x, i + 1, i + 1 + s->body) : COLLRT_OK;
      break;
    case COLLRT_STMT_PUT: st = put(x, i); break;
    case COLLRT_STMT_FOR: st = run_for(x, i); break;
    case COLLRT_STMT_IF:
      st = eval(x, i, COLLRT_E_COND, &v);
      if (!st && v)
        st = run_body(x, i + 1, i + 1 + s->body);
      break;
    case COLLRT_STMT_LET:
      st = eval(x, i, COLLRT_E_VALUE, &v);
      x->vars[s->slot] = v;
      break;
    case COLLRT_STMT_SEG: st = segment(x, i); break;
    case COLLRT_STMT_ARENA: st = x->exchange ? COLLRT_OK : arena(x, i); break;
    case COLLRT_STMT_DEP: {
      int64_t wi, wj;
      if (!(st = eval(x, i, COLLRT_E_WAIT_I, &wi)) && !(st = eval(x, i, COLLRT_E_WAIT_J, &wj)))
        st = add_wait(x, i, s->wait_event, wi, wj);
      break;
    }
    default: st = transfer(x, i); break;
    }
    if (st)
      return st;
  }
  return COLLRT_OK;
}

/* The budget, given COLLRT_STEP_BUDGET's value (0: unset). */
static uint64_t step_budget(const collrt_expand_input_t *in, long long setting) {
  if (setting > 0)
    return (uint64_t)setting < COLLRT_MAX_STEPS ? (uint64_t)setting : COLLRT_MAX_STEPS;
  uint64_t b = BUDGET_BASE_STEPS + BUDGET_STEPS_PER_RANK * (uint64_t)in->size +
               (uint64_t)(in->send_bytes + in->recv_bytes) / BUDGET_BYTES_PER_STEP;
  return b < COLLRT_MAX_STEPS ? b : COLLRT_MAX_STEPS;
}

uint64_t collrt_step_budget(const collrt_expand_input_t *in) {
  long long setting = 0; /* a malformed setting: expansion refuses it (below) */
  collrt_env_int("COLLRT_STEP_BUDGET", &setting, NULL);
  return step_budget(in, setting);
}

/* Checks the arguments and prepares an expander for input->rank. */
static collrt_status_t expander_init(expander_t *x, const collrt_plan_t *plan,
                                     const collrt_expand_input_t *in, collrt_diag_t *diag) {
  if (!plan || !in || in->size < 1 || in->rank < 0 || in->rank >= in->size ||
      !in->scounts || !in->sdispls || !in->rcounts || !in->rdispls ||
      in->send_bytes < 0 || in->recv_bytes < 0) {
    collrt_diag_set(diag, "collrt_expand: NULL argument or rank/size/buffer sizes out of range");
    return COLLRT_ERR_ARG;
  }
  collrt_status_t fit = collrt_plan_check_size(plan, in->size, diag);
  if (fit != COLLRT_OK)
    return fit;
  /* a malformed COLLRT_STEP_BUDGET (-1, 0, 1e6) is an error, not the default */
  long long budget_setting = 0;
  collrt_status_t st = collrt_env_int("COLLRT_STEP_BUDGET", &budget_setting, diag);
  if (st)
    return st;
  memset(x, 0, sizeof *x);
  x->plan = plan;
  x->in = in;
  x->diag = diag;
  x->ctx.desc = &plan->desc;
  x->ctx.in = in;
  x->ctx.vars = x->vars;
  x->ctx.sum_budget = &x->sum_budget;
  x->buf_bytes[COLLRT_BUF_SEND] = in->send_bytes;
  x->buf_bytes[COLLRT_BUF_RECV] = in->recv_bytes;
  x->step_budget = step_budget(in, budget_setting);
  x->stmt_budget = BUDGET_STMTS_PER_STEP * x->step_budget;
  x->sum_budget = x->stmt_budget;
  x->xfer = -1;
  return COLLRT_OK;
}

int collrt_plan_has_exchange(const collrt_plan_t *plan) { return plan && plan->has_exchange; }
int collrt_plan_has_arena(const collrt_plan_t *plan) { return plan && plan->has_arena; }

collrt_status_t collrt_exchange_puts(const collrt_plan_t *plan,
                                     const collrt_expand_input_t *in,
                                     collrt_put_t **out, size_t *out_count,
                                     collrt_diag_t *diag) {
  if (!out || !out_count) {
    collrt_diag_set(diag, "collrt_exchange_puts: NULL output");
    return COLLRT_ERR_ARG;
  }
  *out = NULL;
  *out_count = 0;
  expander_t x;
  collrt_status_t st = expander_init(&x, plan, in, diag);
  if (st)
    return st;
  /* The first pass runs the top level up to the last EXCHANGE: the LETs
   * after it may read TABLE (plan_format.h, "Bind-time exchange"). */
  const collrt_stmt_t *stmts = plan->desc.stmts;
  unsigned end = 0;
  for (unsigned i = 0; i < plan->desc.nstmts; i += 1u + stmts[i].body)
    if (stmts[i].kind == COLLRT_STMT_EXCHANGE)
      end = i + 1u + stmts[i].body;
  x.exchange = 1;
  st = run_body(&x, 0, end);
  if (!st) {
    *out = x.puts.data;
    *out_count = x.puts.count;
    x.puts.data = NULL;
  }
  free(x.puts.data);
  return st;
}

static int cmp_entry(const void *pa, const void *pb) {
  const collrt_table_entry_t *a = pa, *b = pb;
  if (a->table != b->table)
    return a->table < b->table ? -1 : 1;
  if (a->index != b->index) /* then by sender: TABLE_ANY finds an index's senders together */
    return a->index < b->index ? -1 : 1;
  return a->from < b->from ? -1 : a->from > b->from;
}

collrt_status_t collrt_tables_sort(collrt_table_entry_t *e, size_t n, int rank,
                                   collrt_diag_t *diag) {
  if (n)
    qsort(e, n, sizeof *e, cmp_entry);
  for (size_t k = 1; k < n; ++k)
    if (!cmp_entry(&e[k - 1], &e[k])) {
      collrt_diag_set(diag, "bind-time exchange: rank %d PUT entry %lld of table %u to rank %d twice (values %lld and %lld)",
                      e[k].from, (long long)e[k].index, e[k].table, rank,
                      (long long)e[k - 1].value, (long long)e[k].value);
      return COLLRT_ERR_COUNTS;
    }
  /* running sums per table, for TABLE_SUM; a sum past int64 marks the
   * entries after it, and only a TABLE_SUM that reads one fails */
  int64_t sum = 0;
  int over = 0;
  for (size_t k = 0; k < n; ++k) {
    if (k == 0 || e[k].table != e[k - 1].table)
      sum = 0, over = 0;
    e[k].before = sum;
    e[k].overflow = (uint8_t)over;
    over |= __builtin_add_overflow(sum, e[k].value, &sum);
  }
  return COLLRT_OK;
}

collrt_status_t collrt_expand(const collrt_plan_t *plan,
                              const collrt_expand_input_t *in,
                              collrt_steps_t *out, collrt_diag_t *diag) {
  if (!out) {
    collrt_diag_set(diag, "collrt_expand: NULL output");
    return COLLRT_ERR_ARG;
  }
  memset(out, 0, sizeof *out);
  expander_t x;
  collrt_status_t st = expander_init(&x, plan, in, diag);
  if (st)
    return st;
  int64_t scratch = 0;
  if (plan->desc.scratch_expr != COLLRT_EXPR_NONE) {
    char why[200];
    st = collrt_expr_eval(&x.ctx, plan->desc.scratch_expr, &scratch, why, sizeof why);
    if (st) {
      collrt_diag_set(diag, "scratch_expr on rank %d: %s", in->rank, why);
      goto out;
    }
    if (scratch < 0) {
      collrt_diag_set(diag, "scratch_expr on rank %d is %lld bytes, negative", in->rank, (long long)scratch);
      st = COLLRT_ERR_BOUNDS;
      goto out;
    }
    int64_t data = in->send_bytes + in->recv_bytes;
    int64_t scratch_budget = BUDGET_BASE_SCRATCH > BUDGET_SCRATCH_PER_BYTE * data
                                 ? BUDGET_BASE_SCRATCH
                                 : BUDGET_SCRATCH_PER_BYTE * data;
    if (scratch > scratch_budget) {
      collrt_diag_set(diag, "scratch_expr on rank %d asks for %lld bytes, more than the bind budget of %lld (max(1 GiB, 4 x the %lld bytes of the user's buffers))",
                      in->rank, (long long)scratch, (long long)scratch_budget, (long long)data);
      st = COLLRT_ERR_BOUNDS;
      goto out;
    }
  }
  x.buf_bytes[COLLRT_BUF_SCRATCH] = scratch;
  if ((st = run_body(&x, 0, plan->desc.nstmts)) || (st = resolve_all(&x)))
    goto out;
  /* growth doubled the arrays; a bound collective keeps them, so trim */
  vec_trim(&x.steps, sizeof(collrt_step_t));
  vec_trim(&x.deps, sizeof(uint32_t));
  vec_trim(&x.segs, sizeof(collrt_seg_t));
  out->steps = x.steps.data;
  out->count = x.steps.count;
  out->deps = x.deps.data;
  out->ndeps = x.deps.count;
  out->segs = x.segs.data;
  out->nsegs = x.segs.count;
  out->scratch_bytes = scratch;
  out->arena_bytes = x.buf_bytes[COLLRT_BUF_ARENA];
  out->arena_counters = x.arena_counters;
  out->has_arena = plan->has_arena;
  x.steps.data = x.deps.data = x.segs.data = NULL;
out:
  free(x.steps.data);
  free(x.deps.data);
  free(x.segs.data);
  free(x.dst_segs.data);
  free(x.nodes.data);
  free(x.waits.data);
  free(x.events);
  free(x.puts.data);
  return st;
}

void collrt_steps_free(collrt_steps_t *steps) {
  if (!steps)
    return;
  free(steps->steps);
  free(steps->deps);
  free(steps->segs);
  memset(steps, 0, sizeof *steps);
}

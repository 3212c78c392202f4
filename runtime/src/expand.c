/* Expansion: the plan's program interpreted for one rank, producing the
 * rank's steps with their event dependencies resolved to step indices. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "expr_eval.h"
#include "plan_internal.h"

/* Bounds the interpretation work of loops that produce no steps. */
#define MAX_EXECUTED_STMTS (1ull << 28)

typedef struct event_slot {
  int64_t i, j;
  int32_t step; /* step index, or -1 if satisfied without a step */
  uint8_t id;   /* event id + 1; 0 = empty slot */
} event_slot_t;

typedef struct expander {
  const collrt_plan_t *plan;
  const collrt_expand_input_t *in;
  collrt_diag_t *diag;
  int64_t vars[COLLRT_MAX_VARS];
  collrt_expr_ctx_t ctx;
  collrt_step_t *steps;
  size_t nsteps, cap;
  event_slot_t *events;
  size_t ev_count, ev_cap; /* ev_cap is a power of two or 0 */
  uint64_t executed;
  int fifo;
  int64_t buf_bytes[COLLRT_BUF_COUNT_];
} expander_t;

/* splitmix64 (Steele, Lea, Flood 2014); see the FOR comment of plan_format.h */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
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
  return k == COLLRT_STMT_SEND ? "SEND" : k == COLLRT_STMT_RECV ? "RECV" : "COPY";
}

static collrt_status_t check_region(expander_t *x, unsigned si, const char *what,
                                    uint8_t buf, int64_t off, int64_t len) {
  static const char *bufs[] = {"send", "receive", "scratch"};
  int64_t cap = x->buf_bytes[buf];
  if (off < 0 || off > cap || len > cap - off) {
    collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: %s region [%lld, %lld + %lld) is outside the %lld-byte %s buffer",
                    si, kind_name(x->plan->stmts[si].kind), x->in->rank, what,
                    (long long)off, (long long)off, (long long)len, (long long)cap, bufs[buf]);
    return COLLRT_ERR_BOUNDS;
  }
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
  int64_t len = e[COLLRT_E_LEN];
  if (len < 0 || len > INT_MAX) {
    collrt_diag_set(x->diag, "stmt[%u] %s on rank %d: length %lld is outside [0, %d]",
                    si, kind_name(s->kind), rank, (long long)len, INT_MAX);
    return COLLRT_ERR_BOUNDS;
  }
  int32_t dep = -1;
  if (s->wait_event) {
    event_slot_t *ev = event_find(x, s->wait_event, e[COLLRT_E_WAIT_I], e[COLLRT_E_WAIT_J]);
    if (!ev || !ev->id) {
      collrt_diag_set(x->diag, "stmt[%u] %s on rank %d waits on event %u(%lld, %lld), which no earlier transfer signalled",
                      si, kind_name(s->kind), rank, s->wait_event - 1u,
                      (long long)e[COLLRT_E_WAIT_I], (long long)e[COLLRT_E_WAIT_J]);
      return COLLRT_ERR_BOUNDS;
    }
    dep = ev->step;
  }
  int32_t produced = dep; /* a skipped transfer passes its dependency on */
  if (len > 0) {
    if (s->kind != COLLRT_STMT_COPY) {
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
      if ((st = check_region(x, si, "buffer", s->buf0, e[COLLRT_E_OFF], len)))
        return st;
    } else {
      if ((st = check_region(x, si, "source", s->buf0, e[COLLRT_E_SRC_OFF], len)) ||
          (st = check_region(x, si, "destination", s->buf1, e[COLLRT_E_DST_OFF], len)))
        return st;
    }
    if (x->nsteps >= COLLRT_MAX_STEPS) {
      collrt_diag_set(x->diag, "stmt[%u] on rank %d: more than %u steps", si, rank, COLLRT_MAX_STEPS);
      return COLLRT_ERR_BOUNDS;
    }
    if (x->nsteps == x->cap) {
      size_t ncap = x->cap ? 2 * x->cap : 64;
      collrt_step_t *n = realloc(x->steps, ncap * sizeof *n);
      if (!n) {
        collrt_diag_set(x->diag, "cannot allocate %zu steps", ncap);
        return COLLRT_ERR_NOMEM;
      }
      x->steps = n;
      x->cap = ncap;
    }
    collrt_step_t *p = &x->steps[x->nsteps];
    memset(p, 0, sizeof *p);
    p->kind = s->kind == COLLRT_STMT_SEND ? COLLRT_STEP_SEND
              : s->kind == COLLRT_STMT_RECV ? COLLRT_STEP_RECV
                                            : COLLRT_STEP_COPY;
    p->fifo = (uint8_t)x->fifo;
    p->buf = s->buf0;
    p->dep = dep;
    p->len = len;
    p->stmt = (uint16_t)si;
    if (s->kind == COLLRT_STMT_COPY) {
      p->dst_buf = s->buf1;
      p->off = e[COLLRT_E_SRC_OFF];
      p->dst_off = e[COLLRT_E_DST_OFF];
      p->peer = -1;
      p->tag = -1;
    } else {
      p->peer = (int32_t)e[COLLRT_E_PEER];
      p->tag = (int32_t)e[COLLRT_E_TAG];
      p->off = e[COLLRT_E_OFF];
    }
    produced = (int32_t)x->nsteps++;
  }
  if (s->signal_event) {
    if (2 * (x->ev_count + 1) > x->ev_cap && (st = event_grow(x)))
      return st;
    event_slot_t *ev = event_find(x, s->signal_event, e[COLLRT_E_SIGNAL_I], e[COLLRT_E_SIGNAL_J]);
    if (ev->id) {
      collrt_diag_set(x->diag, "stmt[%u] %s on rank %d signals event %u(%lld, %lld), which stmt[%u] already signalled",
                      si, kind_name(s->kind), rank, s->signal_event - 1u,
                      (long long)e[COLLRT_E_SIGNAL_I], (long long)e[COLLRT_E_SIGNAL_J],
                      ev->step >= 0 ? x->steps[ev->step].stmt : 0xFFFFu);
      return COLLRT_ERR_BOUNDS;
    }
    ev->id = s->signal_event;
    ev->i = e[COLLRT_E_SIGNAL_I];
    ev->j = e[COLLRT_E_SIGNAL_J];
    ev->step = produced;
    ++x->ev_count;
  }
  return COLLRT_OK;
}

static collrt_status_t run_body(expander_t *x, unsigned first, unsigned end);

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
    if (n > MAX_EXECUTED_STMTS - x->executed) {
      collrt_diag_set(x->diag, "stmt[%u] FOR on rank %d: %llu iterations exceed the interpretation limit",
                      si, x->in->rank, (unsigned long long)n);
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
  if (n > COLLRT_MAX_STEPS) {
    collrt_diag_set(x->diag, "stmt[%u] FOR on rank %d: random range of %llu values exceeds %u",
                    si, x->in->rank, (unsigned long long)n, COLLRT_MAX_STEPS);
    return COLLRT_ERR_BOUNDS;
  }
  int64_t *perm = malloc(n * sizeof *perm);
  if (!perm) {
    collrt_diag_set(x->diag, "cannot allocate a %llu-entry permutation", (unsigned long long)n);
    return COLLRT_ERR_NOMEM;
  }
  /* Fisher-Yates; see the FOR comment of plan_format.h for the exact rule. */
  uint64_t state = (uint64_t)seed * 0x9E3779B97F4A7C15ull + (uint64_t)x->in->rank;
  for (uint64_t k = 0; k < n; ++k)
    perm[k] = lo + (int64_t)k;
  for (uint64_t k = n - 1; k > 0; --k) {
    uint64_t j = splitmix64(&state) % (k + 1);
    int64_t t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
  for (uint64_t k = 0; k < n && !st; ++k) {
    x->vars[s->slot] = perm[k];
    st = run_body(x, first, end);
  }
  free(perm);
  return st;
}

static collrt_status_t run_body(expander_t *x, unsigned first, unsigned end) {
  const collrt_stmt_t *stmts = x->plan->stmts;
  collrt_status_t st;
  for (unsigned i = first; i < end; i += 1u + stmts[i].body) {
    const collrt_stmt_t *s = &stmts[i];
    if (++x->executed > MAX_EXECUTED_STMTS) {
      collrt_diag_set(x->diag, "stmt[%u] on rank %d: more than %llu statements executed",
                      i, x->in->rank, (unsigned long long)MAX_EXECUTED_STMTS);
      return COLLRT_ERR_BOUNDS;
    }
    int64_t v;
    switch (s->kind) {
    case COLLRT_STMT_PHASE:
      x->fifo = s->slot;
      st = run_body(x, i + 1, i + 1 + s->body);
      break;
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
    default: st = transfer(x, i); break;
    }
    if (st)
      return st;
  }
  return COLLRT_OK;
}

collrt_status_t collrt_expand(const collrt_plan_t *plan,
                              const collrt_expand_input_t *in,
                              collrt_steps_t *out, collrt_diag_t *diag) {
  if (!plan || !in || !out || in->size < 1 || in->rank < 0 || in->rank >= in->size ||
      !in->scounts || !in->sdispls || !in->rcounts || !in->rdispls ||
      in->send_bytes < 0 || in->recv_bytes < 0) {
    collrt_diag_set(diag, "collrt_expand: NULL argument or rank/size/buffer sizes out of range");
    return COLLRT_ERR_ARG;
  }
  memset(out, 0, sizeof *out);
  collrt_status_t fit = collrt_plan_check_size(plan, in->size, diag);
  if (fit != COLLRT_OK)
    return fit;
  expander_t x;
  memset(&x, 0, sizeof x);
  x.plan = plan;
  x.in = in;
  x.diag = diag;
  x.ctx.desc = &plan->desc;
  x.ctx.in = in;
  x.ctx.vars = x.vars;
  x.buf_bytes[COLLRT_BUF_SEND] = in->send_bytes;
  x.buf_bytes[COLLRT_BUF_RECV] = in->recv_bytes;
  collrt_status_t st = COLLRT_OK;
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
  }
  x.buf_bytes[COLLRT_BUF_SCRATCH] = scratch;
  if ((st = run_body(&x, 0, plan->desc.nstmts)))
    goto out;
  out->steps = x.steps;
  out->count = x.nsteps;
  out->scratch_bytes = scratch;
  x.steps = NULL;
out:
  free(x.steps);
  free(x.events);
  return st;
}

void collrt_steps_free(collrt_steps_t *steps) {
  if (!steps)
    return;
  free(steps->steps);
  steps->steps = NULL;
  steps->count = 0;
}

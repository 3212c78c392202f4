/* Hazard check: every pair of overlapping accesses with a write must be
 * ordered by dependencies (see hazard.h). Accesses are sorted by buffer and
 * offset, overlapping pairs found by a sweep, and each pair's order looked up
 * by a search over the dependency lists (either direction). */
#include <stdlib.h>

#include "diag.h"
#include "hazard.h"

typedef struct access {
  int64_t lo, hi;
  uint32_t step;
  uint8_t buf, write;
} access_t;

typedef struct checker {
  const collrt_steps_t *ss;
  access_t *acc;
  size_t nacc, cap;
  uint32_t *mark, epoch;
  uint32_t *stack;
} checker_t;

static int add(checker_t *h, uint32_t step, const collrt_region_t *r, int write) {
  uint32_t n = r->nsegs ? r->nsegs : 1;
  const collrt_seg_t *g = r->nsegs ? r->segs : &r->whole;
  for (uint32_t k = 0; k < n; ++k) {
    if (h->nacc == h->cap) {
      size_t ncap = h->cap ? 2 * h->cap : 256;
      access_t *a = realloc(h->acc, ncap * sizeof *a);
      if (!a)
        return -1;
      h->acc = a;
      h->cap = ncap;
    }
    if (g[k].buf == COLLRT_BUF_ARENA)
      continue; /* the node's: collrt_check_arena_hazards */
    h->acc[h->nacc++] = (access_t){g[k].off, g[k].off + g[k].len, step, g[k].buf, (uint8_t)write};
  }
  return 0;
}

static int cmp_access(const void *pa, const void *pb) {
  const access_t *a = pa, *b = pb;
  if (a->buf != b->buf)
    return a->buf < b->buf ? -1 : 1;
  if (a->lo != b->lo)
    return a->lo < b->lo ? -1 : 1;
  return a->step < b->step ? -1 : a->step > b->step;
}

/* 1 if step `from` waits, through some chain of dependencies, on `to`. */
static int waits_on(checker_t *h, uint32_t from, uint32_t to) {
  const collrt_steps_t *ss = h->ss;
  size_t top = 0;
  ++h->epoch;
  h->stack[top++] = from;
  h->mark[from] = h->epoch;
  while (top) {
    const collrt_step_t *s = &ss->steps[h->stack[--top]];
    for (uint32_t k = 0; k < s->ndeps; ++k) {
      uint32_t d = ss->deps[s->dep_begin + k];
      if (d == to)
        return 1;
      if (h->mark[d] != h->epoch) {
        h->mark[d] = h->epoch;
        h->stack[top++] = d;
      }
    }
  }
  return 0;
}

collrt_status_t collrt_check_hazards(const collrt_steps_t *ss, int rank, collrt_diag_t *diag) {
  static const char *bufs[] = {"send", "receive", "scratch"};
  static const char *kinds[] = {"?", "SEND", "RECV", "COPY", "NOTIFY", "AWAIT", "REDUCE"};
  checker_t h = {ss, NULL, 0, 0, NULL, 0, NULL};
  collrt_status_t st = COLLRT_OK;
  h.mark = calloc(ss->count + 1, sizeof *h.mark);
  h.stack = malloc((ss->count + 1) * sizeof *h.stack);
  if (!h.mark || !h.stack)
    goto nomem;
  for (size_t i = 0; i < ss->count; ++i) {
    const collrt_step_t *s = &ss->steps[i];
    collrt_region_t r;
    if (collrt_step_is_signal(s->kind))
      continue;
    if (s->kind != COLLRT_STEP_RECV) {
      collrt_step_source(ss, s, &r);
      if (add(&h, (uint32_t)i, &r, 0))
        goto nomem;
    }
    if (s->kind != COLLRT_STEP_SEND) {
      collrt_step_dest(ss, s, &r);
      if (add(&h, (uint32_t)i, &r, 1))
        goto nomem;
    }
  }
  if (h.nacc) /* qsort of a NULL array is undefined even for 0 entries */
    qsort(h.acc, h.nacc, sizeof *h.acc, cmp_access);
  for (size_t a = 0; a < h.nacc && !st; ++a) {
    const access_t *x = &h.acc[a];
    for (size_t b = a + 1; b < h.nacc && h.acc[b].buf == x->buf && h.acc[b].lo < x->hi; ++b) {
      const access_t *y = &h.acc[b];
      if ((!x->write && !y->write) || x->step == y->step)
        continue;
      /* the later step usually waits on the earlier: search that way first */
      uint32_t e = x->step < y->step ? x->step : y->step, l = x->step ^ y->step ^ e;
      if (waits_on(&h, l, e) || waits_on(&h, e, l))
        continue;
      const access_t *ae = e == x->step ? x : y, *al = e == x->step ? y : x;
      int64_t lo = y->lo, hi = x->hi < y->hi ? x->hi : y->hi;
      collrt_diag_set(diag, "rank %d: race on %s buffer bytes [%lld, %lld): stmt[%u] %s (%s) and stmt[%u] %s (%s) touch them with no chain of waits between them",
                      rank, bufs[x->buf], (long long)lo, (long long)hi, ss->steps[e].stmt,
                      kinds[ss->steps[e].kind], ae->write ? "writes" : "reads", ss->steps[l].stmt,
                      kinds[ss->steps[l].kind], al->write ? "writes" : "reads");
      st = COLLRT_ERR_BOUNDS;
      break;
    }
  }
  goto out;
nomem:
  collrt_diag_set(diag, "rank %d: cannot allocate the hazard check for %zu steps", rank, ss->count);
  st = COLLRT_ERR_NOMEM;
out:
  free(h.acc);
  free(h.mark);
  free(h.stack);
  return st;
}

/* ---- the node arena: accesses by several ranks ---- */

typedef struct node_checker {
  const collrt_steps_t *const *ss;
  int n;
  size_t *base;      /* global index of rank k's step 0 */
  size_t total;
  size_t *notify;    /* NOTIFY steps (global), by counter: notify[nbegin[c] ..] */
  size_t *nbegin;
  int64_t ncounters;
  uint32_t *mark, epoch;
  size_t *stack;
} node_checker_t;

static int owner_of(const node_checker_t *h, size_t g) {
  int lo = 0, hi = h->n - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (h->base[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static const collrt_step_t *node_step(const node_checker_t *h, size_t g) {
  int k = owner_of(h, g);
  return &h->ss[k]->steps[g - h->base[k]];
}

/* 1 if global step `to` happens before global step `from` starts. */
static int node_waits_on(node_checker_t *h, size_t from, size_t to) {
  size_t top = 0;
  ++h->epoch;
  h->stack[top++] = from;
  h->mark[from] = h->epoch;
  while (top) {
    size_t g = h->stack[--top];
    int k = owner_of(h, g);
    const collrt_steps_t *ss = h->ss[k];
    const collrt_step_t *s = &ss->steps[g - h->base[k]];
    size_t npred = s->ndeps, nnotify = 0;
    if (s->kind == COLLRT_STEP_AWAIT && s->peer < h->ncounters)
      nnotify = h->nbegin[s->peer + 1] - h->nbegin[s->peer];
    for (size_t p = 0; p < npred + nnotify; ++p) {
      size_t d = p < npred ? h->base[k] + ss->deps[s->dep_begin + p]
                           : h->notify[h->nbegin[s->peer] + (p - npred)];
      if (d == to)
        return 1;
      if (h->mark[d] != h->epoch) {
        h->mark[d] = h->epoch;
        h->stack[top++] = d;
      }
    }
  }
  return 0;
}

typedef struct arena_access {
  int64_t lo, hi;
  size_t step; /* global */
  uint8_t write;
} arena_access_t;

static int cmp_arena_access(const void *pa, const void *pb) {
  const arena_access_t *a = pa, *b = pb;
  if (a->lo != b->lo)
    return a->lo < b->lo ? -1 : 1;
  return a->step < b->step ? -1 : a->step > b->step;
}

static int add_arena(arena_access_t **acc, size_t *nacc, size_t *cap, size_t g,
                     const collrt_region_t *r, int write) {
  uint32_t n = r->nsegs ? r->nsegs : 1;
  const collrt_seg_t *seg = r->nsegs ? r->segs : &r->whole;
  for (uint32_t k = 0; k < n; ++k) {
    if (seg[k].buf != COLLRT_BUF_ARENA)
      continue;
    if (*nacc == *cap) {
      size_t ncap = *cap ? 2 * *cap : 256;
      arena_access_t *a = realloc(*acc, ncap * sizeof *a);
      if (!a)
        return -1;
      *acc = a;
      *cap = ncap;
    }
    (*acc)[(*nacc)++] = (arena_access_t){seg[k].off, seg[k].off + seg[k].len, g, (uint8_t)write};
  }
  return 0;
}

collrt_status_t collrt_check_arena_hazards(const collrt_steps_t *const *ss, const int *ranks,
                                           int n, collrt_diag_t *diag) {
  static const char *kinds[] = {"?", "SEND", "RECV", "COPY", "NOTIFY", "AWAIT", "REDUCE"};
  node_checker_t h = {ss, n, NULL, 0, NULL, NULL, 0, NULL, 0, NULL};
  arena_access_t *acc = NULL;
  size_t nacc = 0, cap = 0;
  collrt_status_t st = COLLRT_OK;
  h.base = malloc(((size_t)n + 1) * sizeof *h.base);
  if (!h.base)
    goto nomem;
  for (int k = 0; k < n; ++k) {
    h.base[k] = h.total;
    h.total += ss[k]->count;
    if (ss[k]->arena_counters > h.ncounters)
      h.ncounters = ss[k]->arena_counters;
  }
  h.nbegin = calloc((size_t)h.ncounters + 2, sizeof *h.nbegin);
  h.notify = malloc((h.total + 1) * sizeof *h.notify);
  h.mark = calloc(h.total + 1, sizeof *h.mark);
  h.stack = malloc((h.total + 1) * sizeof *h.stack);
  if (!h.nbegin || !h.notify || !h.mark || !h.stack)
    goto nomem;
  /* NOTIFYs by counter (a counting sort), and every arena access */
  for (int k = 0; k < n; ++k)
    for (size_t i = 0; i < ss[k]->count; ++i)
      if (ss[k]->steps[i].kind == COLLRT_STEP_NOTIFY)
        ++h.nbegin[ss[k]->steps[i].peer + 1];
  for (int64_t c = 0; c < h.ncounters; ++c)
    h.nbegin[c + 1] += h.nbegin[c];
  h.nbegin[h.ncounters + 1] = h.nbegin[h.ncounters];
  size_t *fill = calloc((size_t)h.ncounters + 1, sizeof *fill);
  if (!fill)
    goto nomem;
  for (int k = 0; k < n; ++k)
    for (size_t i = 0; i < ss[k]->count; ++i) {
      const collrt_step_t *s = &ss[k]->steps[i];
      size_t g = h.base[k] + i;
      if (s->kind == COLLRT_STEP_NOTIFY) {
        h.notify[h.nbegin[s->peer] + fill[s->peer]++] = g;
        continue;
      }
      if (collrt_step_is_signal(s->kind))
        continue;
      collrt_region_t r;
      int bad = 0;
      if (s->kind != COLLRT_STEP_RECV) {
        collrt_step_source(ss[k], s, &r);
        bad |= add_arena(&acc, &nacc, &cap, g, &r, 0);
      }
      if (s->kind != COLLRT_STEP_SEND) {
        collrt_step_dest(ss[k], s, &r);
        bad |= add_arena(&acc, &nacc, &cap, g, &r, 1);
      }
      if (bad) {
        free(fill);
        goto nomem;
      }
    }
  free(fill);
  if (nacc)
    qsort(acc, nacc, sizeof *acc, cmp_arena_access);
  for (size_t a = 0; a < nacc && !st; ++a) {
    const arena_access_t *x = &acc[a];
    for (size_t b = a + 1; b < nacc && acc[b].lo < x->hi; ++b) {
      const arena_access_t *y = &acc[b];
      if ((!x->write && !y->write) || x->step == y->step)
        continue;
      if (node_waits_on(&h, y->step, x->step) || node_waits_on(&h, x->step, y->step))
        continue;
      const collrt_step_t *sx = node_step(&h, x->step), *sy = node_step(&h, y->step);
      int64_t hi = x->hi < y->hi ? x->hi : y->hi;
      collrt_diag_set(diag, "node of rank %d: race on arena bytes [%lld, %lld): rank %d's stmt[%u] %s (%s) and rank %d's stmt[%u] %s (%s) touch them with no chain of waits or NOTIFY -> AWAIT between them",
                      ranks[0], (long long)y->lo, (long long)hi, ranks[owner_of(&h, x->step)], sx->stmt,
                      kinds[sx->kind], x->write ? "writes" : "reads", ranks[owner_of(&h, y->step)],
                      sy->stmt, kinds[sy->kind], y->write ? "writes" : "reads");
      st = COLLRT_ERR_BOUNDS;
      break;
    }
  }
  goto out;
nomem:
  collrt_diag_set(diag, "node of rank %d: cannot allocate the arena hazard check", n ? ranks[0] : -1);
  st = COLLRT_ERR_NOMEM;
out:
  free(acc);
  free(h.base);
  free(h.nbegin);
  free(h.notify);
  free(h.mark);
  free(h.stack);
  return st;
}

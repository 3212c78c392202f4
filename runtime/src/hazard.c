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
  static const char *kinds[] = {"?", "SEND", "RECV", "COPY"};
  checker_t h = {ss, NULL, 0, 0, NULL, 0, NULL};
  collrt_status_t st = COLLRT_OK;
  h.mark = calloc(ss->count + 1, sizeof *h.mark);
  h.stack = malloc((ss->count + 1) * sizeof *h.stack);
  if (!h.mark || !h.stack)
    goto nomem;
  for (size_t i = 0; i < ss->count; ++i) {
    const collrt_step_t *s = &ss->steps[i];
    collrt_region_t r;
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

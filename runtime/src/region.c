/* The bytes a step reads and writes, contiguous or gathered: one walk shared
 * by the engine (copies), the simulator (messages and copies) and the
 * verifier's hazard check. */
#include "collc/plan.h"

void collrt_step_source(const collrt_steps_t *ss, const collrt_step_t *s, collrt_region_t *out) {
  out->segs = s->nsrc ? ss->segs + s->seg_begin : NULL;
  out->nsegs = s->nsrc;
  out->whole.buf = s->buf;
  out->whole.off = s->off;
  out->whole.len = s->len;
}

void collrt_step_dest(const collrt_steps_t *ss, const collrt_step_t *s, collrt_region_t *out) {
  if (s->kind == COLLRT_STEP_RECV) {
    collrt_step_source(ss, s, out); /* a RECV's one side is where it writes */
    return;
  }
  out->segs = s->ndst ? ss->segs + s->seg_begin + s->nsrc : NULL;
  out->nsegs = s->ndst;
  out->whole.buf = s->dst_buf;
  out->whole.off = s->dst_off;
  out->whole.len = s->len;
}

/* A cursor over a region's bytes: segment k, offset `at` inside it. */
typedef struct cursor {
  const collrt_seg_t *seg;
  uint32_t k, n;
  int64_t at;
} cursor_t;

static void cursor_init(cursor_t *c, const collrt_region_t *r, int64_t from) {
  c->seg = r->nsegs ? r->segs : &r->whole;
  c->n = r->nsegs ? r->nsegs : 1;
  c->k = 0;
  while (c->k + 1 < c->n && from >= c->seg[c->k].len) {
    from -= c->seg[c->k].len;
    ++c->k;
  }
  c->at = from;
}

static void cursor_advance(cursor_t *c, int64_t n) {
  c->at += n;
  if (c->at == c->seg[c->k].len && c->k + 1 < c->n) {
    ++c->k;
    c->at = 0;
  }
}

void collrt_region_pairs(const collrt_region_t *src, const collrt_region_t *dst, int64_t from,
                         int64_t len, collrt_piece_fn fn, void *ctx) {
  cursor_t a, b;
  cursor_init(&a, src, from);
  cursor_init(&b, dst, from);
  while (len > 0) {
    int64_t n = a.seg[a.k].len - a.at;
    if (b.seg[b.k].len - b.at < n)
      n = b.seg[b.k].len - b.at;
    if (len < n)
      n = len;
    fn(ctx, a.seg[a.k].buf, a.seg[a.k].off + a.at, b.seg[b.k].buf, b.seg[b.k].off + b.at, n);
    cursor_advance(&a, n);
    cursor_advance(&b, n);
    len -= n;
  }
}

static int region_uses_arena(const collrt_region_t *r) {
  if (!r->nsegs)
    return r->whole.buf == COLLRT_BUF_ARENA;
  for (uint32_t k = 0; k < r->nsegs; ++k)
    if (r->segs[k].buf == COLLRT_BUF_ARENA)
      return 1;
  return 0;
}

int collrt_step_uses_arena(const collrt_steps_t *ss, const collrt_step_t *s) {
  if (collrt_step_is_signal(s->kind))
    return 1;
  collrt_region_t r;
  if (s->kind != COLLRT_STEP_RECV) {
    collrt_step_source(ss, s, &r);
    if (region_uses_arena(&r))
      return 1;
  }
  if (s->kind == COLLRT_STEP_SEND)
    return 0;
  collrt_step_dest(ss, s, &r);
  return region_uses_arena(&r);
}

/* Link loads of a plan on its torus (collc/linkload.h). */
#include <stdlib.h>
#include <string.h>

#include "collc/linkload.h"
#include "diag.h"

typedef struct topo {
  int ndims;
  int n[COLLRT_MAX_DIMS];
  int wrap[COLLRT_MAX_DIMS];
  int rpn;
  uint32_t nodes;
} topo_t;

/* Directed link (node, dim, dir): index ((node * ndims) + dim) * 2 + (dir < 0). */
static size_t link_index(const topo_t *t, uint32_t node, int dim, int dir) {
  return ((size_t)node * (size_t)t->ndims + (size_t)dim) * 2 + (dir < 0);
}

static void coords(const topo_t *t, uint32_t node, int c[COLLRT_MAX_DIMS]) {
  for (int d = 0; d < t->ndims; ++d) {
    c[d] = (int)(node % (uint32_t)t->n[d]);
    node /= (uint32_t)t->n[d];
  }
}

static uint32_t node_at(const topo_t *t, const int c[COLLRT_MAX_DIMS]) {
  uint32_t node = 0;
  for (int d = t->ndims - 1; d >= 0; --d)
    node = node * (uint32_t)t->n[d] + (uint32_t)c[d];
  return node;
}

/* Walks `hops` links of dimension d in direction dir from c (updating c),
 * adding `bytes` to each (load may be NULL: count only). */
static void walk(const topo_t *t, int c[COLLRT_MAX_DIMS], int d, int dir, int hops,
                 double bytes, double *load, double class_bytes[][2]) {
  for (int h = 0; h < hops; ++h) {
    if (load)
      load[link_index(t, node_at(t, c), d, dir)] += bytes;
    class_bytes[d][dir < 0] += bytes;
    c[d] = (c[d] + dir + t->n[d]) % t->n[d];
  }
}

/* Routes `bytes` from node a to node b, dimension by dimension. */
static void route(const topo_t *t, uint32_t a, uint32_t b, double bytes, int adaptive,
                  double *load, double class_bytes[][2]) {
  int c[COLLRT_MAX_DIMS], to[COLLRT_MAX_DIMS];
  coords(t, a, c);
  coords(t, b, to);
  for (int d = 0; d < t->ndims; ++d) {
    int n = t->n[d], delta = ((to[d] - c[d]) % n + n) % n;
    if (!delta)
      continue;
    if (!t->wrap[d]) {
      int up = to[d] > c[d];
      walk(t, c, d, up ? 1 : -1, up ? to[d] - c[d] : c[d] - to[d], bytes, load, class_bytes);
    } else if (2 * delta < n) {
      walk(t, c, d, 1, delta, bytes, load, class_bytes);
    } else if (2 * delta > n) {
      walk(t, c, d, -1, n - delta, bytes, load, class_bytes);
    } else if (adaptive) {
      /* a tie: half each way, then on from the same coordinate */
      int other[COLLRT_MAX_DIMS];
      memcpy(other, c, sizeof other);
      walk(t, other, d, -1, delta, bytes / 2, load, class_bytes);
      walk(t, c, d, 1, delta, bytes / 2, load, class_bytes);
    } else {
      walk(t, c, d, c[d] == n / 2 ? -1 : 1, delta, bytes, load, class_bytes);
    }
    c[d] = to[d];
  }
}

/* Up to this many ranks, a plan with a bind-time exchange is routed (the
 * exchange holds every rank's records at once: the vmesh alltoallv puts
 * P + Pvx per rank, 35 MB at 1024 ranks). */
enum { MAX_EXCHANGE_RANKS = 1024 };

/* Every pair exchanges m bytes (alltoall(v)), or every rank contributes m
 * (allgatherv), laid out densely in rank order. */
static void regular_input(const collrt_plan_desc_t *d, int P, int me, int64_t m, int64_t *arr,
                          collrt_expand_input_t *in) {
  int64_t *sc = arr, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  for (int j = 0; j < P; ++j) {
    sc[j] = rc[j] = m;
    sd[j] = d->op == COLLRT_OP_ALLGATHERV ? 0 : j * m;
    rd[j] = j * m;
  }
  memset(in, 0, sizeof *in);
  in->size = P;
  in->rank = me;
  in->scounts = sc;
  in->sdispls = sd;
  in->rcounts = rc;
  in->rdispls = rd;
  in->send_bytes = d->op == COLLRT_OP_ALLGATHERV ? m : P * m;
  in->recv_bytes = P * m;
}

typedef struct input_ctx {
  const collrt_plan_desc_t *d;
  int P;
  int64_t m, *arr;
  collrt_expand_input_t in;
} input_ctx_t;

static const collrt_expand_input_t *rank_input(void *ctx, int p) {
  input_ctx_t *c = ctx;
  regular_input(c->d, c->P, p, c->m, c->arr, &c->in);
  return &c->in;
}

collrt_status_t collrt_link_load(const collrt_plan_t *plan,
                                 const collrt_link_load_input_t *input,
                                 collrt_link_load_t *out, collrt_diag_t *diag) {
  if (!plan || !input || !out || input->max_expanded < 1 || input->block_bytes < 0) {
    collrt_diag_set(diag, "collrt_link_load: bad arguments");
    return COLLRT_ERR_ARG;
  }
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  int has_exchange = collrt_plan_has_exchange(plan);
  topo_t t = {.ndims = d->ndims, .rpn = (int)d->ranks_per_node, .nodes = 1};
  for (int k = 0; k < t.ndims; ++k) {
    t.n[k] = (int)d->shape[k];
    t.wrap[k] = (d->wrap_mask >> k) & 1;
    t.nodes *= d->shape[k];
  }
  uint64_t P64 = collrt_plan_topology_ranks(plan);
  if (P64 > (1u << 20)) {
    collrt_diag_set(diag, "collrt_link_load: %llu ranks is beyond what it analyses (2^20)",
                    (unsigned long long)P64);
    return COLLRT_ERR_BOUNDS;
  }
  int P = (int)P64;
  if (has_exchange && P > MAX_EXCHANGE_RANKS) {
    collrt_diag_set(diag, "link loads of a plan with a bind-time exchange are computed up to "
                          "%d ranks (its tables need every rank's records at once); this plan "
                          "has %d", MAX_EXCHANGE_RANKS, P);
    return COLLRT_ERR_ARG;
  }
  int sampled = P > input->max_expanded && !has_exchange;
  int expand = sampled ? input->max_expanded : P;
  size_t nlinks = (size_t)t.nodes * (size_t)t.ndims * 2;
  double *load = sampled ? NULL : calloc(nlinks, sizeof *load);
  int64_t *arr = malloc(4 * (size_t)P * sizeof *arr);
  double class_bytes[COLLRT_MAX_DIMS][2] = {{0}};
  if ((!sampled && !load) || !arr) {
    free(load);
    free(arr);
    collrt_diag_set(diag, "collrt_link_load: cannot allocate for %d ranks", P);
    return COLLRT_ERR_NOMEM;
  }
  memset(out, 0, sizeof *out);
  out->ranks = P;
  out->expanded = expand;
  collrt_status_t st = COLLRT_OK;
  /* the exchange first, as bind runs it, when the plan has one */
  collrt_table_entry_t **entries = NULL;
  collrt_tables_t *tables = NULL;
  if (has_exchange) {
    entries = calloc((size_t)P, sizeof *entries);
    tables = calloc((size_t)P, sizeof *tables);
    input_ctx_t ctx = {d, P, input->block_bytes, arr, {0}};
    if (!entries || !tables) {
      collrt_diag_set(diag, "collrt_link_load: cannot allocate the exchange of %d ranks", P);
      st = COLLRT_ERR_NOMEM;
    } else {
      st = collrt_exchange_in_memory(plan, P, rank_input, &ctx, entries, tables, diag);
    }
  }
  uint64_t messages = 0;
  for (int k = 0; k < expand && !st; ++k) {
    /* evenly spread samples; every rank when exact */
    int me = sampled ? (int)(((int64_t)k * P) / expand) : k;
    collrt_expand_input_t in;
    collrt_steps_t steps;
    regular_input(d, P, me, input->block_bytes, arr, &in);
    if (has_exchange)
      in.tables = &tables[me];
    if ((st = collrt_expand(plan, &in, &steps, diag)))
      break;
    uint64_t mine = 0;
    for (size_t i = 0; i < steps.count; ++i) {
      const collrt_step_t *s = &steps.steps[i];
      if (s->kind != COLLRT_STEP_SEND)
        continue;
      uint32_t a = (uint32_t)(me / t.rpn), b = (uint32_t)(s->peer / t.rpn);
      if (a == b)
        continue;
      ++mine;
      route(&t, a, b, (double)s->len, input->adaptive, load, class_bytes);
    }
    messages += mine;
    if (mine > out->max_messages)
      out->max_messages = mine;
    if (steps.scratch_bytes > out->max_scratch)
      out->max_scratch = steps.scratch_bytes;
    collrt_steps_free(&steps);
  }
  if (!st) {
    double scale = (double)P / (double)expand;
    out->links = (uint32_t)nlinks;
    out->messages = (uint64_t)((double)messages * scale + 0.5);
    for (int k = 0; k < t.ndims; ++k)
      out->link_bytes += (class_bytes[k][0] + class_bytes[k][1]) * scale;
    if (!sampled) {
      for (size_t l = 0; l < nlinks; ++l)
        if (load[l] > out->hot_bytes) {
          out->hot_bytes = load[l];
          out->hot_node = (uint32_t)(l / 2 / (size_t)t.ndims);
          out->hot_dim = (int)(l / 2 % (size_t)t.ndims);
          out->hot_dir = l % 2 ? -1 : 1;
        }
    } else {
      /* a class's bytes spread over its t.nodes links */
      for (int k = 0; k < t.ndims; ++k)
        for (int dir = 0; dir < 2; ++dir) {
          double per_link = class_bytes[k][dir] * scale / (double)t.nodes;
          if (per_link > out->hot_bytes) {
            out->hot_bytes = per_link;
            out->hot_node = 0;
            out->hot_dim = k;
            out->hot_dir = dir ? -1 : 1;
          }
        }
    }
    out->hot_us = out->hot_bytes * (double)d->beta_ps_per_byte * 1e-6;
    out->alpha_us = (double)out->max_messages * (double)d->alpha_ps * 1e-6;
  }
  if (entries)
    for (int p = 0; p < P; ++p)
      free(entries[p]);
  free(entries);
  free(tables);
  free(load);
  free(arr);
  return st;
}

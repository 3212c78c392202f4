/* The fuzz target: one input through everything the runtime does with a plan
 * before MPI. Load (decode + validate); an accepted plan must re-encode to
 * its own bytes and answer the size check as it says it does; then, for
 * P = 1..6 (or the exact topology size, if the plan needs it and it is at
 * most 64) and three count vectors, every rank is expanded and checked
 * against collrt_expand's contract and the whole communicator simulated.
 * Any status is a fine answer for a mutant; a crash, a sanitizer report or
 * a broken contract is a finding. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collc/plan.h"
#include "collc/simulate.h"

enum { MAX_SMALL_P = 6, MAX_EXACT_P = 64, NVECTORS = 3 };
/* Budgets that keep one input fast and small on a shared machine: the first
 * expansion that exceeds them ends the input (counted as skipped). The
 * bind-time limits themselves are the runtime's job (see absurd.c). */
#define STEP_BUDGET (1u << 16)
#define SCRATCH_BUDGET (1 << 20)
#define SECONDS_BUDGET 1.0 /* expansion CPU time per input */

static void broken(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz_plan: contract broken: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

/* CPU time: the machine is shared, wall time says little about the input */
static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

uint64_t collrt_fuzz_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void check_error(collrt_status_t st, const collrt_diag_t *diag,
                        const char *call, int P, int rank) {
  /* an error the runtime defines: collrt_strerror names it, unlike a
   * positive value */
  if (st >= 0 || !strcmp(collrt_strerror(st), collrt_strerror((collrt_status_t)1)))
    broken("%s (P = %d, rank %d) returned status %d, not a collrt_status_t error",
           call, P, rank, (int)st);
  if (!diag->message[0])
    broken("%s (P = %d, rank %d) failed with '%s' but left no message", call, P,
           rank, collrt_strerror(st));
}

/* An accepted plan is canonical: its decoded form encodes to the same bytes. */
static void check_roundtrip(const collrt_plan_t *plan) {
  size_t len, len2;
  const uint8_t *bytes = collrt_plan_bytes(plan, &len);
  collrt_plan_t *again = NULL;
  collrt_diag_t diag = {{0}};
  collrt_status_t st = collrt_plan_encode(collrt_plan_desc(plan), &again, &diag);
  if (st)
    broken("a loaded plan does not re-encode: %s: %s", collrt_strerror(st), diag.message);
  const uint8_t *bytes2 = collrt_plan_bytes(again, &len2);
  if (len != len2 || memcmp(bytes, bytes2, len))
    broken("a loaded plan of %zu bytes re-encodes to %zu different bytes", len, len2);
  collrt_plan_free(again);
}

/* counts as collrt_simulate reads them (simulate.h): alltoall uniform,
 * alltoallv counts[i*P + j], allgatherv one entry per rank. */
static void fill_counts(int64_t *c, int P, uint8_t op, int vector, uint64_t *rng) {
  size_t n = (size_t)P * P;
  for (size_t k = 0; k < n; ++k) {
    if (vector == 0)
      c[k] = 3;
    else if (vector == 1)
      c[k] = 0;
    else
      /* alltoall, allreduce and bcast take one count for every rank */
      c[k] = op == COLLRT_OP_ALLTOALL || op == COLLRT_OP_ALLREDUCE || op == COLLRT_OP_BCAST
                 ? 1
                 : (int64_t)(collrt_fuzz_rand(rng) % 8);
  }
}

/* Contiguous layout in rank order (the simulator uses the reverse, with
 * gaps, so the two together cover both). */
static void fill_input(collrt_expand_input_t *in, int64_t *arrays, const int64_t *c,
                       int P, int me, uint8_t op) {
  int64_t *sc = arrays, *sd = sc + P, *rc = sd + P, *rd = rc + P;
  int64_t soff = 0, roff = 0;
  for (int j = 0; j < P; ++j) {
    sc[j] = op == COLLRT_OP_ALLTOALLV ? c[(size_t)me * P + j]
            : op == COLLRT_OP_ALLGATHERV ? c[me] : c[0];
    rc[j] = op == COLLRT_OP_ALLTOALLV ? c[(size_t)j * P + me]
            : op == COLLRT_OP_ALLGATHERV ? c[j] : c[0];
    sd[j] = op == COLLRT_OP_ALLGATHERV ? 0 : soff;
    rd[j] = roff;
    soff += op == COLLRT_OP_ALLGATHERV ? 0 : sc[j];
    roff += rc[j];
  }
  in->tables = NULL;
  in->size = P;
  in->rank = me;
  in->scounts = sc;
  in->sdispls = sd;
  in->rcounts = rc;
  in->rdispls = rd;
  in->send_bytes = op == COLLRT_OP_ALLGATHERV ? sc[0] : soff;
  in->recv_bytes = roff;
}

static void check_region(const collrt_region_t *r, const collrt_step_t *t, size_t i,
                         const int64_t *extent, const collrt_expand_input_t *in) {
  const collrt_seg_t *segs = r->nsegs ? r->segs : &r->whole;
  uint32_t n = r->nsegs ? r->nsegs : 1;
  int64_t total = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const collrt_seg_t *g = &segs[k];
    if (g->buf >= COLLRT_BUF_COUNT_ || g->len <= 0 || g->off < 0 ||
        g->off > extent[g->buf] - g->len)
      broken("rank %d of %d, step %zu (stmt %u), segment %u: buffer %u [%lld, +%lld) outside "
             "send %lld, recv %lld, scratch %lld, arena %lld bytes", in->rank, in->size, i, t->stmt,
             k, g->buf, (long long)g->off, (long long)g->len, (long long)extent[0],
             (long long)extent[1], (long long)extent[2], (long long)extent[3]);
    total += g->len;
  }
  if (total != t->len)
    broken("rank %d of %d, step %zu (stmt %u): %u segments of %lld bytes, step length %lld",
           in->rank, in->size, i, t->stmt, n, (long long)total, (long long)t->len);
}

/* collrt_expand promises steps inside the communicator and the buffers. */
static void check_steps(const collrt_steps_t *s, const collrt_expand_input_t *in) {
  if (s->count > COLLRT_MAX_STEPS || s->scratch_bytes < 0)
    broken("rank %d of %d: %zu steps, %lld scratch bytes", in->rank, in->size, s->count,
           (long long)s->scratch_bytes);
  const int64_t extent[COLLRT_BUF_COUNT_] = {in->send_bytes, in->recv_bytes, s->scratch_bytes,
                                             s->arena_bytes};
  if (s->arena_bytes < 0 || s->arena_counters < 0 || s->arena_counters > COLLRT_MAX_ARENA_COUNTERS)
    broken("rank %d of %d: arena of %lld bytes and %lld counters", in->rank, in->size,
           (long long)s->arena_bytes, (long long)s->arena_counters);
  for (size_t i = 0; i < s->count; ++i) {
    const collrt_step_t *t = &s->steps[i];
    int msg = t->kind == COLLRT_STEP_SEND || t->kind == COLLRT_STEP_RECV;
    if (!msg && t->kind != COLLRT_STEP_COPY && t->kind != COLLRT_STEP_REDUCE &&
        !collrt_step_is_signal(t->kind))
      broken("rank %d of %d, step %zu: kind %u", in->rank, in->size, i, t->kind);
    /* a REDUCE combines whole elements with a pair of the table (decode
     * refused the rest; expansion, lengths that split an element) */
    if (t->kind == COLLRT_STEP_REDUCE &&
        (!collrt_reduce_valid(t->rop, t->rtype, NULL, 0) ||
         t->len % (int64_t)collrt_reduce_type_size(t->rtype)))
      broken("rank %d of %d, step %zu (stmt %u): REDUCE %u on type %u over %lld bytes", in->rank,
             in->size, i, t->stmt, t->rop, t->rtype, (long long)t->len);
    if (msg && (t->peer < 0 || t->peer >= in->size || t->tag < 0))
      broken("rank %d of %d, step %zu (stmt %u): peer %d, tag %d", in->rank, in->size, i,
             t->stmt, t->peer, t->tag);
    if ((uint64_t)t->dep_begin + t->ndeps > s->ndeps)
      broken("rank %d of %d, step %zu (stmt %u): dependencies [%u, +%u) of %zu", in->rank,
             in->size, i, t->stmt, t->dep_begin, t->ndeps, s->ndeps);
    for (uint32_t k = 0; k < t->ndeps; ++k)
      if (s->deps[t->dep_begin + k] >= s->count)
        broken("rank %d of %d, step %zu (stmt %u): dependency on step %u of %zu", in->rank,
               in->size, i, t->stmt, s->deps[t->dep_begin + k], s->count);
    if ((uint64_t)t->seg_begin + t->nsrc + t->ndst > s->nsegs)
      broken("rank %d of %d, step %zu (stmt %u): segments [%u, +%u+%u) of %zu", in->rank,
             in->size, i, t->stmt, t->seg_begin, t->nsrc, t->ndst, s->nsegs);
    if (collrt_step_is_signal(t->kind)) {
      /* NOTIFY, AWAIT: a counter of the arena, no bytes */
      if (!s->has_arena || t->peer < 0 || t->peer >= s->arena_counters || t->len != 0 ||
          t->nsrc || t->ndst)
        broken("rank %d of %d, step %zu (stmt %u): kind %u on counter %d of %lld, %d bytes",
               in->rank, in->size, i, t->stmt, t->kind, t->peer, (long long)s->arena_counters,
               t->len);
      continue;
    }
    collrt_region_t r;
    if (t->kind != COLLRT_STEP_RECV) {
      collrt_step_source(s, t, &r);
      check_region(&r, t, i, extent, in);
    }
    if (t->kind != COLLRT_STEP_SEND) {
      collrt_step_dest(s, t, &r);
      check_region(&r, t, i, extent, in);
    }
  }
}

/* The bind-time exchange for rank `me`, as bind runs it: every rank's first
 * pass, keeping the records for `me` (O(P) passes: fine at fuzzing sizes).
 * Returns 0 with *st set if a pass failed (checked like an expansion). */
static int exchange_for(const collrt_plan_t *plan, int P, const int64_t *c, int me,
                        uint8_t op, collrt_table_entry_t **entries, collrt_tables_t *tables,
                        collrt_status_t *st, collrt_diag_t *diag) {
  int64_t *arrays = malloc(4 * (size_t)P * sizeof *arrays);
  size_t n = 0, cap = 0;
  *entries = NULL;
  if (!arrays)
    broken("cannot allocate the exchange input of P = %d", P);
  for (int p = 0; p < P; ++p) {
    collrt_expand_input_t in;
    fill_input(&in, arrays, c, P, p, op);
    collrt_put_t *puts = NULL;
    size_t np = 0;
    if ((*st = collrt_exchange_puts(plan, &in, &puts, &np, diag))) {
      free(arrays);
      return 0;
    }
    for (size_t k = 0; k < np; ++k) {
      if (puts[k].peer < 0 || puts[k].peer >= P)
        broken("rank %d of %d PUTs to rank %d", p, P, puts[k].peer);
      if (puts[k].peer != me)
        continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 64;
        *entries = realloc(*entries, cap * sizeof **entries);
        if (!*entries)
          broken("cannot allocate %zu exchange entries", cap);
      }
      collrt_table_entry_t e = {puts[k].index, puts[k].value, p, puts[k].table, 0, 0};
      (*entries)[n++] = e;
    }
    free(puts);
  }
  free(arrays);
  *st = collrt_tables_sort(*entries, n, me, diag);
  tables->entries = *entries;
  tables->count = n;
  return *st == COLLRT_OK;
}

/* Expands every rank for one size and count vector; returns 1 if all
 * succeeded within the budgets (so the size is worth simulating). */
static int expand_all(const collrt_plan_t *plan, int P, const int64_t *c,
                      int64_t *arrays, collrt_fuzz_result_t *out) {
  uint8_t op = collrt_plan_desc(plan)->op;
  int all_ok = 1;
  for (int me = 0; me < P; ++me) {
    collrt_expand_input_t in;
    collrt_table_entry_t *entries = NULL;
    collrt_tables_t tables = {NULL, 0};
    if (collrt_plan_has_exchange(plan)) {
      collrt_status_t xst;
      collrt_diag_t xdiag = {{0}};
      if (!exchange_for(plan, P, c, me, op, &entries, &tables, &xst, &xdiag)) {
        free(entries);
        check_error(xst, &xdiag, "bind-time exchange", P, me);
        return 0;
      }
    }
    fill_input(&in, arrays, c, P, me, op);
    in.tables = &tables;
    collrt_steps_t steps;
    collrt_diag_t diag = {{0}};
    double t0 = seconds();
    collrt_status_t st = collrt_expand(plan, &in, &steps, &diag);
    free(entries);
    ++out->expansions;
    out->expand_seconds += seconds() - t0;
    if (out->expand_seconds > SECONDS_BUDGET || st == COLLRT_ERR_NOMEM) {
      ++out->skipped;
      all_ok = 0;
    }
    if (st) {
      check_error(st, &diag, "collrt_expand", P, me);
      return 0;
    }
    ++out->expand_ok;
    out->steps += steps.count;
    check_steps(&steps, &in);
    if (all_ok && (steps.count > STEP_BUDGET || steps.scratch_bytes > SCRATCH_BUDGET)) {
      ++out->skipped;
      all_ok = 0;
    }
    collrt_steps_free(&steps);
    if (!all_ok)
      return 0;
  }
  return all_ok;
}

/* The bytes of one element the plan's REDUCE steps combine (1 without
 * any): an allreduce is bound to whole elements, so its sizes are. */
static int64_t element_bytes(const collrt_plan_t *plan) {
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  for (unsigned i = 0; i < d->nstmts; ++i)
    if (d->stmts[i].kind == COLLRT_STMT_REDUCE && collrt_reduce_type_size(d->stmts[i].rtype))
      return (int64_t)collrt_reduce_type_size(d->stmts[i].rtype);
  return 1;
}

/* Returns 0 once an expansion went over budget. */
static int run_size(const collrt_plan_t *plan, int P, uint64_t *rng,
                    collrt_fuzz_result_t *out) {
  uint8_t op = collrt_plan_desc(plan)->op;
  int64_t element = element_bytes(plan);
  int64_t *c = malloc((size_t)P * P * sizeof *c);
  int64_t *arrays = malloc(4 * (size_t)P * sizeof *arrays);
  if (!c || !arrays)
    broken("cannot allocate the counts of P = %d", P);
  for (int v = 0; v < NVECTORS; ++v) {
    fill_counts(c, P, op, v, rng);
    for (size_t k = 0; k < (size_t)P * P; ++k)
      c[k] *= element;
    if (!expand_all(plan, P, c, arrays, out)) {
      if (out->skipped)
        break;
      continue;
    }
    collrt_sim_input_t si = {P, c};
    collrt_sim_result_t res;
    collrt_diag_t diag = {{0}};
    collrt_status_t st = collrt_simulate(plan, &si, &res, &diag);
    ++out->sim_runs;
    if (st)
      check_error(st, &diag, "collrt_simulate", P, -1);
    else
      ++out->sim_ok;
  }
  free(c);
  free(arrays);
  return !out->skipped;
}

void collrt_fuzz_plan(const uint8_t *data, size_t len, collrt_fuzz_result_t *out) {
  memset(out, 0, sizeof *out);
  collrt_plan_t *plan = NULL;
  collrt_diag_t diag = {{0}};
  collrt_status_t st = collrt_plan_load(data, len, &plan, &diag);
  if (st) {
    check_error(st, &diag, "collrt_plan_load", 0, -1);
    return;
  }
  out->loaded = 1;
  check_roundtrip(plan);
  /* counts depend on the input only, so a finding replays from its file */
  uint64_t rng = 0x636f6c6cull;
  for (size_t k = 0; k < len; ++k)
    rng = (rng ^ data[k]) * 0x100000001B3ull;
  int exact = collrt_plan_needs_exact_size(plan);
  uint64_t topo = collrt_plan_topology_ranks(plan);
  for (int P = 1; P <= MAX_SMALL_P; ++P) {
    collrt_diag_t d2 = {{0}};
    int fits = collrt_plan_check_size(plan, P, &d2) == COLLRT_OK;
    if (fits != (!exact || topo == (uint64_t)P))
      broken("size check of P = %d says %s, but the plan %s", P, fits ? "fits" : "does not fit",
             exact ? "needs its exact topology size" : "runs on any size");
    if (fits && !run_size(plan, P, &rng, out))
      break;
  }
  if (exact && topo > MAX_SMALL_P && topo <= MAX_EXACT_P && !out->skipped)
    run_size(plan, (int)topo, &rng, out);
  out->too_big = exact && topo > MAX_EXACT_P;
  collrt_plan_free(plan);
}

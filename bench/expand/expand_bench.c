/* Bind cost of one rank without MPI (issue 5, "Benchmark"): expands rank R
 * of a P-rank communicator and builds its FIFO queues, as collrt_bind does,
 * and reports the (CPU) time and the memory that stays allocated.
 *
 *   collc-expand-bench PLAN P [--rank R] [--bytes M] [--reps N]
 *   collc-expand-bench PLAN P --digest [--bytes M] [--random SEED]
 *
 * Prints one line of key=value pairs: steps, dependencies and segments; the
 * fastest of N expansions (CPU µs, and ns per step); the persistent bytes (the
 * heap in use after expansion plus queue set-up, measured with mallinfo2,
 * so it includes the step arrays' growth slack) and the RSS growth of the
 * first expansion; bytes per step of both. Counts: M bytes per peer
 * (alltoall(v)) or per contribution (allgatherv).
 *
 * --digest expands every rank instead and prints one hash of what the
 * program does: each step's kind, FIFO, peer, tag, buffers, offsets,
 * lengths and segments, and the set of steps it waits for; not the
 * statement that produced it. Two plans with the same digest expand to the
 * same program, so a lowering can be rewritten (e.g. rolled into loops) and
 * checked to mean exactly what it meant. --random SEED varies the counts by
 * pair (up to 2M bytes, a quarter of them 0), as alltoallv sees them. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collc/plan.h"
#include "fifo_queue.h"

/* CPU time of this thread: on a shared machine wall time mostly measures
 * the other tenants. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t heap_in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

static long rss_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}

/* One rank's expansion and queues, as bind builds them. */
static int bind_rank(const collrt_plan_t *plan, const collrt_expand_input_t *in,
                     collrt_steps_t *steps, collrt_fifo_queue_t *fq) {
  collrt_diag_t diag = {{0}};
  collrt_status_t st = collrt_expand(plan, in, steps, &diag);
  if (!st) {
    const collrt_plan_desc_t *d = collrt_plan_desc(plan);
    st = collrt_fq_init(fq, steps, d->fifos, d->nfifos);
    if (st) {
      snprintf(diag.message, sizeof diag.message, "cannot set up the FIFO queues");
      collrt_steps_free(steps);
    }
  }
  if (st)
    fprintf(stderr, "collc-expand-bench: %s: %s\n", collrt_strerror(st), diag.message);
  return st ? -1 : 0;
}

/* The bind-time exchange for `in->rank`, as bind would deliver it: every
 * rank's first pass, keeping what is PUT to this rank. O(P) passes, so this
 * part is not one rank's cost (bind runs one pass and an MPI_Alltoallv); it
 * is timed apart and only what expansion then costs is reported as such. */
static int exchange_for(const collrt_plan_t *plan, const collrt_expand_input_t *in,
                        collrt_table_entry_t **entries, collrt_tables_t *tables) {
  collrt_diag_t diag = {{0}};
  size_t n = 0, cap = 0;
  *entries = NULL;
  for (int p = 0; p < in->size; ++p) {
    collrt_expand_input_t other = *in;
    other.rank = p;
    collrt_put_t *puts = NULL;
    size_t np = 0;
    if (collrt_exchange_puts(plan, &other, &puts, &np, &diag)) {
      fprintf(stderr, "collc-expand-bench: exchange on rank %d: %s\n", p, diag.message);
      return -1;
    }
    for (size_t k = 0; k < np; ++k) {
      if (puts[k].peer != in->rank)
        continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 1024;
        if (!(*entries = realloc(*entries, cap * sizeof **entries)))
          return -1;
      }
      collrt_table_entry_t e = {puts[k].index, puts[k].value, p, puts[k].table, 0, 0};
      (*entries)[n++] = e;
    }
    free(puts);
  }
  if (collrt_tables_sort(*entries, n, in->rank, &diag)) {
    fprintf(stderr, "collc-expand-bench: %s\n", diag.message);
    return -1;
  }
  tables->entries = *entries;
  tables->count = n;
  return 0;
}

/* FNV-1a over the canonical form of one rank's steps. */
static uint64_t mix(uint64_t h, int64_t v) {
  for (int k = 0; k < 8; ++k) {
    h ^= (uint64_t)(v >> (8 * k)) & 0xFFu;
    h *= 0x100000001B3ull;
  }
  return h;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t digest_steps(uint64_t h, const collrt_steps_t *s) {
  h = mix(h, (int64_t)s->count);
  h = mix(h, s->scratch_bytes);
  for (size_t i = 0; i < s->count; ++i) {
    const collrt_step_t *st = &s->steps[i];
    int64_t fields[] = {st->kind, st->fifo, st->buf, st->dst_buf, st->peer, st->len, st->tag,
                        st->off, st->dst_off, st->nsrc, st->ndst, st->ndeps};
    for (size_t k = 0; k < sizeof fields / sizeof *fields; ++k)
      h = mix(h, fields[k]);
    for (uint32_t k = 0; k < st->nsrc + st->ndst; ++k) {
      const collrt_seg_t *g = &s->segs[st->seg_begin + k];
      h = mix(mix(mix(h, g->buf), g->off), g->len);
    }
    uint32_t *deps = s->deps + st->dep_begin;
    qsort(deps, st->ndeps, sizeof *deps, cmp_u32); /* a set: order is not meaning */
    for (uint32_t k = 0; k < st->ndeps; ++k)
      h = mix(h, deps[k]);
  }
  return h;
}

/* The inputs of the digest: every rank's counts, uniform (m bytes per
 * block) or, with a seed, varying by pair and with zeros, as alltoallv
 * schedules see them. */
typedef struct digest_inputs {
  int64_t m, seed;
  int agv;
  int64_t *arr; /* 4 P: scounts, sdispls, rcounts, rdispls */
  collrt_expand_input_t in;
} digest_inputs_t;

static int64_t pair_count(const digest_inputs_t *x, int src, int dst) {
  if (!x->seed)
    return x->m;
  uint64_t h = (uint64_t)x->seed * 0x9E3779B97F4A7C15ull + (uint64_t)src * 1000003u + (uint64_t)dst;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return (int64_t)(h % 4u == 0 ? 0 : h % (uint64_t)(2 * x->m + 1)); /* a quarter empty */
}

static const collrt_expand_input_t *digest_input(void *ctx, int rank) {
  digest_inputs_t *x = ctx;
  int P = x->in.size;
  int64_t *sc = x->arr, *sd = sc + P, *rc = sd + P, *rd = rc + P, so = 0, ro = 0;
  for (int j = 0; j < P; ++j) {
    sc[j] = pair_count(x, rank, j);
    rc[j] = x->agv ? pair_count(x, j, j) : pair_count(x, j, rank);
    sd[j] = x->agv ? 0 : so;
    rd[j] = ro;
    so += sc[j];
    ro += rc[j];
  }
  x->in.rank = rank;
  x->in.send_bytes = x->agv ? sc[rank] : so;
  x->in.recv_bytes = ro;
  x->in.tables = NULL;
  return &x->in;
}

/* Every rank's expansion, hashed in rank order. */
static int digest_all(const collrt_plan_t *plan, digest_inputs_t *x) {
  uint64_t h = 0xCBF29CE484222325ull;
  size_t total = 0;
  int P = x->in.size;
  collrt_diag_t diag = {{0}};
  collrt_table_entry_t **entries = calloc((size_t)P, sizeof *entries);
  collrt_tables_t *tables = calloc((size_t)P, sizeof *tables);
  if (!entries || !tables)
    return 1;
  if (collrt_plan_has_exchange(plan) &&
      collrt_exchange_in_memory(plan, P, digest_input, x, entries, tables, &diag)) {
    fprintf(stderr, "collc-expand-bench: exchange: %s\n", diag.message);
    return 1;
  }
  for (int p = 0; p < P; ++p) {
    collrt_expand_input_t in = *digest_input(x, p);
    in.tables = collrt_plan_has_exchange(plan) ? &tables[p] : NULL;
    collrt_steps_t steps;
    collrt_status_t st = collrt_expand(plan, &in, &steps, &diag);
    if (st) {
      fprintf(stderr, "collc-expand-bench: rank %d: %s: %s\n", p, collrt_strerror(st), diag.message);
      return 1;
    }
    h = digest_steps(h, &steps);
    total += steps.count;
    collrt_steps_free(&steps);
  }
  for (int p = 0; p < P; ++p)
    free(entries[p]);
  free(entries);
  free(tables);
  printf("P=%d steps=%zu digest=%016llx\n", P, total, (unsigned long long)h);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PLAN P [--rank R] [--bytes M] [--reps N] [--digest [--random SEED]]\n", argv[0]);
    return 2;
  }
  int P = atoi(argv[2]), rank = 0, reps = 5;
  int64_t m = 4096;
  int digest = 0;
  int64_t seed = 0;
  for (int i = 3; i < argc; ++i) {
    if (!strcmp(argv[i], "--digest")) {
      digest = 1;
      continue;
    }
    if (i + 1 >= argc)
      break;
    if (!strcmp(argv[i], "--rank"))
      rank = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--bytes"))
      m = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps"))
      reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--random"))
      seed = atoll(argv[i + 1]);
    ++i;
  }
  collrt_plan_t *plan;
  collrt_diag_t diag = {{0}};
  if (collrt_plan_load_file(argv[1], &plan, &diag)) {
    fprintf(stderr, "collc-expand-bench: %s\n", diag.message);
    return 1;
  }
  if (P < 1 || rank < 0 || rank >= P || m < 0 || reps < 1) {
    fprintf(stderr, "collc-expand-bench: need P >= 1, 0 <= R < P, M >= 0, N >= 1\n");
    return 2;
  }
  int agv = collrt_plan_desc(plan)->op == COLLRT_OP_ALLGATHERV;
  int64_t *a = malloc(4 * (size_t)P * sizeof *a);
  if (!a)
    return 1;
  int64_t *sc = a, *sd = a + P, *rc = a + 2 * P, *rd = a + 3 * P;
  for (int j = 0; j < P; ++j) {
    sc[j] = rc[j] = m;
    sd[j] = agv ? 0 : j * m;
    rd[j] = j * m;
  }
  collrt_expand_input_t in = {P, rank, sc, sd, rc, rd, agv ? m : P * m, P * m, NULL};
  if (digest) {
    digest_inputs_t x = {m, seed, agv, a, in};
    int rc_digest = digest_all(plan, &x);
    collrt_plan_free(plan);
    free(a);
    return rc_digest;
  }
  collrt_table_entry_t *entries = NULL;
  collrt_tables_t tables = {NULL, 0};
  double exchange_s = 0;
  if (collrt_plan_has_exchange(plan)) {
    double te = now();
    if (exchange_for(plan, &in, &entries, &tables))
      return 1;
    exchange_s = now() - te;
    in.tables = &tables;
  }

  collrt_steps_t steps;
  collrt_fifo_queue_t fq;
  size_t heap0 = heap_in_use();
  long rss0 = rss_bytes();
  double t0 = now();
  if (bind_rank(plan, &in, &steps, &fq))
    return 1;
  double best = now() - t0;
  size_t heap = heap_in_use() - heap0;
  long rss = rss_bytes() - rss0;
  size_t n = steps.count, ndeps = steps.ndeps, nsegs = steps.nsegs;
  /* what the rank moves: bytes it sends, bytes it copies locally (COPY) */
  int64_t sent = 0, copied = 0;
  for (size_t k = 0; k < n; ++k) {
    const collrt_step_t *s = &steps.steps[k];
    sent += s->kind == COLLRT_STEP_SEND ? s->len : 0;
    copied += s->kind == COLLRT_STEP_COPY ? s->len : 0;
  }
  collrt_fq_free(&fq);
  collrt_steps_free(&steps);
  for (int k = 1; k < reps; ++k) {
    t0 = now();
    if (bind_rank(plan, &in, &steps, &fq))
      return 1;
    double dt = now() - t0;
    best = dt < best ? dt : best;
    collrt_fq_free(&fq);
    collrt_steps_free(&steps);
  }
  double per = n ? 1.0 / (double)n : 0.0;
  printf("P=%d rank=%d steps=%zu deps=%zu segs=%zu expand_us=%.0f ns_per_step=%.1f "
         "persistent_bytes=%zu bytes_per_step=%.1f rss_bytes=%ld rss_per_step=%.1f "
         "step_struct=%zu table_entries=%zu exchange_sim_us=%.0f sent_bytes=%lld copied_bytes=%lld\n",
         P, rank, n, ndeps, nsegs, best * 1e6, best * 1e9 * per, heap, (double)heap * per,
         rss, (double)rss * per, sizeof(collrt_step_t), tables.count, exchange_s * 1e6,
         (long long)sent, (long long)copied);
  free(entries);
  collrt_plan_free(plan);
  free(a);
  return 0;
}

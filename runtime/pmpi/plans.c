/* The plan set named by COLLC_PLANS, and matching a call against it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pmpi.h"

static int has_plan_suffix(const char *name) {
  size_t n = strlen(name);
  return (n > 5 && !strcmp(name + n - 5, ".plan")) ||
         (n > 9 && !strcmp(name + n - 9, ".collplan"));
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add(pmpi_plan_set_t *set, const char *path, void (*warn)(const char *)) {
  collrt_diag_t diag = {{0}};
  collrt_plan_t *plan = NULL;
  char msg[sizeof diag.message + 256];
  if (collrt_plan_load_file(path, &plan, &diag)) {
    snprintf(msg, sizeof msg, "skipping plan %s: %s", path, diag.message);
    warn(msg);
    return;
  }
  pmpi_plan_t *grown = realloc(set->plans, (set->count + 1) * sizeof *grown);
  char *copy = strdup(path);
  if (!grown || !copy) {
    if (grown)
      set->plans = grown;
    free(copy);
    collrt_plan_free(plan);
    snprintf(msg, sizeof msg, "skipping plan %s: out of memory", path);
    warn(msg);
    return;
  }
  set->plans = grown;
  set->plans[set->count].path = copy;
  set->plans[set->count].plan = plan;
  /* an allreduce plan serves calls of its REDUCE steps' pair only */
  unsigned rop = 0, rtype = 0;
  int kinds = collrt_plan_reduce_kind(plan, &rop, &rtype);
  set->plans[set->count].reduce = kinds < 0 ? PMPI_REDUCE_MIXED : kinds ? PMPI_REDUCE_KIND(rop, rtype) : 0;
  set->count++;
}

/* Paths of the plan files in `dir`, sorted, so that every rank loads (and
 * prefers) the same plans in the same order. */
static void add_directory(pmpi_plan_set_t *set, const char *dir, void (*warn)(const char *)) {
  DIR *d = opendir(dir);
  if (!d) {
    char msg[512];
    snprintf(msg, sizeof msg, "cannot read plan directory %s", dir);
    warn(msg);
    return;
  }
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!has_plan_suffix(e->d_name))
      continue;
    char **grown = realloc(names, (n + 1) * sizeof *names);
    if (!grown)
      break;
    names = grown;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len)))
      break;
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  for (size_t i = 0; i < n; ++i) {
    /* only regular files: opening a FIFO named x.plan would wait for a
     * writer (start-up hung), a device may never end (the loader also
     * refuses both, collrt_plan_load_file; this says so before opening) */
    struct stat st;
    if (stat(names[i], &st) == 0 && !S_ISREG(st.st_mode)) {
      char msg[600];
      snprintf(msg, sizeof msg, "skipping plan %s: it is %s, not a regular file", names[i],
               S_ISFIFO(st.st_mode)  ? "a FIFO"
               : S_ISDIR(st.st_mode) ? "a directory"
               : S_ISCHR(st.st_mode) ? "a character device"
               : S_ISBLK(st.st_mode) ? "a block device"
               : S_ISSOCK(st.st_mode) ? "a socket"
                                      : "not a regular file");
      warn(msg);
    } else {
      add(set, names[i], warn);
    }
    free(names[i]);
  }
  free(names);
}

void pmpi_plans_load(pmpi_plan_set_t *set, const char *source, void (*warn)(const char *)) {
  memset(set, 0, sizeof *set);
  set->source = source;
  if (!source || !*source)
    return;
  struct stat st;
  if (!strchr(source, ':') && stat(source, &st) == 0 && S_ISDIR(st.st_mode)) {
    add_directory(set, source, warn);
  } else {
    char *list = strdup(source);
    for (char *save = NULL, *p = list ? strtok_r(list, ":", &save) : NULL; p;
         p = strtok_r(NULL, ":", &save))
      add(set, p, warn);
    free(list);
  }
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < set->count; ++i) {
    size_t len = 0;
    const uint8_t *b = collrt_plan_bytes(set->plans[i].plan, &len);
    for (size_t k = 0; k < len; ++k)
      h = (h ^ b[k]) * 1099511628211ull;
  }
  set->fingerprint = (int64_t)(h >> 2);
}

void pmpi_plans_free(pmpi_plan_set_t *set) {
  for (size_t i = 0; i < set->count; ++i) {
    collrt_plan_free(set->plans[i].plan);
    free(set->plans[i].path);
  }
  free(set->plans);
  memset(set, 0, sizeof *set);
}

static int serves_op(const collrt_plan_desc_t *d, int op, int exact) {
  return d->op == op || (!exact && op == COLLRT_OP_ALLTOALL && d->op == COLLRT_OP_ALLTOALLV);
}

/* An allreduce plan's kernels are its REDUCE steps': only the call's
 * (operation, type) pair. */
static int serves_reduce(const pmpi_plan_t *p, unsigned reduce) {
  return !reduce || p->reduce == reduce;
}

static int fits_block(const collrt_plan_desc_t *d, int64_t block) {
  return (uint64_t)block >= d->block_bytes_min && (uint64_t)block <= d->block_bytes_max;
}

/* Appends "8 ranks" / "any size", the byte range unless it is any, and an
 * allreduce plan's operation and type ("sum on double"). */
static void describe(const pmpi_plan_t *p, char *out, size_t len) {
  const collrt_plan_t *plan = p->plan;
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  size_t at = strlen(out);
  if (at + 1 >= len)
    return;
  int n = collrt_plan_needs_exact_size(plan)
              ? snprintf(out + at, len - at, "%s%llu", at ? ", " : "",
                         (unsigned long long)collrt_plan_topology_ranks(plan))
              : snprintf(out + at, len - at, "%sany size", at ? ", " : "");
  if (n < 0 || (size_t)n >= len - at)
    return;
  at += (size_t)n;
  if (d->block_bytes_min != 0 || d->block_bytes_max != UINT64_MAX) {
    n = snprintf(out + at, len - at, d->block_bytes_max == UINT64_MAX ? " [%llu B, any]" : " [%llu, %llu B]",
                 (unsigned long long)d->block_bytes_min, (unsigned long long)d->block_bytes_max);
    if (n < 0 || (size_t)n >= len - at)
      return;
    at += (size_t)n;
  }
  if (p->reduce == PMPI_REDUCE_MIXED)
    snprintf(out + at, len - at, " several reductions");
  else if (p->reduce)
    snprintf(out + at, len - at, " %s on %s", collrt_reduce_op_name(p->reduce >> 8),
             collrt_reduce_type_name(p->reduce & 0xff));
}

void pmpi_plan_served_by(const pmpi_plan_t *p, const char *why, char *msg, size_t len) {
  char what[160] = "";
  describe(p, what, sizeof what);
  snprintf(msg, len, "served by plan %s (%s: %s)", p->path, what,
           why ? why : "the most specific that fits");
}

/* How specific plan p is for `op` at `size` ranks: a plan for exactly this
 * size (a topology plan) before one for any size, one that implements the
 * op itself before one that serves it (an alltoallv plan also serves
 * alltoall), then the narrower byte range. Two plans compare by their ranks, the
 * earlier key first; a tie keeps load order. */
typedef struct specificity {
  int exact_size, exact_op;
  uint64_t band; /* width of the byte range; smaller is more specific */
} specificity_t;

static specificity_t specificity_of(const collrt_plan_t *p, int op) {
  const collrt_plan_desc_t *d = collrt_plan_desc(p);
  specificity_t s = {collrt_plan_needs_exact_size(p), d->op == op,
                     d->block_bytes_max - d->block_bytes_min};
  return s;
}

/* Whether a is more specific than b. */
static int more_specific(specificity_t a, specificity_t b) {
  if (a.exact_size != b.exact_size)
    return a.exact_size > b.exact_size;
  if (a.exact_op != b.exact_op)
    return a.exact_op > b.exact_op;
  return a.band < b.band;
}

/* Whether plan p can serve `op` at `size` ranks (whatever the block): a
 * plan compiled for exactly this many ranks (a topology's) only on the
 * machine it was compiled for, where rank r is the machine's rank r. */
static int candidate(const collrt_plan_t *p, int op, int size, int machine) {
  return serves_op(collrt_plan_desc(p), op, 0) && collrt_plan_check_size(p, size, NULL) == COLLRT_OK &&
         (machine || !collrt_plan_needs_exact_size(p));
}

int pmpi_plan_recounts(const collrt_plan_t *plan) {
  return !collrt_plan_has_exchange(plan) && !collrt_plan_has_arena(plan);
}

/* The most specific candidate for the block, of every plan or only of
 * those that recount. */
static int most_specific(const pmpi_plan_set_t *set, int op, unsigned reduce, int size,
                         int machine, int64_t block, int recounting_only) {
  int best = -1;
  for (size_t i = 0; i < set->count; ++i) {
    const collrt_plan_t *p = set->plans[i].plan;
    if (candidate(p, op, size, machine) && serves_reduce(&set->plans[i], reduce) &&
        fits_block(collrt_plan_desc(p), block) &&
        (!recounting_only || pmpi_plan_recounts(p)) &&
        (best < 0 || more_specific(specificity_of(p, op),
                                   specificity_of(set->plans[best].plan, op))))
      best = (int)i;
  }
  return best;
}

int pmpi_plans_match_recounting(const pmpi_plan_set_t *set, int op, int size, int machine,
                                int64_t block) {
  return most_specific(set, op, 0, size, machine, block, 1);
}

int pmpi_plans_match(const pmpi_plan_set_t *set, int op, unsigned reduce, int size, int machine,
                     int64_t block, char *why, size_t why_len) {
  int best = most_specific(set, op, reduce, size, machine, block, 0);
  if (best >= 0)
    return best;
  /* the block size is part of the reason only when a plan fits the rest */
  int sized = 0, topology_only = 0;
  char have[160] = "";
  for (size_t i = 0; i < set->count; ++i) {
    const collrt_plan_t *p = set->plans[i].plan;
    if (!serves_op(collrt_plan_desc(p), op, 0))
      continue;
    describe(&set->plans[i], have, sizeof have);
    if (candidate(p, op, size, 1) && serves_reduce(&set->plans[i], reduce))
      sized = 1, topology_only |= !candidate(p, op, size, machine);
  }
  char bytes[64] = "", kind[64] = "";
  if (sized)
    snprintf(bytes, sizeof bytes, " and %lld-byte %s", (long long)block,
             op == COLLRT_OP_ALLGATHERV ? "contributions"
             : op == COLLRT_OP_ALLREDUCE || op == COLLRT_OP_BCAST ? "messages"
                                                                 : "blocks");
  if (reduce)
    snprintf(kind, sizeof kind, " (%s on %s)", collrt_reduce_op_name(reduce >> 8),
             collrt_reduce_type_name(reduce & 0xff));
  snprintf(why, why_len, "no plan in %s for %s%s with %d ranks%s (have: %s)%s", set->source,
           collrt_op_name((unsigned)op), kind, size, bytes, *have ? have : "none of that op",
           topology_only ? "; a plan for exactly this many ranks serves only MPI_COMM_WORLD's ranks in its order, the machine it was compiled for"
                         : "");
  return -1;
}

int pmpi_plans_match_any_block(const pmpi_plan_set_t *set, int op, int size, int machine) {
  /* the most specific plan that takes every block wins for every block if
   * no narrower candidate is more specific than it (the narrower one would
   * win inside its range) */
  int wide = -1;
  for (size_t i = 0; i < set->count; ++i) {
    const collrt_plan_t *p = set->plans[i].plan;
    const collrt_plan_desc_t *d = collrt_plan_desc(p);
    if (candidate(p, op, size, machine) && d->block_bytes_min == 0 && d->block_bytes_max == UINT64_MAX &&
        (wide < 0 || more_specific(specificity_of(p, op),
                                   specificity_of(set->plans[wide].plan, op))))
      wide = (int)i;
  }
  if (wide < 0)
    return -1;
  specificity_t w = specificity_of(set->plans[wide].plan, op);
  for (size_t i = 0; i < set->count; ++i) {
    const collrt_plan_t *p = set->plans[i].plan;
    if ((int)i != wide && candidate(p, op, size, machine) && more_specific(specificity_of(p, op), w))
      return -1;
  }
  return wide;
}

/* The standalone fuzz driver (no libFuzzer needed, so gcc CI runs it):
 * replays a corpus, then mutates its entries with a fixed seed until a time
 * or run bound. Mutants that load are added to the pool, so mutations
 * stack on plans that get past validation.
 *
 *   collrt_fuzz_plan [--seconds S] [--runs N] [--seed X] [--crashes DIR]
 *                    [--timeout S] [--allow-slow] [--seeds-must-simulate]
 *                    FILE|DIR...
 *
 * A finding aborts the process (sanitizer report or broken contract) after
 * the input has been written to DIR/crash-<hash>.collplan; replay it with
 * `collrt_fuzz_plan --runs 0 FILE`. An input still running after --timeout
 * seconds of CPU time (default 10) is written to DIR/slow-<hash>.collplan and ends the
 * run: a failure, or with --allow-slow a warning, the driver restarting
 * itself on the next seed for the time left (expansion does not bound its
 * work yet; issue 5, item 9). Inputs over a CPU second are listed as slow.
 * --seeds-must-simulate fails if a corpus entry is not a plan that
 * simulates correctly at every size tried (true of every plan collc
 * emits); a plan that needs more ranks than are simulated (over 64) only
 * has to load. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_plan.h"

#define MAX_PLAN_BYTES (1u << 16)
#define MAX_POOL 1024
#define SLOW_SECONDS 1.0

typedef struct entry {
  uint8_t *bytes;
  size_t len;
} entry_t;

typedef struct driver {
  entry_t pool[MAX_POOL];
  size_t npool, nseeds;
  const char *crash_dir;
  unsigned timeout; /* seconds per input */
  uint64_t runs, loaded, sim_runs, sim_ok, skipped, expansions, expand_ok, steps, slow;
} driver_t;

/* The input being executed, written out when the process dies. */
static const uint8_t *current;
static size_t current_len;
static const char *current_dir;

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

static void save_input(const char *dir, const char *kind, const uint8_t *p, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-%016llx.collplan", dir, kind,
           (unsigned long long)fnv1a(p, n));
  FILE *f = fopen(path, "wb");
  if (f) {
    fwrite(p, 1, n, f);
    fclose(f);
    fprintf(stderr, "fuzz: input written to %s\n", path);
  }
}

static void on_death(void) {
  if (current && current_dir)
    save_input(current_dir, "crash", current, current_len);
}

static double clock_seconds(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) { return clock_seconds(CLOCK_MONOTONIC); }
/* Per-input limits count CPU time: the machine is shared. */
static double cpu(void) { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

static void arm_timeout(unsigned seconds) {
  struct itimerval t = {{0, 0}, {(time_t)seconds, 0}};
  setitimer(ITIMER_VIRTUAL, &t, NULL);
}

static int allow_slow;
static driver_t *the_driver;
static char **self_argv;
static int self_argc;
static uint64_t run_seed;
static double run_start, run_deadline;
static uint64_t seed_runs;

static void report(const driver_t *d, double dt, const char *end) {
  printf("fuzz: %llu corpus entries, %llu mutants in %.1f s (%.0f/s); loaded %llu, "
         "expanded %llu of %llu ranks (%llu steps), simulated %llu of %llu correctly, "
         "%llu over budget, %llu slow inputs; %s\n",
         (unsigned long long)seed_runs, (unsigned long long)(d->runs - seed_runs), dt,
         dt > 0 ? (double)(d->runs - seed_runs) / dt : 0.0, (unsigned long long)d->loaded,
         (unsigned long long)d->expand_ok, (unsigned long long)d->expansions,
         (unsigned long long)d->steps, (unsigned long long)d->sim_ok,
         (unsigned long long)d->sim_runs, (unsigned long long)d->skipped,
         (unsigned long long)d->slow, end);
  fflush(stdout);
}

/* A slow input cannot be abandoned half-expanded, so the run stops here;
 * with --allow-slow it restarts itself on the next seed for the time left. */
static void on_timeout(int sig) {
  (void)sig;
  if (current && current_dir)
    save_input(current_dir, "slow", current, current_len);
  fprintf(stderr, "fuzz: an input ran past the timeout; expansion does not bound its work "
                  "(issue 5, item 9)\n");
  double left = run_deadline - now();
  report(the_driver, now() - run_start, allow_slow ? "stopped at a slow input" : "timeout");
  if (!allow_slow)
    _exit(1);
  if (left < 1)
    _exit(0);
  char seed[32], seconds[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)run_seed + 1);
  snprintf(seconds, sizeof seconds, "%.0f", left);
  char *argv[self_argc + 5];
  memcpy(argv, self_argv, sizeof(char *) * (size_t)self_argc);
  argv[self_argc] = "--seed";
  argv[self_argc + 1] = seed;
  argv[self_argc + 2] = "--seconds";
  argv[self_argc + 3] = seconds;
  argv[self_argc + 4] = NULL;
  fprintf(stderr, "fuzz: restarting with --seed %s for the %s s left (--allow-slow)\n", seed,
          seconds);
  execv("/proc/self/exe", argv);
  _exit(1);
}

static void on_signal(int sig) {
  on_death();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Sanitizer runtimes call this before they exit on a finding (gcc's UBSan
 * does not, hence abort_on_error: its report then raises SIGABRT). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "abort_on_error=1:print_stacktrace=1"; }

static int add(driver_t *d, const uint8_t *p, size_t n) {
  uint8_t *copy = malloc(n ? n : 1);
  if (!copy)
    return -1;
  memcpy(copy, p, n);
  size_t slot = d->npool;
  if (d->npool < MAX_POOL) {
    ++d->npool;
  } else if (d->nseeds < MAX_POOL) { /* replace a mutant, never a seed */
    slot = d->nseeds + (size_t)rand() % (MAX_POOL - d->nseeds);
    free(d->pool[slot].bytes);
  } else {
    free(copy);
    return 0;
  }
  d->pool[slot].bytes = copy;
  d->pool[slot].len = n;
  return 0;
}

static int load_file(driver_t *d, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "fuzz: cannot open '%s': %s\n", path, strerror(errno));
    return -1;
  }
  static uint8_t buf[MAX_PLAN_BYTES];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return add(d, buf, n);
}

static int load_path(driver_t *d, const char *path) {
  struct stat st;
  if (stat(path, &st)) {
    fprintf(stderr, "fuzz: cannot open '%s': %s\n", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode))
    return load_file(d, path);
  DIR *dir = opendir(path);
  if (!dir)
    return -1;
  int rc = 0;
  for (struct dirent *e; (e = readdir(dir)) && !rc;) {
    if (e->d_name[0] == '.')
      continue;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    if (!stat(full, &st) && S_ISREG(st.st_mode))
      rc = load_file(d, full);
  }
  closedir(dir);
  return rc;
}

static collrt_fuzz_result_t run(driver_t *d, const uint8_t *p, size_t n) {
  collrt_fuzz_result_t r;
  current = p;
  current_len = n;
  double t0 = cpu();
  arm_timeout(d->timeout);
  collrt_fuzz_plan(p, n, &r);
  arm_timeout(0);
  if (cpu() - t0 > SLOW_SECONDS) {
    ++d->slow;
    fprintf(stderr, "fuzz: slow input (%.1f s CPU)\n", cpu() - t0);
    if (d->crash_dir)
      save_input(d->crash_dir, "slow", p, n);
  }
  current = NULL;
  ++d->runs;
  d->loaded += (uint64_t)r.loaded;
  d->sim_runs += (uint64_t)r.sim_runs;
  d->sim_ok += (uint64_t)r.sim_ok;
  d->skipped += (uint64_t)r.skipped;
  d->expansions += r.expansions;
  d->expand_ok += r.expand_ok;
  d->steps += r.steps;
  return r;
}

int main(int argc, char **argv) {
  static driver_t d;
  d.timeout = 10;
  double seconds = 60;
  uint64_t max_runs = UINT64_MAX, seed = 1;
  int must_simulate = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(a, "--runs") && i + 1 < argc)
      max_runs = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--seed") && i + 1 < argc)
      seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--crashes") && i + 1 < argc)
      d.crash_dir = argv[++i];
    else if (!strcmp(a, "--timeout") && i + 1 < argc)
      d.timeout = (unsigned)atoi(argv[++i]);
    else if (!strcmp(a, "--allow-slow"))
      allow_slow = 1;
    else if (!strcmp(a, "--seeds-must-simulate"))
      must_simulate = 1;
    else if (a[0] == '-') {
      fprintf(stderr, "usage: %s [--seconds S] [--runs N] [--seed X] [--crashes DIR] "
                      "[--timeout S] [--allow-slow] [--seeds-must-simulate] FILE|DIR...\n",
              argv[0]);
      return 2;
    } else if (load_path(&d, a))
      return 2;
  }
  if (!d.npool) {
    fprintf(stderr, "fuzz: no corpus\n");
    return 2;
  }
  d.nseeds = d.npool;
  current_dir = d.crash_dir;
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(on_death);
  signal(SIGSEGV, on_signal);
  signal(SIGABRT, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGVTALRM, on_timeout);
  srand((unsigned)seed);
  the_driver = &d;
  self_argv = argv;
  self_argc = argc;
  run_seed = seed;

  int bad_seeds = 0;
  for (size_t i = 0; i < d.nseeds; ++i) {
    collrt_fuzz_result_t r = run(&d, d.pool[i].bytes, d.pool[i].len);
    /* a plan for more ranks than are simulated is a seed for its mutants;
     * collc verified it on its family of smaller shapes */
    if (must_simulate &&
        (!r.loaded || (!r.sim_runs && !r.too_big) || r.sim_ok != r.sim_runs || r.skipped)) {
      fprintf(stderr, "fuzz: corpus entry %zu (%zu bytes): loaded %d, %d of %d simulations correct, %d sizes skipped\n",
              i, d.pool[i].len, r.loaded, r.sim_ok, r.sim_runs, r.skipped);
      bad_seeds = 1;
    }
  }
  seed_runs = d.runs;

  static uint8_t buf[MAX_PLAN_BYTES];
  uint64_t rng = seed;
  double t0 = now();
  run_start = t0;
  run_deadline = t0 + seconds;
  for (uint64_t k = 0; k < max_runs && now() < run_deadline; ++k) {
    const entry_t *base = &d.pool[collrt_fuzz_rand(&rng) % d.npool];
    const entry_t *other = &d.pool[collrt_fuzz_rand(&rng) % d.npool];
    memcpy(buf, base->bytes, base->len);
    size_t n = collrt_fuzz_mutate(buf, base->len, sizeof buf, other->bytes, other->len, &rng);
    if (run(&d, buf, n).loaded)
      add(&d, buf, n);
  }
  report(&d, now() - t0, "no crash");
  return bad_seeds;
}

/* Plans that validate but ask for absurd work or memory at bind (issue 5,
 * item 9): each must be rejected by collrt_expand quickly, with a message,
 * before it allocates. Prints, per case, what expansion of rank 0 of 4 did:
 * status, message, CPU time and peak RSS (each case runs in its own
 * process); exits 1 if any case was accepted or took more than a CPU second.
 *
 *   collrt_fuzz_absurd [--write DIR]   (DIR: the plans, for collc-run) */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_plans.h"

#define P 4
#define LIMIT_SECONDS 1.0

/* FOR v0 in [0, 2^24): one 1-byte send to the right neighbour per iteration
 * (every rank then receives 2^24 messages from its left). */
static void loop_sends(tp_builder_t *b) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  unsigned ph = tp_phase(b, 0);
  unsigned f = tp_for(b, 0, "0", "16777216");
  tp_recv(b, COLLRT_BUF_RECV, "r 1 - P + P %", "0", "1", "0");
  tp_send(b, COLLRT_BUF_SEND, "r 1 + P %", "0", "1", "0");
  tp_end(b, f);
  tp_end(b, ph);
}

/* The same 2^24 iterations in random order: a permutation of 2^24 entries. */
static void loop_random(tp_builder_t *b) {
  loop_sends(b);
  b->stmts[1].buf0 = COLLRT_ORDER_RANDOM;
  b->stmts[1].expr[COLLRT_E_SEED] = tp_expr(b, "7");
}

/* 2^12 x 2^12 x 2^4 = 2^28 iterations that produce no step. */
static void loop_idle(tp_builder_t *b) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  unsigned ph = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "r sdispl", COLLRT_BUF_RECV, "r rdispl", "r scount");
  unsigned f0 = tp_for(b, 0, "0", "4096");
  unsigned f1 = tp_for(b, 1, "0", "4096");
  unsigned f2 = tp_for(b, 2, "0", "16");
  unsigned i = tp_if(b, "0");
  tp_send(b, COLLRT_BUF_SEND, "r", "0", "1", "0");
  tp_end(b, i);
  tp_end(b, f2);
  tp_end(b, f1);
  tp_end(b, f0);
  tp_end(b, ph);
}

/* A correct direct alltoall that declares 2^40 bytes of scratch. */
static void huge_scratch(tp_builder_t *b) {
  tp_build_direct(b, COLLRT_OP_ALLTOALL, 8);
  b->desc.scratch_expr = tp_expr(b, "1099511627776");
}

/* CPU time: the work asked for, whatever else the machine runs */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Returns 0 if expansion refused the plan quickly. */
static int expand_rank0(const char *name, const collrt_plan_t *plan) {
  int64_t c[P], d[P];
  for (int j = 0; j < P; ++j) {
    c[j] = 1;
    d[j] = j;
  }
  collrt_expand_input_t in = {P, 0, c, d, c, d, P, P, NULL};
  collrt_steps_t steps;
  collrt_diag_t diag = {{0}};
  double t0 = now();
  collrt_status_t st = collrt_expand(plan, &in, &steps, &diag);
  double dt = now() - t0;
  int ok = st != COLLRT_OK && dt <= LIMIT_SECONDS;
  if (st == COLLRT_OK)
    printf("%-18s FAIL accepted in %.2f s: %zu steps, %lld scratch bytes\n", name, dt,
           steps.count, (long long)steps.scratch_bytes);
  else
    printf("%-18s %s %s in %.2f s: %s\n", name, ok ? "ok  " : "FAIL", collrt_strerror(st), dt,
           diag.message);
  fflush(stdout);
  return !ok;
}

int main(int argc, char **argv) {
  const char *dir = argc == 3 && !strcmp(argv[1], "--write") ? argv[2] : NULL;
  static const struct {
    const char *name;
    void (*build)(tp_builder_t *);
  } cases[] = {{"loop-2^24-sends", loop_sends},
               {"loop-2^24-random", loop_random},
               {"loop-2^28-idle", loop_idle},
               {"scratch-2^40", huge_scratch}};
  int failed = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    static tp_builder_t b;
    cases[k].build(&b);
    collrt_plan_t *plan = tp_finish(&b);
    if (!plan) {
      printf("%-18s does not validate (the case is wrong)\n", cases[k].name);
      return 1;
    }
    if (dir) {
      char path[4096];
      size_t len;
      const uint8_t *bytes = collrt_plan_bytes(plan, &len);
      snprintf(path, sizeof path, "%s/%s.collplan", dir, cases[k].name);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(bytes, 1, len, f) != len || fclose(f))
        return 1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
      _exit(expand_rank0(cases[k].name, plan));
    int status = 1;
    struct rusage u;
    if (pid < 0 || wait4(pid, &status, 0, &u) != pid)
      return 1;
    printf("%-18s   peak RSS %ld MiB\n", "", u.ru_maxrss / 1024);
    collrt_plan_free(plan);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  return failed;
}

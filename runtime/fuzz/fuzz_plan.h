/* The plan fuzzer's two halves, shared by the standalone driver (gcc, CI)
 * and the libFuzzer entry points (clang): the target that runs one input
 * through the runtime, and the plan-aware mutator. */
#ifndef COLLRT_FUZZ_PLAN_H
#define COLLRT_FUZZ_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* What one input reached; the driver sums these for its report. */
typedef struct collrt_fuzz_result {
  int loaded;            /* decoded and validated */
  int sim_runs;          /* simulations run */
  int sim_ok;            /* ... that delivered every byte */
  int skipped;           /* 1 if cut short by the work or memory budget */
  int too_big;           /* 1 if it needs an exact size beyond what is
                            simulated (e.g. the 512-rank BG/L example) */
  uint64_t expansions;   /* ranks expanded */
  uint64_t expand_ok;
  uint64_t steps;        /* steps produced by those expansions */
  double expand_seconds; /* time spent in them */
} collrt_fuzz_result_t;

/* Runs `data` through load -> validate -> expand every rank for several
 * communicator sizes and count vectors -> simulate. A broken contract (an
 * accepted plan that does not re-encode to its own bytes, an expansion
 * that succeeds with a peer outside the communicator, ...) prints what and
 * calls abort(); sanitizers report the rest. */
void collrt_fuzz_plan(const uint8_t *data, size_t len, collrt_fuzz_result_t *out);

/* Mutates the plan in buf[0, len) in place (capacity cap, so an expression
 * can be inserted) and returns the new length. `other` is a second corpus
 * entry for splicing. Recomputes the checksum unless the mutation is meant
 * to exercise it. */
size_t collrt_fuzz_mutate(uint8_t *buf, size_t len, size_t cap,
                          const uint8_t *other, size_t other_len, uint64_t *rng);

/* splitmix64: the fuzzer's only random source, seeded explicitly. */
uint64_t collrt_fuzz_rand(uint64_t *state);

#endif

/* libFuzzer entry points (clang -fsanitize=fuzzer): the same target as the
 * standalone driver, and its plan-aware mutator so mutants keep a valid
 * checksum. Run: collrt_fuzz_plan_libfuzzer CORPUS_DIR -max_total_time=3600 */
#include "fuzz_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  collrt_fuzz_result_t r;
  collrt_fuzz_plan(data, size, &r);
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  uint64_t rng = seed;
  return collrt_fuzz_mutate(data, size, max_size, NULL, 0, &rng);
}

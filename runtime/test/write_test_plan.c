/* Writes one of the hand-built test plans to a file, for the MPI tests:
 *   collrt_write_test_plan direct-alltoall|direct-alltoallv|ring-allgatherv|
 *                          topo-alltoall-2x2x2|two-phase-4x2|
 *                          two-phase-credit-4x2  OUT */
#include <stdio.h>
#include <string.h>

#include "test_plans.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: collrt_write_test_plan NAME OUT\n");
    return 2;
  }
  static tp_builder_t b;
  const char *n = argv[1];
  if (!strcmp(n, "direct-alltoall"))
    tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  else if (!strcmp(n, "direct-alltoallv"))
    tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 4);
  else if (!strcmp(n, "ring-allgatherv"))
    tp_build_ring(&b, "rminpos 1 max 64 max", 4);
  else if (!strcmp(n, "topo-alltoall-2x2x2"))
    tp_build_direct_topo(&b, 2, 2, 2);
  else if (!strcmp(n, "two-phase-4x2"))
    tp_build_two_phase(&b, 4, 2, 4, 1);
  else if (!strcmp(n, "two-phase-credit-4x2"))
    tp_build_two_phase(&b, 4, 2, 1, 0);
  else {
    fprintf(stderr, "collrt_write_test_plan: unknown plan '%s'\n", n);
    return 2;
  }
  collrt_plan_t *p = tp_finish(&b);
  if (!p)
    return 1;
  size_t len;
  const uint8_t *bytes = collrt_plan_bytes(p, &len);
  FILE *f = fopen(argv[2], "wb");
  int ok = f && fwrite(bytes, 1, len, f) == len;
  if (f)
    ok &= fclose(f) == 0;
  collrt_plan_free(p);
  if (!ok)
    fprintf(stderr, "collrt_write_test_plan: cannot write '%s'\n", argv[2]);
  return ok ? 0 : 1;
}

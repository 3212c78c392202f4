/* Writes the direct alltoall test plan with a message-size range, for the
 * matching tests: write_sized_plan OUT MIN MAX (bytes per peer block). */
#include <stdio.h>
#include <stdlib.h>

#include "test_plans.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: write_sized_plan OUT MIN MAX\n");
    return 2;
  }
  static tp_builder_t b;
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  b.desc.block_bytes_min = strtoull(argv[2], NULL, 10);
  b.desc.block_bytes_max = strtoull(argv[3], NULL, 10);
  collrt_plan_t *p = tp_finish(&b);
  if (!p)
    return 1;
  size_t len;
  const uint8_t *bytes = collrt_plan_bytes(p, &len);
  FILE *f = fopen(argv[1], "wb");
  int ok = f && fwrite(bytes, 1, len, f) == len;
  if (f)
    ok &= fclose(f) == 0;
  collrt_plan_free(p);
  if (!ok)
    fprintf(stderr, "write_sized_plan: cannot write '%s'\n", argv[1]);
  return ok ? 0 : 1;
}

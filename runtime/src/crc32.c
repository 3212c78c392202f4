/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib computes it.
 * Bitwise: plans are a few KiB and checked once at load. */
#include "plan_internal.h"

uint32_t collrt_crc32(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k)
      c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return c ^ 0xFFFFFFFFu;
}

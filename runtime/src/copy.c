/* The runtime's local copies (COPY steps, and on-node messages within one
 * address space).
 *
 * glibc's memmove uses `rep movsb` for mid-sized copies (from a few KiB up
 * to its non-temporal threshold). On AMD EPYC (the machine this project is
 * measured on; Zen) that instruction runs about 20x slower when the
 * destination lies a few bytes past the source modulo 4 KiB ("4K
 * aliasing"): 64 KiB in 29 us instead of 1.4 us, the distance being 16,
 * which is what two heap buffers of a whole number of pages apart get.
 * glibc 2.36 avoids the case on Intel only (avoid_short_distance_rep_movsb).
 * It made a 256 KiB alltoall at 2 ranks 5x slower than MPICH's, whose own
 * copy loop does not use the instruction. For such a distance this file
 * copies with 16-byte vector moves instead; everything else stays memmove.
 * The kernel's copies (process_vm_readv) use the instruction too: shm.c
 * reads through a bounce buffer at the source's page offset there. */
#include <stdint.h>
#include <string.h>

#include "copy.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* Below ALIASED_COPY_MIN glibc does not use `rep movsb`; at distances of
 * ALIAS_DISTANCE and more (a cache line) it runs at full speed. */
enum { ALIASED_COPY_MIN = 2048, ALIAS_DISTANCE = 64 };

/* Forward copy of non-overlapping memory, 64 bytes an iteration. */
static void copy_vectors(uint8_t *dst, const uint8_t *src, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
    _mm_storeu_si128((__m128i *)(dst + i), a);
    _mm_storeu_si128((__m128i *)(dst + i + 16), b);
    _mm_storeu_si128((__m128i *)(dst + i + 32), c);
    _mm_storeu_si128((__m128i *)(dst + i + 48), d);
  }
  memcpy(dst + i, src + i, n - i);
}

int collrt_copy_aliased(uintptr_t dst, uintptr_t src, size_t n) {
  uintptr_t distance = (dst - src) & 4095u;
  return n >= ALIASED_COPY_MIN && distance != 0 && distance < ALIAS_DISTANCE;
}

void collrt_copy(void *dst, const void *src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  int disjoint = d + n <= s || s + n <= d;
  if (disjoint && collrt_copy_aliased((uintptr_t)d, (uintptr_t)s, n)) {
    copy_vectors(d, s, n);
    return;
  }
  memmove(dst, src, n);
}

#else

int collrt_copy_aliased(uintptr_t dst, uintptr_t src, size_t n) {
  (void)dst, (void)src, (void)n;
  return 0;
}

void collrt_copy(void *dst, const void *src, size_t n) { memmove(dst, src, n); }

#endif

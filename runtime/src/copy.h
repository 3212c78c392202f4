/* Local copies of user data (copy.c). */
#ifndef COLLRT_COPY_H
#define COLLRT_COPY_H

#include <stddef.h>

/* memmove, except for the source-destination distances at which the CPU's
 * `rep movsb` (glibc's choice for mid-sized copies) is slow. Used by every
 * local copy of user data: COPY steps, on-node messages in one address
 * space. */
void collrt_copy(void *dst, const void *src, size_t n);

#endif

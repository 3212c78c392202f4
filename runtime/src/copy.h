/* Local copies of user data (copy.c). */
#ifndef COLLRT_COPY_H
#define COLLRT_COPY_H

#include <stddef.h>
#include <stdint.h>

/* memmove, except for the source-destination distances at which the CPU's
 * `rep movsb` (glibc's choice for mid-sized copies) is slow. Used by every
 * local copy of user data: COPY steps, on-node messages in one address
 * space. */
void collrt_copy(void *dst, const void *src, size_t n);

/* 1 if copying n bytes from address `src` to `dst` with `rep movsb` would
 * hit the slow case: dst a few bytes past src modulo 4 KiB, n large enough
 * for glibc (or the kernel) to choose the instruction. The addresses may
 * belong to different processes (process_vm_readv: shm.c). */
int collrt_copy_aliased(uintptr_t dst, uintptr_t src, size_t n);

#endif

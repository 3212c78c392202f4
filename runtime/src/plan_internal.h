/* The plan handle and the little-endian codec shared by decode and encode. */
#ifndef COLLRT_PLAN_INTERNAL_H
#define COLLRT_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collc/plan.h"

struct collrt_plan {
  uint8_t *bytes; /* owned encoded plan */
  size_t len;
  collrt_plan_desc_t desc; /* points into the arrays below */
  collrt_fifo_desc_t *fifos;
  collrt_stmt_t *stmts;
  uint8_t *exprs;
  int uses_topology; /* some expression uses DIM, COORD or RANK_AT */
  int has_exchange;  /* the program has an EXCHANGE statement */
  int has_arena;     /* the program has an ARENA statement (top level) */
};

uint32_t collrt_crc32(const uint8_t *p, size_t n);

/* Decodes and validates `bytes` and takes ownership of them (freed on error
 * too). */
collrt_status_t collrt_plan_decode_owned(uint8_t *bytes, size_t len,
                                         collrt_plan_t **out_plan,
                                         collrt_diag_t *diag);

static inline uint16_t collrt_rd16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t collrt_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static inline uint64_t collrt_rd64(const uint8_t *p) {
  return (uint64_t)collrt_rd32(p) | ((uint64_t)collrt_rd32(p + 4) << 32);
}
static inline void collrt_wr16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void collrt_wr32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = (uint8_t)(v >> (8 * i));
}
static inline void collrt_wr64(uint8_t *p, uint64_t v) {
  collrt_wr32(p, (uint32_t)v);
  collrt_wr32(p + 4, (uint32_t)(v >> 32));
}

/* One statement's encoding (plan_format.h, "stmt"): collrt_stmt_encode
 * writes at most COLLRT_PLAN_STMT_MAX_BYTES and returns how many;
 * collrt_stmt_decode reads one from [p, end) and returns the bytes it took,
 * or 0 if they are not one statement (truncated, a reserved presence bit,
 * or a field marked present that is 0: every statement has one encoding).
 * The encoder, the decoder and the fuzzer share these. */
size_t collrt_stmt_encode(const collrt_stmt_t *s, uint8_t *out);
size_t collrt_stmt_decode(const uint8_t *p, const uint8_t *end, collrt_stmt_t *s);

/* Byte offsets of header fields (see the grammar in plan_format.h). */
enum {
  COLLRT_H_VERSION = 8,
  COLLRT_H_PRODUCER = 10,
  COLLRT_H_TOTAL = 12,
  COLLRT_H_CHECKSUM = 16,
  COLLRT_H_OP = 20,
  COLLRT_H_ALG = 21,
  COLLRT_H_NDIMS = 22,
  COLLRT_H_WRAP = 23,
  COLLRT_H_SHAPE = 24,
  COLLRT_H_RPN = 36,
  COLLRT_H_ALPHA = 40,
  COLLRT_H_BETA = 44,
  COLLRT_H_GAMMA = 48,
  COLLRT_H_NFIFOS = 52,
  COLLRT_H_NEVENTS = 53,
  COLLRT_H_NVARS = 54,
  COLLRT_H_FLAGS = 55,
  COLLRT_H_NSTMTS = 56,
  COLLRT_H_EXPR_BYTES = 58,
  COLLRT_H_SCRATCH = 60,
  COLLRT_H_NTABLES = 62,
  COLLRT_H_RESERVED1 = 63,
  COLLRT_H_BLOCK_MIN = 64,
  COLLRT_H_BLOCK_MAX = 72,
};

#endif

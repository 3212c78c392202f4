/* The arithmetic of a REDUCE step: one combine loop per (operation, element
 * type) pair of the table in plan_format.h, and the table's names, sizes and
 * rules. The engine calls collrt_reduce_apply; the decoder, the expander
 * and the compiler ask collrt_reduce_valid and collrt_reduce_type_size, so
 * what a plan may ask for and what it computes are defined here once.
 *
 * Order. dst[i] = dst[i] OP src[i], i ascending, the destination the left
 * operand. Nothing is reassociated, vectorised across elements of one
 * position or fused: an element's result depends only on the two values and
 * the op, so a float result is exactly the serial reduction in the order the
 * plan's REDUCE steps combine contributions (the same on every rank that
 * runs the same steps, bitwise).
 *
 * Each op, exactly:
 *   SUM, PROD   integers: modulo 2^bits (two's complement for signed types,
 *               computed in unsigned arithmetic, so overflow is defined);
 *               floats: a + b, a * b in the type (IEEE, round to nearest)
 *   MIN, MAX    b < a ? b : a, b > a ? b : a: on a tie or a NaN in b the
 *               destination's value stays
 *   LAND, LOR, LXOR   1 or 0: a && b, a || b, !a != !b
 *   BAND, BOR, BXOR   bitwise on the integer's bits
 *   MINLOC, MAXLOC    the pair with the smaller (larger) value; on equal
 *               values the smaller index (MPI's rule); the winner's bytes,
 *               padding included, are copied whole
 *
 * Loads and stores go through memcpy, so regions need no alignment (a plan
 * places elements at any byte offset; the compiler turns them into plain
 * loads). */
#include <stdio.h>
#include <string.h>

#include "collc/plan.h"

/* ---- kernels, one function per type with a loop per op ---- */

#define LOOP(CTYPE, EXPR)                                                      \
  for (size_t k = 0; k < n; ++k) {                                             \
    CTYPE a, b;                                                                \
    memcpy(&a, d + k * sizeof a, sizeof a);                                    \
    memcpy(&b, s + k * sizeof b, sizeof b);                                    \
    a = (CTYPE)(EXPR);                                                         \
    memcpy(d + k * sizeof a, &a, sizeof a);                                    \
  }                                                                            \
  return;

/* unsigned arithmetic: defined on overflow, the same bits as two's
 * complement for the signed types */
#define UADD(a, b) ((unsigned long long)(a) + (unsigned long long)(b))
#define UMUL(a, b) ((unsigned long long)(a) * (unsigned long long)(b))

#define KERNEL_COLLRT_RC_INT(NAME, CTYPE)                                      \
  static void reduce_##NAME(unsigned op, unsigned char *d,                     \
                            const unsigned char *s, size_t n) {                \
    switch (op) {                                                              \
    case COLLRT_ROP_SUM: LOOP(CTYPE, UADD(a, b))                               \
    case COLLRT_ROP_PROD: LOOP(CTYPE, UMUL(a, b))                              \
    case COLLRT_ROP_MIN: LOOP(CTYPE, b < a ? b : a)                            \
    case COLLRT_ROP_MAX: LOOP(CTYPE, b > a ? b : a)                            \
    case COLLRT_ROP_LAND: LOOP(CTYPE, a && b)                                  \
    case COLLRT_ROP_LOR: LOOP(CTYPE, a || b)                                   \
    case COLLRT_ROP_LXOR: LOOP(CTYPE, !a != !b)                                \
    case COLLRT_ROP_BAND: LOOP(CTYPE, a & b)                                   \
    case COLLRT_ROP_BOR: LOOP(CTYPE, a | b)                                    \
    case COLLRT_ROP_BXOR: LOOP(CTYPE, a ^ b)                                   \
    }                                                                          \
  }

#define KERNEL_COLLRT_RC_FLOAT(NAME, CTYPE)                                    \
  static void reduce_##NAME(unsigned op, unsigned char *d,                     \
                            const unsigned char *s, size_t n) {                \
    switch (op) {                                                              \
    case COLLRT_ROP_SUM: LOOP(CTYPE, a + b)                                    \
    case COLLRT_ROP_PROD: LOOP(CTYPE, a * b)                                   \
    case COLLRT_ROP_MIN: LOOP(CTYPE, b < a ? b : a)                            \
    case COLLRT_ROP_MAX: LOOP(CTYPE, b > a ? b : a)                            \
    }                                                                          \
  }

/* the pair's value and index decide; the struct is copied whole */
#define PAIR_LOOP(CTYPE, WINS)                                                 \
  for (size_t k = 0; k < n; ++k) {                                             \
    CTYPE a, b;                                                                \
    memcpy(&a, d + k * sizeof a, sizeof a);                                    \
    memcpy(&b, s + k * sizeof b, sizeof b);                                    \
    if (WINS)                                                                  \
      memcpy(d + k * sizeof a, &b, sizeof b);                                  \
  }                                                                            \
  return;

#define KERNEL_COLLRT_RC_PAIR(NAME, CTYPE)                                     \
  static void reduce_##NAME(unsigned op, unsigned char *d,                     \
                            const unsigned char *s, size_t n) {                \
    switch (op) {                                                              \
    case COLLRT_ROP_MINLOC:                                                    \
      PAIR_LOOP(CTYPE, b.v < a.v || (b.v == a.v && b.i < a.i))                 \
    case COLLRT_ROP_MAXLOC:                                                    \
      PAIR_LOOP(CTYPE, b.v > a.v || (b.v == a.v && b.i < a.i))                 \
    }                                                                          \
  }

#define DEFINE_KERNEL(NAME, ID, SPELLING, CTYPE, CLASS) KERNEL_##CLASS(NAME, CTYPE)
COLLRT_REDUCE_TYPES(DEFINE_KERNEL)
#undef DEFINE_KERNEL

void collrt_reduce_apply(unsigned op, unsigned type, void *dst, const void *src, size_t n) {
  switch (type) {
#define CASE(NAME, ID, SPELLING, CTYPE, CLASS)                                 \
  case ID: reduce_##NAME(op, dst, src, n); return;
    COLLRT_REDUCE_TYPES(CASE)
#undef CASE
  }
}

/* ---- the table's names, sizes and rules ---- */

const char *collrt_reduce_op_name(unsigned op) {
  switch (op) {
#define CASE(NAME, ID, SPELLING, CLASSES) case ID: return SPELLING;
    COLLRT_REDUCE_OPS(CASE)
#undef CASE
  }
  return "?";
}

const char *collrt_reduce_type_name(unsigned type) {
  switch (type) {
#define CASE(NAME, ID, SPELLING, CTYPE, CLASS) case ID: return SPELLING;
    COLLRT_REDUCE_TYPES(CASE)
#undef CASE
  }
  return "?";
}

unsigned collrt_reduce_op_from_name(const char *name) {
#define MATCH(NAME, ID, SPELLING, CLASSES) if (name && !strcmp(name, SPELLING)) return ID;
  COLLRT_REDUCE_OPS(MATCH)
#undef MATCH
  return 0;
}

unsigned collrt_reduce_type_from_name(const char *name) {
#define MATCH(NAME, ID, SPELLING, CTYPE, CLASS) if (name && !strcmp(name, SPELLING)) return ID;
  COLLRT_REDUCE_TYPES(MATCH)
#undef MATCH
  return 0;
}

size_t collrt_reduce_type_size(unsigned type) {
  switch (type) {
#define CASE(NAME, ID, SPELLING, CTYPE, CLASS) case ID: return sizeof(CTYPE);
    COLLRT_REDUCE_TYPES(CASE)
#undef CASE
  }
  return 0;
}

static unsigned op_classes(unsigned op) {
  switch (op) {
#define CASE(NAME, ID, SPELLING, CLASSES) case ID: return CLASSES;
    COLLRT_REDUCE_OPS(CASE)
#undef CASE
  }
  return 0;
}

static unsigned type_class(unsigned type) {
  switch (type) {
#define CASE(NAME, ID, SPELLING, CTYPE, CLASS) case ID: return CLASS;
    COLLRT_REDUCE_TYPES(CASE)
#undef CASE
  }
  return 0;
}

int collrt_reduce_valid(unsigned op, unsigned type, char *why, size_t why_len) {
  unsigned ops = op_classes(op), cls = type_class(type);
  if (ops && cls && (ops & cls))
    return 1;
  if (!why || !why_len)
    return 0;
  if (!ops)
    snprintf(why, why_len, "%u is not a reduction operation of COLLRT_REDUCE_OPS", op);
  else if (!cls)
    snprintf(why, why_len, "%u is not an element type of COLLRT_REDUCE_TYPES", type);
  else
    snprintf(why, why_len, "%s does not apply to %s: it takes %s", collrt_reduce_op_name(op),
             collrt_reduce_type_name(type),
             ops == COLLRT_RC_INT ? "the C integer types"
             : ops == COLLRT_RC_PAIR ? "the value-index pair types (float_int, double_int, long_int, 2int, short_int, long_double_int)"
                                     : "the C integer and floating types");
  return 0;
}

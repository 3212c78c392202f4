/* Unit tests of collrt_core (no MPI): format, validation, expressions,
 * expansion, simulation and the local copy. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collc/plan.h"
#include "collc/simulate.h"
#include "collc/wait_policy.h"
#include "copy.h"
#include "env.h"
#include "expr_eval.h"
#include "plan_internal.h"
#include "test_plans.h"

static int failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);        \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* Expects `st` with a diagnostic containing `needle`. */
static void expect(collrt_status_t got, collrt_status_t want,
                   const collrt_diag_t *d, const char *needle, int line) {
  if (got != want || (needle && !strstr(d->message, needle))) {
    ++failures;
    fprintf(stderr, "test_core.c:%d: FAILED: got %s (%d) '%s', want %s with '%s'\n",
            line, collrt_strerror(got), got, d->message, collrt_strerror(want),
            needle ? needle : "");
  }
}
#define EXPECT(got, want, d, needle) expect(got, want, d, needle, __LINE__)

static collrt_status_t encode(tp_builder_t *b, collrt_diag_t *d) {
  collrt_plan_t *p = NULL;
  b->desc.fifos = b->fifos;
  b->desc.stmts = b->stmts;
  b->desc.exprs = b->exprs;
  memset(d, 0, sizeof *d);
  collrt_status_t st = collrt_plan_encode(&b->desc, &p, d);
  collrt_plan_free(p);
  return st;
}

static void test_round_trip(void) {
  tp_builder_t b;
  tp_build_ring(&b, "rminpos 1 max", 2);
  collrt_plan_t *p = tp_finish(&b);
  CHECK(p != NULL, "ring plan encodes");
  if (!p)
    return;
  size_t len;
  const uint8_t *bytes = collrt_plan_bytes(p, &len);
  size_t stmt_bytes = 0;
  uint8_t enc[COLLRT_PLAN_STMT_MAX_BYTES];
  for (unsigned i = 0; i < b.desc.nstmts; ++i)
    stmt_bytes += collrt_stmt_encode(&b.stmts[i], enc);
  CHECK(len == COLLRT_PLAN_HEADER_BYTES + 4 + stmt_bytes + b.desc.expr_bytes, "length %zu", len);
  CHECK(stmt_bytes < 12u * b.desc.nstmts, "statements average under 12 bytes (%zu for %u)", stmt_bytes,
        b.desc.nstmts);
  collrt_plan_t *q = NULL;
  collrt_diag_t d = {{0}};
  EXPECT(collrt_plan_load(bytes, len, &q, &d), COLLRT_OK, &d, NULL);
  if (q) {
    const collrt_plan_desc_t *x = collrt_plan_desc(q);
    CHECK(x->nstmts == b.desc.nstmts && x->expr_bytes == b.desc.expr_bytes &&
              x->nevents == 1 && x->fifos[0].send_depth == 2 && x->op == COLLRT_OP_ALLGATHERV,
          "decoded header matches");
    CHECK(!memcmp(x->stmts, b.stmts, sizeof(collrt_stmt_t) * x->nstmts), "statements match");
    CHECK(!memcmp(x->exprs, b.exprs, x->expr_bytes), "expressions match");
    CHECK(!collrt_plan_needs_exact_size(q), "ring plan runs on any size");
    size_t len2;
    const uint8_t *b2 = collrt_plan_bytes(q, &len2);
    CHECK(len2 == len && !memcmp(b2, bytes, len), "bytes identical");
  }
  collrt_plan_free(q);

  /* checksum, truncation, magic, version */
  uint8_t *c = malloc(len);
  memcpy(c, bytes, len);
  c[len - 3] ^= 0x40;
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_CHECKSUM, &d, "does not match contents");
  memcpy(c, bytes, len);
  EXPECT(collrt_plan_load(c, len - 5, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d, "but header says total_bytes");
  EXPECT(collrt_plan_load(c, 30, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d, "shorter than the 80-byte header");
  c[0] = 'X';
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d, "magic");
  memcpy(c, bytes, len);
  c[COLLRT_H_VERSION] = 9;
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d, "version is 9");
  /* an older plan is named and the remedy given: version 4, the last
   * without REDUCE, and an older one */
  memcpy(c, bytes, len);
  c[COLLRT_H_VERSION] = 4;
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d,
         "plan format version is 4 but this runtime reads version 5; recompile the spec with a collc that writes version 5");
  c[COLLRT_H_VERSION] = 2;
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d,
         "plan format version is 2 but this runtime reads version 5; recompile the spec");
  /* statements: a reserved presence bit, a field marked present that is 0,
   * and statements that do not end where the pool begins */
  size_t first = COLLRT_PLAN_HEADER_BYTES + 4; /* the ring's first statement: a LET */
  memcpy(c, bytes, len);
  c[first + 1] |= 0x40;
  collrt_wr32(c + COLLRT_H_CHECKSUM, collrt_crc32(c + 20, len - 20));
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d,
         "plan statement 0 at byte 84 is not a statement");
  memcpy(c, bytes, len);
  CHECK(c[first] == COLLRT_STMT_LET && c[first + 1] == 0x4 && c[first + 2] == 0x1,
        "a LET is kind, slot present, expr[0] present");
  c[first + 3] = 0; /* its variable, marked present, is 0 */
  collrt_wr32(c + COLLRT_H_CHECKSUM, collrt_crc32(c + 20, len - 20));
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d,
         "plan statement 0 at byte 84 is not a statement");
  memcpy(c, bytes, len);
  c[COLLRT_H_NSTMTS] -= 1; /* one statement fewer: the last one's bytes are left over */
  collrt_wr32(c + COLLRT_H_CHECKSUM, collrt_crc32(c + 20, len - 20));
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d, "but its expression pool begins at byte");
  /* undefined flag bits, checksum recomputed: a validation error */
  memcpy(c, bytes, len);
  c[COLLRT_H_FLAGS] = 0x80;
  collrt_wr32(c + COLLRT_H_CHECKSUM, collrt_crc32(c + 20, len - 20));
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_INVALID, &d, "'flags' is 0x80");
  /* reserved field set */
  memcpy(c, bytes, len);
  c[COLLRT_H_RESERVED1] = 1;
  collrt_wr32(c + COLLRT_H_CHECKSUM, collrt_crc32(c + 20, len - 20));
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_INVALID, &d, "'reserved' at byte 63");
  free(c);
  collrt_plan_free(p);
  CHECK(collrt_crc32((const uint8_t *)"123456789", 9) == 0xCBF43926u, "CRC-32 check value");
}

/* Each validation rule, violated once on an otherwise valid direct plan. */
static void test_validation(void) {
  tp_builder_t b;
  collrt_diag_t d;
#define MUTATE(stmt_code, needle)                                              \
  do {                                                                         \
    tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 8);                               \
    stmt_code;                                                                 \
    EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, needle);               \
  } while (0)
  /* stmt 0 = PHASE, 1 = COPY, 2 = FOR, 3/4 = LET, 5 = RECV, 6 = SEND */
  tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 8);
  EXPECT(encode(&b, &d), COLLRT_OK, &d, NULL);
  MUTATE(b.stmts[0].slot = 5; b.desc.nfifos = 2; b.fifos[1].send_depth = 1,
         "plan field 'stmt[0].fifo' is 5 but the plan declares 2 FIFOs");
  MUTATE(b.stmts[3].slot = 9, "'stmt[3].var' is 9 but the plan declares 8 variables");
  MUTATE(b.stmts[5].kind = 16, "'stmt[5].kind' is 16");
  /* REDUCE (stmt 1 made one): a pair outside the op's classes, unknown
   * numbers, an op on another kind, a gathered side */
  MUTATE(b.stmts[1].kind = COLLRT_STMT_REDUCE; b.stmts[1].rop = COLLRT_ROP_BAND;
         b.stmts[1].rtype = COLLRT_RTYPE_DOUBLE,
         "'stmt[1]' is a REDUCE of operation 8 on type 20: band does not apply to double: it takes the C integer types");
  MUTATE(b.stmts[1].kind = COLLRT_STMT_REDUCE; b.stmts[1].rop = COLLRT_ROP_MINLOC;
         b.stmts[1].rtype = COLLRT_RTYPE_INT,
         "minloc does not apply to int: it takes the value-index pair types");
  MUTATE(b.stmts[1].kind = COLLRT_STMT_REDUCE; b.stmts[1].rop = 13; b.stmts[1].rtype = COLLRT_RTYPE_INT,
         "13 is not a reduction operation of COLLRT_REDUCE_OPS");
  MUTATE(b.stmts[1].kind = COLLRT_STMT_REDUCE; b.stmts[1].rop = COLLRT_ROP_SUM; b.stmts[1].rtype = 28,
         "28 is not an element type of COLLRT_REDUCE_TYPES");
  MUTATE(b.stmts[1].rop = COLLRT_ROP_SUM, "'stmt[1].rop' is 1 but only a REDUCE names an operation and a type");
  MUTATE(b.stmts[1].kind = COLLRT_STMT_REDUCE; b.stmts[1].rop = COLLRT_ROP_SUM;
         b.stmts[1].rtype = COLLRT_RTYPE_INT; b.stmts[1].slot = COLLRT_GATHER_SRC,
         "'stmt[1].slot' is 1 but must be at most 0 for kind 15");
  MUTATE(b.stmts[5].buf0 = COLLRT_BUF_SEND, "'stmt[5].buf0' is 0");
  MUTATE(b.stmts[6].buf0 = 4, "'stmt[6].buf0' is 4");
  MUTATE(b.stmts[1].buf1 = COLLRT_BUF_SCRATCH, "SCRATCH but the plan declares no scratch_expr");
  MUTATE(b.stmts[6].wait_event = 1; b.stmts[6].expr[4] = b.stmts[6].expr[0],
         "'stmt[6].wait_event' is event 0 but the plan declares 0 events");
  MUTATE(b.desc.nevents = 1; b.stmts[2].signal_event = 1, "only transfers wait on or signal");
  MUTATE(b.stmts[2].body = 9, "'stmt[2].body' is 9 but the enclosing body ends at statement 7");
  MUTATE(b.stmts[3].body = 1, "'stmt[3].body' is 1 but a kind-4 statement has no body");
  MUTATE(b.stmts[5].body = 1, "'stmt[6].kind' is a transfer inside the body of transfer stmt[5]");
  /* v2: SEG and DEP live only in a transfer's body; a SEG needs a gathered side */
  MUTATE(b.stmts[3].kind = COLLRT_STMT_SEG; b.stmts[3].slot = 0;
         b.stmts[3].expr[1] = b.stmts[3].expr[0], "'stmt[3].kind' is SEG outside a transfer's body");
  MUTATE(b.stmts[5].body = 1; b.stmts[6].kind = COLLRT_STMT_SEG; b.stmts[6].buf0 = COLLRT_BUF_RECV;
         b.stmts[6].expr[2] = b.stmts[6].expr[3] = COLLRT_EXPR_NONE,
         "'stmt[6].slot' is side 0 but transfer stmt[5] does not gather that side");
  MUTATE(b.stmts[5].body = 1; b.stmts[5].slot = COLLRT_GATHER_SRC; b.stmts[5].buf0 = 0;
         b.stmts[5].expr[1] = b.stmts[5].expr[2] = COLLRT_EXPR_NONE;
         b.stmts[6].kind = COLLRT_STMT_SEG; b.stmts[6].buf0 = COLLRT_BUF_SEND;
         b.stmts[6].expr[2] = b.stmts[6].expr[3] = COLLRT_EXPR_NONE,
         "segments written by transfer stmt[5] must be RECV, SCRATCH or ARENA");
  MUTATE(b.stmts[5].slot = COLLRT_GATHER_SRC; b.stmts[5].buf0 = 0,
         "'stmt[5].expr[1]' is");
  MUTATE(b.stmts[5].slot = 2, "'stmt[5].slot' is 2 but must be at most 1 for kind 6");
  MUTATE(b.desc.nevents = 1; b.stmts[5].body = 1; b.stmts[6].kind = COLLRT_STMT_DEP; b.stmts[6].buf0 = 0;
         b.stmts[6].wait_event = 0; b.stmts[6].expr[0] = b.stmts[6].expr[1] = b.stmts[6].expr[2] =
             b.stmts[6].expr[3] = COLLRT_EXPR_NONE,
         "a DEP waits on one");
  MUTATE(b.stmts[0].body = 0, "only EXCHANGE, ARENA, PHASE, FOR and LET may appear at top level");
  MUTATE(b.stmts[0].expr[COLLRT_E_FIFO_OFFSET] = tp_expr(&b, "0"),
         "'stmt[0].expr[0]' gives a FIFO offset but the PHASE is not in a phase loop");
  MUTATE(b.stmts[2].kind = COLLRT_STMT_PHASE; b.stmts[2].slot = 0;
         b.stmts[2].expr[0] = b.stmts[2].expr[1] = COLLRT_EXPR_NONE,
         "PHASE inside another phase");
  MUTATE(b.stmts[5].expr[3] = COLLRT_EXPR_NONE, "'stmt[5].expr[3]' is NONE but kind 6 requires it");
  MUTATE(b.stmts[1].expr[3] = b.stmts[1].expr[0], "'stmt[1].expr[3]' is");
  MUTATE(b.stmts[6].expr[0] = 60000, "'stmt[6].expr[0]' is 60000 but the expression pool has");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "v7"), "variable 7 is used at offset");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "v9"), "variable 9 at offset");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "1 op77"), "opcode 0x77");
  /* one-byte VAR and SMALL: the same rules as their long forms */
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "op87"), "variable 7 is used at offset");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "op89"), "variable 9 at offset");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "op60"), "opcode 0x60");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "op41 op41"), "leaves 2 values on the stack at END");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "1 +"), "pops 2 values but the stack holds 1");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "1 2"), "leaves 2 values on the stack at END");
  MUTATE(b.stmts[3].expr[0] =
             tp_expr(&b, "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 + + + + + + + + + + + + + + + +"),
         "more than 16 stack entries");
  MUTATE(b.stmts[3].expr[0] = tp_expr(&b, "dim1"), "dimension 1 at offset");
  MUTATE(b.desc.expr_bytes -= 1, "");
  MUTATE(b.stmts[3].expr[0] = (uint16_t)(b.desc.expr_bytes - 3);
         b.exprs[b.desc.expr_bytes - 3] = COLLRT_X_CONST32,
         "immediate of opcode 0x01");
  MUTATE(b.desc.nfifos = 0, "'nfifos' is 0");
  MUTATE(b.fifos[0].send_depth = 0, "'fifo[0].send_depth' is 0");
  MUTATE(b.desc.ndims = 4, "'ndims' is 4");
  MUTATE(b.desc.shape[2] = 2, "'shape[2]' is 2 but must be 1 (unused dimension)");
  MUTATE(b.desc.op = 7, "'op' is 7");
  MUTATE(b.desc.nevents = 17, "'nevents' is 17");
  MUTATE(b.desc.nvars = 65, "'nvars' is 65");
  MUTATE(b.desc.scratch_expr = tp_expr(&b, "v0"), "plan field 'scratch_expr': variable 0 is used");
  MUTATE(b.stmts[2].buf0 = 3, "'stmt[2].buf0' is 3");
  MUTATE(b.stmts[2].buf0 = COLLRT_ORDER_RANDOM, "'stmt[2].expr[2]' is NONE but kind 2 requires it");
#undef MUTATE
}

static int64_t eval_str(const char *src, int rank, int size, collrt_status_t *st,
                        char *why) {
  tp_builder_t b;
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  b.desc.ndims = 2;
  b.desc.shape[0] = 3;
  b.desc.shape[1] = 2;
  b.desc.ranks_per_node = 2;
  uint16_t ref = tp_expr(&b, src);
  unsigned ph = tp_phase(&b, 0);
  tp_end(&b, ph);
  int64_t out = 0;
  collrt_plan_t *p = tp_finish(&b);
  if (!p) {
    *st = COLLRT_ERR_PLAN_INVALID;
    return 0;
  }
  int64_t counts[12] = {5, 0, 7, 0, 3, 9, 9, 9, 9, 9, 9, 9}, zeros[12] = {0};
  collrt_expand_input_t in = {size, rank, counts, zeros, counts, zeros, 0, 0, NULL};
  int64_t vars[COLLRT_MAX_VARS] = {0};
  uint64_t sum_budget = 1000;
  collrt_expr_ctx_t ctx = {collrt_plan_desc(p), &in, vars, &sum_budget};
  *st = collrt_expr_eval(&ctx, ref, &out, why, 200);
  collrt_plan_free(p);
  return out;
}

static void test_expressions(void) {
  static const struct { const char *src; int64_t want; } ok[] = {
      {"-7 2 /", -4}, {"7 -2 /", -4}, {"-7 -2 /", 3}, {"7 2 /", 3},
      {"-7 2 %", 1}, {"7 -2 %", -1}, {"-7 -2 %", -1}, {"-9223372036854775807 1 - -1 %", 0},
      {"-7 2 cdiv", -3}, {"7 2 cdiv", 4}, {"8 2 cdiv", 4}, {"0 5 cdiv", 0},
      {"3 4 min", 3}, {"3 4 max", 4}, {"1 5 6 ?", 5}, {"0 5 6 ?", 6},
      {"17 isqrt", 4}, {"16 isqrt", 4}, {"9223372036854775807 isqrt", 3037000499},
      {"2 3 < 4 4 <= &&", 1}, {"0 !", 1}, {"1 0 ||", 1}, {"1 2 !=", 1},
      {"r P *", 36}, {"rpn", 2}, {"dim0 dim1 *", 6},
      {"7 coord0", 0}, {"7 coord1", 1}, {"10 coord0", 2},
      {"2 1 1 rank_at", 11}, {"0 1 0 rank_at", 6},
      {"2 rcount", 7}, {"rsum", 78}, {"rminpos", 3}, {"rzeros", 2},
      {"0 4 sum1[ v1 v1 * ]", 14}, {"5 2 sum1[ 1 ]", 0}, {"2 2 sum1[ 1 ]", 0},
      {"0 4 sum1[ 0 v1 sum2[ v2 v1 * ] ]", 0 + 0 + 2 + 9}, {"1 0 3 sum1[ v1 ] +", 4},
      {"0 12 sum1[ v1 rcount ]", 78},
      {"0 4 max1[ v1 v1 * ]", 9}, {"5 2 max1[ 1 ]", 0}, {"1 4 max1[ 0 v1 - ]", -1},
      {"0 3 max1[ 0 v1 sum2[ v2 ] ]", 1}, {"0 12 max1[ v1 rcount ]", 9}, {"0 4 max1[ v1 rcount ]", 7},
      /* one-byte forms: SMALL v (0x40 + v) and VAR v (0x80 + v) */
      {"op45 op5f +", 36}, {"op40", 0}, {"0 4 sum1[ op81 op81 * ]", 14},
  };
  char why[200];
  collrt_status_t st;
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; ++k) {
    int64_t v = eval_str(ok[k].src, 3, 12, &st, why);
    CHECK(st == COLLRT_OK && v == ok[k].want, "'%s' = %lld (status %d, %s), want %lld",
          ok[k].src, (long long)v, st, st ? why : "", (long long)ok[k].want);
  }
  static const struct { const char *src; const char *why; } bad[] = {
      {"1 0 /", "division by zero"}, {"1 0 %", "division by zero"},
      {"9223372036854775807 1 +", "overflows"}, {"-9223372036854775807 2 -", "overflows"},
      {"4611686018427387904 2 *", "overflows"}, {"-9223372036854775807 1 - -1 /", "overflows"},
      {"-1 isqrt", "negative"}, {"12 scount", "SCOUNT(12) is outside [0, 12)"},
      {"-1 rdispl", "RDISPL(-1)"}, {"3 0 0 rank_at", "coordinate 0 is 3"},
      {"0 0 2 rank_at", "local index 2"}, {"12 coord0", "outside [0, 12)"},
      {"0 5 table1", "TABLE 1: rank 0 PUT no entry 5 to rank 3"}, {"12 0 table0", "rank 12 is outside"},
      {"0 2000 sum1[ 1 ]", "exceeds the bind budget"},
      {"0 3 sum1[ 4611686018427387904 ]", "overflows"},
      {"0 2000 max1[ 1 ]", "exceeds the bind budget"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    why[0] = 0;
    eval_str(bad[k].src, 3, 12, &st, why);
    CHECK(st == COLLRT_ERR_BOUNDS && strstr(why, bad[k].why), "'%s' fails with '%s' (got %d '%s')",
          bad[k].src, bad[k].why, st, why);
  }
}

static void uniform_input(collrt_expand_input_t *in, int64_t *arr, int P, int rank, int64_t c) {
  for (int j = 0; j < P; ++j) {
    arr[j] = arr[2 * P + j] = c;
    arr[P + j] = arr[3 * P + j] = j * c;
  }
  collrt_expand_input_t x = {P, rank, arr, arr + P, arr + 2 * P, arr + 3 * P, P * c, P * c, NULL};
  *in = x;
}

/* A phase loop: one PHASE body on FIFO 0 + v0 for v0 in [0, 2). Each
 * iteration moves half of every block (a "part"), so the two FIFOs carry
 * the same transfers at different offsets. */
static void build_phase_loop(tp_builder_t *b, const char *offset) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  b->desc.nfifos = 2;
  b->fifos[1] = b->fifos[0];
  unsigned own = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "r sdispl", COLLRT_BUF_RECV, "r rdispl", "r scount");
  tp_end(b, own);
  unsigned parts = tp_for(b, 0, "0", "2");
  tp_let(b, 1, "r scount 2 cdiv");
  unsigned ph = tp_phase(b, 0);
  b->stmts[ph].expr[COLLRT_E_FIFO_OFFSET] = tp_expr(b, offset);
  unsigned f = tp_for(b, 2, "1", "P");
  tp_let(b, 3, "r v2 + P %");
  tp_let(b, 4, "r v2 - P + P %");
  tp_recv(b, COLLRT_BUF_RECV, "v4", "v4 rdispl v1 v0 * +", "v1 v4 rcount v1 - v0 ? ", "0");
  tp_send(b, COLLRT_BUF_SEND, "v3", "v3 sdispl v1 v0 * +", "v1 v3 scount v1 - v0 ? ", "0");
  tp_end(b, f);
  tp_end(b, ph);
  tp_end(b, parts);
}

static void test_phase_loop(void) {
  tp_builder_t b;
  collrt_diag_t d;
  collrt_steps_t s;
  int64_t arr[4 * 4];
  collrt_expand_input_t in;
  build_phase_loop(&b, "v0");
  collrt_plan_t *p = tp_finish(&b);
  CHECK(p != NULL, "a phase loop validates");
  if (!p)
    return;
  uniform_input(&in, arr, 4, 1, 10);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
  size_t on[2] = {0, 0};
  int offsets_ok = 1;
  for (size_t i = 0; i < s.count; ++i) {
    const collrt_step_t *st = &s.steps[i];
    if (st->kind != COLLRT_STEP_SEND)
      continue;
    ++on[st->fifo];
    offsets_ok &= st->len == 5 && st->off == st->peer * 10 + 5 * st->fifo;
  }
  CHECK(on[0] == 3 && on[1] == 3, "one body, two FIFOs: 3 sends each, got %zu and %zu", on[0], on[1]);
  CHECK(offsets_ok, "part f sends bytes [5f, 5f + 5) of each block on FIFO f");
  collrt_steps_free(&s);
  collrt_plan_free(p);
  /* an offset past the declared FIFOs fails at expansion, naming it */
  build_phase_loop(&b, "v0 1 +");
  p = tp_finish(&b);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d,
         "PHASE on rank 1: FIFO 0 + 2 is outside the plan's 2 FIFOs");
  collrt_plan_free(p);
  build_phase_loop(&b, "9223372036854775807"); /* no overflow past the check */
  p = tp_finish(&b);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d,
         "FIFO 0 + 9223372036854775807 is outside the plan's 2 FIFOs");
  collrt_plan_free(p);
  /* a phase loop holds phases, loops and LETs, and no transfer */
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  unsigned f = tp_for(&b, 0, "0", "1");
  tp_send(&b, COLLRT_BUF_SEND, "r", "0", "0", "0");
  tp_end(&b, f);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d,
         "'stmt[1].kind' is 5 in a phase loop (a FOR outside phases), which holds only PHASE, FOR and LET");
  build_phase_loop(&b, "v0");
  unsigned ex = tp_exchange(&b);
  tp_end(&b, ex);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d,
         "EXCHANGE after the PHASE or phase loop stmt[0]");
}

static void test_expand(void) {
  tp_builder_t b;
  collrt_diag_t d;
  collrt_steps_t s;
  int64_t arr[4 * 16];
  collrt_expand_input_t in;
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  collrt_plan_t *p = tp_finish(&b);
  uniform_input(&in, arr, 4, 1, 10);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
  CHECK(s.count == 7, "direct P=4: 7 steps, got %zu", s.count);
  if (s.count == 7) {
    CHECK(s.steps[0].kind == COLLRT_STEP_COPY && s.steps[0].off == 10 && s.steps[0].dst_off == 10,
          "own block copied");
    CHECK(s.steps[1].kind == COLLRT_STEP_RECV && s.steps[1].peer == 0 && s.steps[1].off == 0,
          "first receive from rank 0");
    CHECK(s.steps[2].kind == COLLRT_STEP_SEND && s.steps[2].peer == 2 && s.steps[2].off == 20,
          "first send to rank 2");
  }
  collrt_steps_free(&s);
  /* zero counts produce no steps */
  uniform_input(&in, arr, 4, 1, 0);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
  CHECK(s.count == 0, "zero counts: no steps, got %zu", s.count);
  collrt_steps_free(&s);
  /* a displacement outside the buffer */
  uniform_input(&in, arr, 4, 1, 10);
  arr[3 * 4 + 2] = 35;
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d,
         "stmt[5] RECV on rank 1: buffer region [35, 35 + 10) is outside the 40-byte receive buffer");
  collrt_plan_free(p);

  /* a topology plan refuses other sizes */
  tp_build_direct_topo(&b, 2, 2, 2);
  p = tp_finish(&b);
  CHECK(p && collrt_plan_needs_exact_size(p) && collrt_plan_topology_ranks(p) == 8, "topology plan");
  uniform_input(&in, arr, 5, 1, 1);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_COMM_MISMATCH, &d,
         "communicator has 5 ranks but the plan was compiled for shape 2x2x2 (torus) with 1 rank per node (8 ranks)");
  collrt_plan_free(p);

  /* events: ring dependencies point at the receive of the same block */
  tp_build_ring(&b, "4", 8);
  p = tp_finish(&b);
  uniform_input(&in, arr, 3, 0, 6);
  for (int j = 0; j < 3; ++j)
    arr[3 * 3 + j] = 6 * (2 - j); /* reverse order */
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
  int deps_ok = 1, forwards = 0;
  for (size_t i = 0; i < s.count; ++i)
    if (s.steps[i].kind == COLLRT_STEP_SEND && s.steps[i].buf == COLLRT_BUF_RECV) {
      ++forwards;
      const collrt_step_t *r = &s.steps[s.deps[s.steps[i].dep_begin]];
      deps_ok &= s.steps[i].ndeps == 1 && r->kind == COLLRT_STEP_RECV && r->off == s.steps[i].off &&
                 r->len == s.steps[i].len;
    }
  CHECK(deps_ok && forwards == 2, "forwards wait on their receive (%d forwards)", forwards);
  collrt_steps_free(&s);
  collrt_plan_free(p);

  /* waiting on an event nobody signalled */
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  b.desc.nevents = 2;
  b.stmts[6].wait_event = 2;
  b.stmts[6].expr[COLLRT_E_WAIT_I] = tp_expr(&b, "v1");
  p = tp_finish(&b);
  uniform_input(&in, arr, 4, 1, 10);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d,
         "stmt[6] on rank 1 waits on event 1(2, 0), which no transfer signals");
  collrt_plan_free(p);

  /* peer and tag out of range */
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  b.stmts[6].expr[0] = tp_expr(&b, "v1 P +");
  p = tp_finish(&b);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d, "stmt[6] SEND on rank 1: peer 6 is outside [0, 4)");
  collrt_plan_free(p);
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  b.stmts[5].expr[3] = tp_expr(&b, "32768");
  p = tp_finish(&b);
  EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d, "tag 32768 is outside [0, 32767]");
  collrt_plan_free(p);

  /* RANDOM order: a deterministic permutation, different per rank */
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  b.stmts[2].buf0 = COLLRT_ORDER_RANDOM;
  b.stmts[2].expr[COLLRT_E_SEED] = tp_expr(&b, "42");
  p = tp_finish(&b);
  int64_t big[4 * 16];
  uint64_t seen_orders[2] = {0, 0};
  for (int rank = 0; rank < 2; ++rank) {
    uniform_input(&in, big, 16, rank, 1);
    collrt_steps_t s2;
    EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
    EXPECT(collrt_expand(p, &in, &s2, &d), COLLRT_OK, &d, NULL);
    int seen[16] = {0}, sorted = 1, same = s.count == s2.count;
    for (size_t i = 0; i < s.count; ++i) {
      same &= s.steps[i].peer == s2.steps[i].peer;
      if (s.steps[i].kind == COLLRT_STEP_SEND) {
        seen[s.steps[i].peer]++;
        seen_orders[rank] = seen_orders[rank] * 31 + (uint64_t)s.steps[i].peer;
        if (i >= 4 && s.steps[i].peer < s.steps[i - 2].peer)
          sorted = 0;
      }
    }
    int perm = 1;
    for (int j = 0; j < 16; ++j)
      perm &= seen[j] == (j != rank);
    CHECK(perm && same && !sorted && s.count == 31, "rank %d: random order is a permutation, deterministic", rank);
    collrt_steps_free(&s);
    collrt_steps_free(&s2);
  }
  CHECK(seen_orders[0] != seen_orders[1], "orders differ between ranks");
  collrt_plan_free(p);
}

static collrt_status_t sim(collrt_plan_t *p, int P, const int64_t *counts,
                           collrt_diag_t *d) {
  collrt_sim_input_t in = {P, counts};
  collrt_sim_result_t r;
  memset(d, 0, sizeof *d);
  return collrt_simulate(p, &in, &r, d);
}

/* Count patterns including zeros, for P ranks (n = P*P or P entries). */
static void fill_counts(int64_t *c, size_t n, int pattern) {
  uint64_t x = 12345u + (uint64_t)pattern;
  for (size_t k = 0; k < n; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    switch (pattern) {
    case 0: c[k] = 5; break;
    case 1: c[k] = (int64_t)(x >> 60) % 3 == 0 ? 0 : (int64_t)(x >> 58); break;
    case 2: c[k] = k % 2 ? 0 : (int64_t)k + 1; break;
    default: c[k] = k == 0 ? 19 : 0; break;
    }
  }
}

static void test_simulate(void) {
  collrt_diag_t d;
  int64_t c[81];
  tp_builder_t b;
  collrt_plan_t *a2a, *a2av, *ring1, *ring2, *ring_min;
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  a2a = tp_finish(&b);
  tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 2);
  a2av = tp_finish(&b);
  tp_build_ring(&b, "3", 1);
  ring1 = tp_finish(&b);
  tp_build_ring(&b, "1", 4);
  ring2 = tp_finish(&b);
  tp_build_ring(&b, "rminpos 1 max", 2);
  ring_min = tp_finish(&b);
  for (int P = 1; P <= 9; ++P) {
    for (int pat = 0; pat < 4; ++pat) {
      int64_t u[1] = {pat * 3};
      int64_t uni[81];
      for (int k = 0; k < P * P; ++k)
        uni[k] = u[0];
      EXPECT(sim(a2a, P, uni, &d), COLLRT_OK, &d, NULL);
      fill_counts(c, (size_t)P * P, pat);
      EXPECT(sim(a2av, P, c, &d), COLLRT_OK, &d, NULL);
      fill_counts(c, (size_t)P, pat);
      EXPECT(sim(ring1, P, c, &d), COLLRT_OK, &d, NULL);
      EXPECT(sim(ring2, P, c, &d), COLLRT_OK, &d, NULL);
      EXPECT(sim(ring_min, P, c, &d), COLLRT_OK, &d, NULL);
    }
  }
  /* model time: a ring of P=4, 8 bytes each, block 8: 3 pipelined hops */
  {
    int64_t cc[4] = {8, 8, 8, 8};
    collrt_sim_input_t in = {4, cc};
    collrt_sim_result_t r;
    tp_build_ring(&b, "8", 1);
    collrt_plan_t *p = tp_finish(&b);
    EXPECT(collrt_simulate(p, &in, &r, &d), COLLRT_OK, &d, NULL);
    /* alpha 1 us, beta 1 ns/B: 3 sequential messages of 8 B */
    CHECK(r.messages == 12 && r.bytes == 96 && r.copy_bytes == 32 && r.max_steps == 7,
          "ring stats %llu %llu %llu %llu", (unsigned long long)r.messages,
          (unsigned long long)r.bytes, (unsigned long long)r.copy_bytes,
          (unsigned long long)r.max_steps);
    CHECK(r.model_time_us > 3.02 && r.model_time_us < 3.03, "model time %g us", r.model_time_us);
    collrt_plan_free(p);
  }
  collrt_plan_free(a2a);
  collrt_plan_free(a2av);
  collrt_plan_free(ring1);
  collrt_plan_free(ring2);
  collrt_plan_free(ring_min);

  /* a send longer than its receive */
  tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 8);
  b.stmts[6].expr[2] = tp_expr(&b, "v1 scount 1 +");
  collrt_plan_t *p = tp_finish(&b);
  fill_counts(c, 9, 0);
  EXPECT(sim(p, 3, c, &d), COLLRT_ERR_COUNTS, &d, "lengths 6 and 5 differ");
  collrt_plan_free(p);

  /* a send nobody receives */
  tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 8);
  b.stmts[5].expr[3] = tp_expr(&b, "1");
  p = tp_finish(&b);
  EXPECT(sim(p, 3, c, &d), COLLRT_ERR_COUNTS, &d, "has no matching receive");
  collrt_plan_free(p);

  /* bytes in the wrong place: receive from src into dst's region */
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 8);
  b.stmts[5].expr[1] = tp_expr(&b, "v1 rdispl");
  p = tp_finish(&b);
  EXPECT(sim(p, 3, c, &d), COLLRT_ERR_BOUNDS, &d, "rank 0's receive buffer at offset 5 holds byte 0 of rank 2's send buffer, expected byte 0 of rank 1's");
  collrt_plan_free(p);

  /* Rendezvous deadlock: every rank sends tag 0 then tag 1 to its right,
   * one send in flight, and receives tag 1 before tag 0 from its left, one
   * receive in flight: the posted receive (tag 1) never matches the posted
   * send (tag 0), and neither window moves. */
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  b.fifos[0].send_depth = 1;
  b.fifos[0].recv_depth = 1;
  unsigned ph = tp_phase(&b, 0);
  tp_recv(&b, COLLRT_BUF_RECV, "r 1 - P + P %", "0", "1", "1");
  tp_recv(&b, COLLRT_BUF_RECV, "r 1 - P + P %", "1", "1", "0");
  tp_send(&b, COLLRT_BUF_SEND, "r 1 + P %", "0", "1", "0");
  tp_send(&b, COLLRT_BUF_SEND, "r 1 + P %", "1", "1", "1");
  tp_end(&b, ph);
  p = tp_finish(&b);
  int64_t two[25];
  for (int k = 0; k < 25; ++k)
    two[k] = 2;
  EXPECT(sim(p, 5, two, &d), COLLRT_ERR_DEADLOCK, &d,
         "5 ranks stuck: rank 0 at recv<-4 1B (fifo 0, tag 1, stmt 1) [issued, its partner is not]");
  collrt_plan_free(p);
  /* the same program with unbounded receives completes the transfers */
  b.fifos[0].recv_depth = 0;
  p = tp_finish(&b);
  collrt_diag_t d2;
  collrt_status_t st = sim(p, 5, two, &d2);
  CHECK(st != COLLRT_ERR_DEADLOCK, "no deadlock with unbounded receives (%s)", d2.message);
  collrt_plan_free(p);
}

static collrt_expand_input_t in_v2;

/* Alltoall through scratch: each block is packed by a COPY and sent from
 * scratch. `order`: 0 = no event between them (a pack race), 1 = the SEND
 * waits on the COPY. `slots`: 0 = one scratch block per peer, 1 = one slot
 * reused by every peer (then `order` 1 still leaves a write-after-read race
 * unless `credit`: the next COPY waits on the previous SEND). */
static collrt_plan_t *build_packed(tp_builder_t *b, int order, int one_slot, int credit) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  b->desc.nevents = 2;
  b->desc.scratch_expr = tp_expr(b, one_slot ? "r scount" : "P r scount *");
  const char *slot = one_slot ? "0" : "v1 sdispl";
  unsigned ph = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "r sdispl", COLLRT_BUF_RECV, "r rdispl", "r scount");
  unsigned f = tp_for(b, 0, "1", "P");
  tp_let(b, 1, "r v0 + P %");
  tp_let(b, 2, "r v0 - P + P %");
  tp_recv(b, COLLRT_BUF_RECV, "v2", "v2 rdispl", "v2 rcount", "0");
  unsigned cp = tp_copy(b, COLLRT_BUF_SEND, "v1 sdispl", COLLRT_BUF_SCRATCH, slot, "v1 scount");
  if (credit) { /* a DEP under an IF in the COPY's body */
    unsigned i = tp_if(b, "v0 1 >");
    tp_dep(b, 1, "v0 1 -", NULL);
    tp_end(b, i);
    tp_end(b, cp);
  }
  tp_signal(b, cp, 0, "v0", NULL);
  unsigned sd = tp_send(b, COLLRT_BUF_SCRATCH, "v1", slot, "v1 scount", "0");
  if (order)
    tp_wait(b, sd, 0, "v0", NULL);
  tp_signal(b, sd, 1, "v0", NULL);
  tp_end(b, f);
  tp_end(b, ph);
  return tp_finish(b);
}

/* Format v2: gathered transfers, joins, forward waits and credits, and the
 * verifier's hazard and deadlock findings. */
static void test_format_v2(void) {
  static tp_builder_t b;
  collrt_diag_t d = {{0}};
  int64_t c[16 * 16];
  for (int k = 0; k < 16 * 16; ++k)
    c[k] = 7;
  /* two-phase schedules, at their exact sizes */
  static const unsigned ok_cfg[][4] = {{4, 2, 4, 1}, {2, 3, 2, 1}, {4, 4, 4, 1}, {4, 2, 4, 0},
                                        {4, 2, 2, 0}, {4, 2, 1, 0}, {4, 4, 2, 0}};
  for (size_t k = 0; k < sizeof ok_cfg / sizeof *ok_cfg; ++k) {
    tp_build_two_phase(&b, ok_cfg[k][0], ok_cfg[k][1], ok_cfg[k][2], (int)ok_cfg[k][3]);
    collrt_plan_t *p = tp_finish(&b);
    CHECK(p != NULL, "two-phase %zu encodes", k);
    if (p)
      EXPECT(sim(p, (int)(ok_cfg[k][0] * ok_cfg[k][1]), c, &d), COLLRT_OK, &d, NULL);
    collrt_plan_free(p);
  }
  /* gathered steps and joins in the expansion: phase-2 sends of the
   * combining schedule carry X segments and wait on X arrivals */
  tp_build_two_phase(&b, 4, 2, 4, 1);
  collrt_plan_t *p = tp_finish(&b);
  int64_t arr[4 * 8];
  uniform_input(&in_v2, arr, 8, 3, 5);
  collrt_steps_t s;
  EXPECT(collrt_expand(p, &in_v2, &s, &d), COLLRT_OK, &d, NULL);
  int joins = 0;
  for (size_t i = 0; i < s.count; ++i)
    if (s.steps[i].kind == COLLRT_STEP_SEND && s.steps[i].fifo == 1)
      joins += s.steps[i].ndeps == 4 && s.steps[i].nsrc == 4 && s.steps[i].len == 20;
  CHECK(joins == 2, "phase-2 sends: %d with 4 segments and 4 dependencies, want 2", joins);
  collrt_steps_free(&s);
  collrt_plan_free(p);
  /* adjacent pieces of one transfer merge into one segment; a gap, or the
   * next piece in another buffer, starts a new one */
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  unsigned mph = tp_phase(&b, 0);
  unsigned msd = tp_stmt(&b, COLLRT_STMT_SEND, 0, 0, COLLRT_GATHER_SRC,
                         (const char *const[8]){"r 1 + P %", NULL, NULL, "0"});
  tp_seg(&b, COLLRT_SIDE_SRC, COLLRT_BUF_SEND, "0", "4");
  tp_seg(&b, COLLRT_SIDE_SRC, COLLRT_BUF_SEND, "4", "4");
  tp_seg(&b, COLLRT_SIDE_SRC, COLLRT_BUF_SEND, "12", "4");
  tp_seg(&b, COLLRT_SIDE_SRC, COLLRT_BUF_RECV, "16", "4");
  tp_end(&b, msd);
  tp_end(&b, mph);
  p = tp_finish(&b);
  int64_t marr[4 * 4];
  collrt_expand_input_t min;
  uniform_input(&min, marr, 4, 0, 20);
  EXPECT(collrt_expand(p, &min, &s, &d), COLLRT_OK, &d, NULL);
  CHECK(s.count == 1 && s.steps[0].nsrc == 3 && s.steps[0].len == 16 && s.nsegs == 3,
        "merged segments: %zu steps, %u segments, %d bytes", s.count,
        s.count ? s.steps[0].nsrc : 0, s.count ? s.steps[0].len : 0);
  if (s.nsegs == 3)
    CHECK(s.segs[0].off == 0 && s.segs[0].len == 8 && s.segs[1].off == 12 && s.segs[1].len == 4 &&
              s.segs[2].buf == COLLRT_BUF_RECV && s.segs[2].off == 16,
          "merged segments: (%lld, %d) (%lld, %d) (buf %u, %lld)", (long long)s.segs[0].off,
          s.segs[0].len, (long long)s.segs[1].off, s.segs[1].len, s.segs[2].buf,
          (long long)s.segs[2].off);
  collrt_steps_free(&s);
  collrt_plan_free(p);
  /* a forward wait: the credit receive depends on later steps */
  tp_build_two_phase(&b, 4, 2, 1, 0);
  p = tp_finish(&b);
  EXPECT(collrt_expand(p, &in_v2, &s, &d), COLLRT_OK, &d, NULL);
  int forward = 0;
  for (size_t i = 0; i < s.count; ++i)
    for (uint32_t k = 0; k < s.steps[i].ndeps; ++k)
      forward += s.deps[s.steps[i].dep_begin + k] > i;
  CHECK(forward >= 3 * 2, "credit receives wait on later sends: %d forward dependencies", forward);
  collrt_steps_free(&s);
  /* ... and a credit loop that waits on its own stage deadlocks */
  for (unsigned i = 0; i < b.desc.nstmts; ++i)
    if (b.stmts[i].wait_event == 2)
      b.stmts[i].expr[COLLRT_E_WAIT_I] = tp_expr(&b, "v0");
  collrt_plan_free(p);
  p = tp_finish(&b);
  EXPECT(sim(p, 8, c, &d), COLLRT_ERR_DEADLOCK, &d, "no transfer can progress");
  collrt_plan_free(p);
  /* a join that can never complete: an event nobody signals */
  tp_build_two_phase(&b, 4, 2, 2, 1);
  p = tp_finish(&b);
  EXPECT(sim(p, 8, c, &d), COLLRT_ERR_BOUNDS, &d, "waits on event 1(0, 0), which no transfer signals");
  collrt_plan_free(p);
  /* a transfer joined on itself */
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 4);
  b.desc.nevents = 1;
  tp_signal(&b, 6, 0, "v0", NULL);
  tp_wait(&b, 6, 0, "v0", NULL);
  p = tp_finish(&b);
  EXPECT(sim(p, 3, c, &d), COLLRT_ERR_DEADLOCK, &d, "no transfer can progress");
  collrt_plan_free(p);
  /* pack race, and its fix */
  p = build_packed(&b, 0, 0, 0);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_BOUNDS, &d,
         "race on scratch buffer bytes [7, 14): stmt[6] COPY (writes) and stmt[7] SEND (reads) touch them with no chain of waits");
  collrt_plan_free(p);
  p = build_packed(&b, 1, 0, 0);
  EXPECT(sim(p, 4, c, &d), COLLRT_OK, &d, NULL);
  collrt_plan_free(p);
  /* write-after-read on a reused slot, and its fix (a credit) */
  p = build_packed(&b, 1, 1, 0);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_BOUNDS, &d, "race on scratch buffer bytes [0, 7)");
  collrt_plan_free(p);
  p = build_packed(&b, 1, 1, 1);
  EXPECT(sim(p, 4, c, &d), COLLRT_OK, &d, NULL);
  collrt_plan_free(p);
  /* a shared random order is the same shift sequence on every rank, so the
   * direct exchange in that order verifies with windowed receives */
  tp_build_direct(&b, COLLRT_OP_ALLTOALL, 2);
  b.fifos[0].recv_depth = 2;
  b.stmts[2].buf0 = COLLRT_ORDER_SHARED_RANDOM;
  b.stmts[2].expr[COLLRT_E_SEED] = tp_expr(&b, "77");
  p = tp_finish(&b);
  int64_t shifts[2][8];
  for (int rank = 0; rank < 2 && p; ++rank) {
    collrt_expand_input_t in;
    uniform_input(&in, arr, 8, rank * 5, 3);
    EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
    int n = 0;
    for (size_t i = 0; i < s.count && n < 8; ++i)
      if (s.steps[i].kind == COLLRT_STEP_SEND)
        shifts[rank][n++] = (s.steps[i].peer - rank * 5 + 8) % 8;
    collrt_steps_free(&s);
  }
  CHECK(p && !memcmp(shifts[0], shifts[1], 7 * sizeof shifts[0][0]) &&
            memcmp(shifts[0], (int64_t[7]){1, 2, 3, 4, 5, 6, 7}, 7 * sizeof shifts[0][0]),
        "ranks 0 and 5 visit the same shuffled shifts");
  EXPECT(sim(p, 8, c, &d), COLLRT_OK, &d, NULL);
  collrt_plan_free(p);
  /* a bounded receive window whose order disagrees with the senders' */
  for (int depth = 0; depth <= 1; ++depth) {
    tp_build_direct(&b, COLLRT_OP_ALLTOALL, 1);
    b.fifos[0].recv_depth = (uint16_t)depth;
    b.stmts[5].expr[COLLRT_E_PEER] = tp_expr(&b, "v1");
    b.stmts[5].expr[COLLRT_E_OFF] = tp_expr(&b, "v1 rdispl");
    b.stmts[5].expr[COLLRT_E_LEN] = tp_expr(&b, "v1 rcount");
    p = tp_finish(&b);
    EXPECT(sim(p, 5, c, &d), depth ? COLLRT_ERR_DEADLOCK : COLLRT_OK, &d,
           depth ? "no transfer can progress" : NULL);
    collrt_plan_free(p);
  }
}

/* Direct alltoallv whose receivers learn their lengths from the bind-time
 * exchange instead of their own count arrays: every rank PUTs to each peer
 * the bytes it will send it (table 0, index 0); receive offsets are prefix
 * sums over the table that reproduce the simulator's layout (reverse rank
 * order, 1-byte gaps), so a wrong TABLE or SUM shows as misplaced bytes. */
static void build_exchange_direct(tp_builder_t *b) {
  tp_init(b, COLLRT_OP_ALLTOALLV, COLLRT_ALG_DIRECT);
  b->desc.ntables = 1;
  unsigned ex = tp_exchange(b);
  unsigned f = tp_for(b, 0, "0", "P");
  tp_put(b, 0, "v0", "0", "v0 scount");
  tp_end(b, f);
  tp_end(b, ex);
  unsigned ph = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "r sdispl", COLLRT_BUF_RECV, "r rdispl", "r scount");
  unsigned g = tp_for(b, 0, "1", "P");
  tp_let(b, 1, "r v0 + P %");
  tp_let(b, 2, "r v0 - P + P %");
  tp_recv(b, COLLRT_BUF_RECV, "v2", "v2 1 + P sum3[ v3 0 table0 1 + ] 1 +", "v2 0 table0", "0");
  tp_send(b, COLLRT_BUF_SEND, "v1", "v1 sdispl", "v1 scount", "0");
  tp_end(b, g);
  tp_end(b, ph);
}

/* Evaluates `src` on rank 0 of 4 with `tables` as the exchange's result. */
static int64_t eval_tables(const char *src, const collrt_tables_t *tables, collrt_status_t *st,
                           char *why, size_t why_len) {
  tp_builder_t b;
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  b.desc.ntables = 2;
  uint16_t ref = tp_expr(&b, src);
  unsigned ph = tp_phase(&b, 0);
  tp_end(&b, ph);
  collrt_plan_t *p = tp_finish(&b);
  *st = COLLRT_ERR_PLAN_INVALID;
  if (!p)
    return 0;
  int64_t zeros[4] = {0}, vars[COLLRT_MAX_VARS] = {0}, out = 0;
  uint64_t budget = 1000;
  collrt_expand_input_t in = {4, 0, zeros, zeros, zeros, zeros, 0, 0, tables};
  collrt_expr_ctx_t ctx = {collrt_plan_desc(p), &in, vars, &budget};
  *st = collrt_expr_eval(&ctx, ref, &out, why, why_len);
  collrt_plan_free(p);
  return out;
}

/* TABLE, TABLE_ANY and TABLE_SUM on hand-made results of the exchange. */
static void test_table_reads(void) {
  /* sorted as collrt_tables_sort leaves them: table, index, sender */
  collrt_table_entry_t e[] = {{2, 5, 1, 0, 0, 0}, {2, 7, 3, 0, 0, 0}, {5, 11, 0, 0, 0, 0},
                              {0, 100, 0, 1, 0, 0}};
  /* sums that leave int64: only a TABLE_SUM across them fails */
  collrt_table_entry_t big[] = {{0, INT64_MAX, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0}, {5, 3, 0, 0, 0, 0},
                                {0, -INT64_MAX, 0, 1, 0, 0}, {1, INT64_MAX / 2 + 1, 0, 1, 0, 0},
                                {2, INT64_MAX / 2 + 1, 0, 1, 0, 0}};
  collrt_diag_t d = {{0}};
  CHECK(collrt_tables_sort(e, 4, 0, &d) == COLLRT_OK && e[0].index == 2 && e[0].from == 1 &&
            e[3].table == 1,
        "entries sort by table, index, sender");
  CHECK(e[0].before == 0 && e[1].before == 5 && e[2].before == 12 && e[3].before == 0,
        "each entry knows the sum of those of its table before it (TABLE_SUM's running sums)");
  CHECK(collrt_tables_sort(big, 6, 0, &d) == COLLRT_OK, "sums past int64 do not fail the bind");
  collrt_tables_t tables = {e, 4}, huge = {big, 6};
  static const struct { const char *src; int64_t want; int big; } ok[] = {
      {"3 2 table0", 7, 0},    {"0 3 tablesum0", 12, 0}, {"0 6 tablesum0", 23, 0},
      {"3 5 tablesum0", 0, 0}, {"5 tableany0", 11, 0},   {"0 1 tablesum1", 100, 0},
      {"6 2 tablesum0", 0, 0}, {"0 9 tablesum1", 100, 0}, {"0 1 tablesum0", INT64_MAX, 1},
      {"1 2 tablesum1", INT64_MAX / 2 + 1, 1},
  };
  static const struct { const char *src; const char *why; int big; } bad[] = {
      {"2 tableany0", "TABLE_ANY 0: ranks 1 and 3 both PUT entry 2 to rank 0; it needs one", 0},
      {"4 tableany0", "TABLE_ANY 0: no rank PUT entry 4 to rank 0", 0},
      {"0 2 tablesum0", "TABLE_SUM 0 over [0, 2) overflows int64", 1},
      {"1 3 tablesum1", "TABLE_SUM 1 over [1, 3) overflows int64", 1},
  };
  char why[200];
  collrt_status_t st;
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; ++k) {
    why[0] = 0;
    int64_t v = eval_tables(ok[k].src, ok[k].big ? &huge : &tables, &st, why, sizeof why);
    CHECK(st == COLLRT_OK && v == ok[k].want, "'%s' = %lld (%s), want %lld", ok[k].src,
          (long long)v, why, (long long)ok[k].want);
  }
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    why[0] = 0;
    eval_tables(bad[k].src, bad[k].big ? &huge : &tables, &st, why, sizeof why);
    CHECK(st == COLLRT_ERR_BOUNDS && strstr(why, bad[k].why), "'%s' fails with '%s' (got '%s')",
          bad[k].src, bad[k].why, why);
  }
}

static void test_exchange(void) {
  static tp_builder_t b;
  collrt_diag_t d = {{0}};
  int64_t c[7 * 7];
  for (int pattern = 0; pattern < 3; ++pattern) {
    fill_counts(c, 7 * 7, pattern);
    build_exchange_direct(&b);
    collrt_plan_t *p = tp_finish(&b);
    CHECK(p && collrt_plan_has_exchange(p), "the exchange plan encodes and has an exchange");
    EXPECT(sim(p, 7, c, &d), COLLRT_OK, &d, NULL);
    collrt_plan_free(p);
  }
  /* the first pass alone: what rank 2 tells each peer, in program order */
  build_exchange_direct(&b);
  collrt_plan_t *p = tp_finish(&b);
  int64_t arr[4 * 5];
  collrt_expand_input_t in;
  uniform_input(&in, arr, 5, 2, 9);
  collrt_put_t *puts = NULL;
  size_t n = 0;
  EXPECT(collrt_exchange_puts(p, &in, &puts, &n, &d), COLLRT_OK, &d, NULL);
  CHECK(n == 5 && puts[4].peer == 4 && puts[4].value == 9 && puts[4].index == 0 && puts[4].table == 0,
        "rank 2 PUTs 5 records, the last (peer 4, 0, 9)");
  free(puts);
  /* expanding without the exchange's result names the missing entry */
  EXPECT(collrt_expand(p, &in, &(collrt_steps_t){0}, &d), COLLRT_ERR_BOUNDS, &d,
         "PUT no entry 0 to rank 2");
  collrt_plan_free(p);
  /* a rank that PUTs one entry twice */
  build_exchange_direct(&b);
  b.stmts[2].expr[COLLRT_E_PUT_INDEX] = tp_expr(&b, "v0 2 / 0 *");
  b.stmts[2].expr[COLLRT_E_PEER] = tp_expr(&b, "v0 2 /");
  p = tp_finish(&b);
  fill_counts(c, 4 * 4, 1);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_COUNTS, &d, "PUT entry 0 of table 0 to rank 0 twice");
  collrt_plan_free(p);
  /* a PUT to a rank outside the communicator */
  build_exchange_direct(&b);
  b.stmts[2].expr[COLLRT_E_PEER] = tp_expr(&b, "v0 1 +");
  p = tp_finish(&b);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_BOUNDS, &d, "PUT on rank 0: peer 4 is outside [0, 4)");
  collrt_plan_free(p);
  /* validation: where EXCHANGE, PUT, TABLE and SUM may stand */
#define MUTATE_EX(code, needle)                                                  do {                                                                             build_exchange_direct(&b);                                                     code;                                                                          EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, needle);                 } while (0)
  /* stmt 0 = EXCHANGE, 1 = FOR, 2 = PUT, 3 = PHASE, 4 = COPY, 5 = FOR, 8 = RECV */
  MUTATE_EX(b.stmts[2].expr[COLLRT_E_PUT_VALUE] = tp_expr(&b, "v0 0 table0"),
            "reads TABLE inside an EXCHANGE");
  MUTATE_EX(b.stmts[8].expr[COLLRT_E_LEN] = tp_expr(&b, "v2 0 table1"),
            "TABLE 1 at offset");
  MUTATE_EX(b.stmts[2].slot = 1, "'stmt[2].table' is 1 but the plan declares 1 tables");
  MUTATE_EX(b.stmts[8].kind = COLLRT_STMT_PUT; b.stmts[8].buf0 = 0;
            b.stmts[8].expr[COLLRT_E_TAG] = COLLRT_EXPR_NONE, "PUT outside an EXCHANGE");
  MUTATE_EX(b.stmts[2].kind = COLLRT_STMT_SEND; b.stmts[2].slot = 0;
            b.stmts[2].expr[COLLRT_E_TAG] = tp_expr(&b, "0"), "inside an EXCHANGE, which holds only");
  MUTATE_EX(b.stmts[8].expr[COLLRT_E_LEN] = tp_expr(&b, "0 3 sum4[ v4 1 ]"),
            "SUM summand ending at offset");
  MUTATE_EX(b.stmts[8].expr[COLLRT_E_LEN] = tp_expr(&b, "0 3 sum4[ v3 ]"),
            "variable 3 is used");
  MUTATE_EX(b.stmts[8].expr[COLLRT_E_LEN] = tp_expr(&b, "0 3 sum4[ 1 ] v4 +"),
            "variable 4 is used");
  MUTATE_EX(b.stmts[8].expr[COLLRT_E_LEN] =
                tp_expr(&b, "0 1 sum4[ 0 1 sum5[ 0 1 sum6[ 0 1 sum7[ 0 1 sum4[ 1 ] ] ] ] ]"),
            "nests deeper than 4");
#undef MUTATE_EX
  /* an EXCHANGE after the first PHASE */
  build_exchange_direct(&b);
  {
    tp_builder_t *q = &b;
    unsigned ex = tp_exchange(q);
    tp_put(q, 0, "0", "1", "1");
    tp_end(q, ex);
    EXPECT(encode(q, &d), COLLRT_ERR_PLAN_INVALID, &d, "EXCHANGE after the PHASE or phase loop stmt[3]");
  }
}

/* The `auto` idle policy: block under SMPI, yield when the node's ranks
 * outnumber its CPUs, spin otherwise; explicit settings are taken as is. */
static void test_wait_policy(void) {
  collrt_diag_t d = {{0}};
  collrt_wait_policy_t p;
  static const struct {
    const char *setting;
    int node_ranks, cpus, smpi;
    collrt_wait_policy_t want;
  } cases[] = {
      {NULL, 2, 2, 0, COLLRT_WAIT_SPIN},   {"auto", 1, 2, 0, COLLRT_WAIT_SPIN},
      {"", 8, 2, 0, COLLRT_WAIT_YIELD},    {NULL, 3, 2, 0, COLLRT_WAIT_YIELD},
      {NULL, 8, 2, 1, COLLRT_WAIT_BLOCK},  {NULL, 1, 64, 1, COLLRT_WAIT_BLOCK},
      {NULL, 4, 0, 0, COLLRT_WAIT_SPIN},   {"spin", 8, 2, 1, COLLRT_WAIT_SPIN},
      {"yield", 1, 2, 0, COLLRT_WAIT_YIELD}, {"block", 1, 2, 0, COLLRT_WAIT_BLOCK},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
    p = COLLRT_WAIT_AUTO;
    EXPECT(collrt_choose_wait_policy(cases[k].setting, cases[k].node_ranks, cases[k].cpus,
                                     cases[k].smpi, &p, &d),
           COLLRT_OK, &d, NULL);
    CHECK(p == cases[k].want, "case %zu: got %s, want %s", k, collrt_wait_policy_name(p),
          collrt_wait_policy_name(cases[k].want));
  }
  EXPECT(collrt_choose_wait_policy("Spin", 1, 2, 0, &p, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_WAIT='Spin' is not an idle policy; use auto, spin, yield or block");
}

/* collrt_plan_load_file refuses what is not a regular file before reading
 * (a FIFO with no writer would block a reader forever; /dev/zero never
 * ends) and a file larger than a plan can be, saying which. alarm(): a
 * loader that blocks fails the test instead of hanging it. */
static void test_load_file_kinds(void) {
  char dir[] = "/tmp/collrt-load-XXXXXX", path[64];
  collrt_diag_t d = {{0}};
  collrt_plan_t *p = NULL;
  if (!mkdtemp(dir)) {
    CHECK(0, "mkdtemp");
    return;
  }
  alarm(20);
  snprintf(path, sizeof path, "%s/x.plan", dir);
  CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
  EXPECT(collrt_plan_load_file(path, &p, &d), COLLRT_ERR_IO, &d, "x.plan' is a FIFO, not a regular file");
  unlink(path);
  EXPECT(collrt_plan_load_file(dir, &p, &d), COLLRT_ERR_IO, &d, "is a directory, not a regular file");
  EXPECT(collrt_plan_load_file("/dev/zero", &p, &d), COLLRT_ERR_IO, &d,
         "plan file '/dev/zero' is a character device, not a regular file");
  snprintf(path, sizeof path, "%s/big.plan", dir);
  FILE *f = fopen(path, "wb");
  CHECK(f && ftruncate(fileno(f), 3 << 20) == 0, "a 3 MiB file");
  if (f)
    fclose(f);
  EXPECT(collrt_plan_load_file(path, &p, &d), COLLRT_ERR_PLAN_FORMAT, &d,
         "big.plan' is 3145728 bytes, larger than a plan can be (1048576 bytes)");
  unlink(path);
  alarm(0);
  CHECK(p == NULL, "nothing loaded");
  rmdir(dir);
}

/* Every status prints its name and meaning; a value that is not a status
 * (an uninitialised one) prints its number, never a bare "unknown". */
static void test_status_names(void) {
  for (int st = COLLRT_OK; st >= COLLRT_ERR_TIMEOUT; --st) {
    const char *name = collrt_status_name((collrt_status_t)st);
    const char *text = collrt_strerror((collrt_status_t)st);
    CHECK(!strncmp(name, "COLLRT_", 7), "status %d has the name '%s'", st, name);
    CHECK(!strstr(text, "unknown"), "status %d reads '%s'", st, text);
  }
  CHECK(!strcmp(collrt_status_name(COLLRT_ERR_COUNTS), "COLLRT_ERR_COUNTS"), "COUNTS name");
  CHECK(!strcmp(collrt_status_name(COLLRT_ERR_TIMEOUT), "COLLRT_ERR_TIMEOUT"), "TIMEOUT name");
  CHECK(!strcmp(collrt_strerror(COLLRT_ERR_TIMEOUT), "no progress within COLLRT_TIMEOUT"),
        "TIMEOUT text: %s", collrt_strerror(COLLRT_ERR_TIMEOUT));
  CHECK(!strcmp(collrt_strerror((collrt_status_t)-42), "unknown status -42 (not a collrt status)"),
        "-42 reads '%s'", collrt_strerror((collrt_status_t)-42));
  CHECK(!strcmp(collrt_status_name((collrt_status_t)22043), "status 22043 (not a collrt status)"),
        "22043 reads '%s'", collrt_status_name((collrt_status_t)22043));
}

/* Each kind of variable: unset keeps the caller's default, a good value is
 * read, a bad one is an error naming the variable, the value and what is
 * accepted; check_all finds any bad one of the table. */
static void test_env(void) {
  collrt_diag_t d = {{0}};
  long long i = 7;
  int b = 5;
  double x = 2.5;
  const char *path = NULL;
  for (size_t k = 0; k < collrt_env_nvars; ++k)
    unsetenv(collrt_env_vars[k].name);
  EXPECT(collrt_env_check_all(&d), COLLRT_OK, &d, NULL);
  EXPECT(collrt_env_int("COLLRT_STEP_BUDGET", &i, &d), COLLRT_OK, &d, NULL);
  CHECK(i == 7, "unset keeps the default, got %lld", i);
  setenv("COLLRT_STEP_BUDGET", "", 1);
  EXPECT(collrt_env_int("COLLRT_STEP_BUDGET", &i, &d), COLLRT_OK, &d, NULL);
  CHECK(i == 7, "empty keeps the default, got %lld", i);
  setenv("COLLRT_STEP_BUDGET", "1000", 1);
  EXPECT(collrt_env_int("COLLRT_STEP_BUDGET", &i, &d), COLLRT_OK, &d, NULL);
  CHECK(i == 1000, "read 1000, got %lld", i);
  static const char *const bad_budgets[] = {"-1", "0", "1e6", " 5", "5x", "0x10", "99999999999999999999"};
  for (size_t k = 0; k < sizeof bad_budgets / sizeof *bad_budgets; ++k) {
    setenv("COLLRT_STEP_BUDGET", bad_budgets[k], 1);
    char want[96];
    snprintf(want, sizeof want, "COLLRT_STEP_BUDGET='%s' is not a positive integer", bad_budgets[k]);
    EXPECT(collrt_env_int("COLLRT_STEP_BUDGET", &i, &d), COLLRT_ERR_ARG, &d, want);
    EXPECT(collrt_env_check_all(&d), COLLRT_ERR_ARG, &d, want);
  }
  CHECK(i == 1000, "a bad value leaves the output alone, got %lld", i);
  /* expansion refuses a bad budget (bind returns expansion's error) */
  {
    tp_builder_t tb;
    collrt_steps_t s;
    int64_t arr[4 * 16];
    collrt_expand_input_t in;
    tp_build_direct(&tb, COLLRT_OP_ALLTOALL, 8);
    collrt_plan_t *p = tp_finish(&tb);
    uniform_input(&in, arr, 4, 1, 10);
    setenv("COLLRT_STEP_BUDGET", "-1", 1);
    EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_ARG, &d,
           "COLLRT_STEP_BUDGET='-1' is not a positive integer");
    setenv("COLLRT_STEP_BUDGET", "3", 1);
    EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_ERR_BOUNDS, &d, NULL);
    unsetenv("COLLRT_STEP_BUDGET");
    EXPECT(collrt_expand(p, &in, &s, &d), COLLRT_OK, &d, NULL);
    collrt_steps_free(&s);
    collrt_plan_free(p);
  }
  unsetenv("COLLRT_STEP_BUDGET");
  /* non-negative: 0 is fine, -1 is not */
  setenv("COLLRT_SHM_MIN", "0", 1);
  EXPECT(collrt_env_int("COLLRT_SHM_MIN", &i, &d), COLLRT_OK, &d, NULL);
  CHECK(i == 0, "COLLRT_SHM_MIN=0, got %lld", i);
  setenv("COLLRT_SHM_MIN", "x", 1);
  EXPECT(collrt_env_int("COLLRT_SHM_MIN", &i, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_SHM_MIN='x' is not a non-negative integer");
  unsetenv("COLLRT_SHM_MIN");
  /* an upper bound */
  setenv("COLLRT_NODE_SIZE", "2000000", 1);
  EXPECT(collrt_env_int("COLLRT_NODE_SIZE", &i, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_NODE_SIZE='2000000' is not a positive integer up to 1048576");
  unsetenv("COLLRT_NODE_SIZE");
  setenv("COLLC_VERBOSE", "-1", 1);
  EXPECT(collrt_env_check_all(&d), COLLRT_ERR_ARG, &d,
         "COLLC_VERBOSE='-1' is not a non-negative integer up to 2");
  unsetenv("COLLC_VERBOSE");
  /* booleans */
  setenv("COLLRT_SHM", "abc", 1);
  EXPECT(collrt_env_bool("COLLRT_SHM", &b, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_SHM='abc' is not 0 or 1");
  CHECK(b == 5, "a bad value leaves the output alone, got %d", b);
  setenv("COLLRT_SHM", "off", 1);
  EXPECT(collrt_env_bool("COLLRT_SHM", &b, &d), COLLRT_OK, &d, NULL);
  CHECK(b == 0, "off is 0, got %d", b);
  setenv("COLLRT_SHM", "1", 1);
  EXPECT(collrt_env_bool("COLLRT_SHM", &b, &d), COLLRT_OK, &d, NULL);
  CHECK(b == 1, "1 is 1, got %d", b);
  unsetenv("COLLRT_SHM");
  /* enums name their values */
  setenv("COLLRT_WAIT", "Spin", 1);
  EXPECT(collrt_env_check_all(&d), COLLRT_ERR_ARG, &d,
         "COLLRT_WAIT='Spin' is not auto, spin, yield or block");
  setenv("COLLRT_WAIT", "yield", 1);
  EXPECT(collrt_env_enum("COLLRT_WAIT", &b, &d), COLLRT_OK, &d, NULL);
  CHECK(b == 2, "yield is index 2, got %d", b);
  unsetenv("COLLRT_WAIT");
  setenv("COLLRT_SHM_COPY", "pull", 1);
  EXPECT(collrt_env_enum("COLLRT_SHM_COPY", &b, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_SHM_COPY='pull' is not auto or push");
  unsetenv("COLLRT_SHM_COPY");
  /* seconds and numbers */
  setenv("COLLRT_TIMEOUT", "0.5", 1);
  EXPECT(collrt_env_double("COLLRT_TIMEOUT", &x, &d), COLLRT_OK, &d, NULL);
  CHECK(x == 0.5, "0.5 s, got %g", x);
  static const char *const bad_seconds[] = {"0", "-3", "inf", "nan", "5s"};
  for (size_t k = 0; k < sizeof bad_seconds / sizeof *bad_seconds; ++k) {
    setenv("COLLC_TIMEOUT", bad_seconds[k], 1);
    char want[96];
    snprintf(want, sizeof want, "COLLC_TIMEOUT='%s' is not a positive number of seconds", bad_seconds[k]);
    EXPECT(collrt_env_double("COLLC_TIMEOUT", &x, &d), COLLRT_ERR_ARG, &d, want);
  }
  unsetenv("COLLC_TIMEOUT");
  unsetenv("COLLRT_TIMEOUT");
  setenv("COLLRT_SMPI_OR_US", "0", 1);
  EXPECT(collrt_env_double("COLLRT_SMPI_OR_US", &x, &d), COLLRT_OK, &d, NULL);
  unsetenv("COLLRT_SMPI_OR_US");
  /* the fault knob and paths */
  setenv("COLLRT_SHM_FAULT", "map:3", 1);
  EXPECT(collrt_env_fault("COLLRT_SHM_FAULT", &i, &d), COLLRT_OK, &d, NULL);
  CHECK(i == 3, "map:3, got %lld", i);
  setenv("COLLRT_SHM_FAULT", "map", 1);
  EXPECT(collrt_env_fault("COLLRT_SHM_FAULT", &i, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_SHM_FAULT='map' is not map:R");
  unsetenv("COLLRT_SHM_FAULT");
  setenv("COLLC_PLANS", "/some/dir", 1);
  EXPECT(collrt_env_path("COLLC_PLANS", &path, &d), COLLRT_OK, &d, NULL);
  CHECK(path && !strcmp(path, "/some/dir"), "COLLC_PLANS read");
  unsetenv("COLLC_PLANS");
  /* a name outside the table, or read as another kind, is a programming error */
  EXPECT(collrt_env_int("COLLRT_NO_SUCH", &i, &d), COLLRT_ERR_ARG, &d,
         "COLLRT_NO_SUCH is not a collrt environment variable");
  EXPECT(collrt_env_bool("COLLRT_STEP_BUDGET", &b, &d), COLLRT_ERR_ARG, &d,
         "not a collrt environment variable of this kind");
  /* every row is complete */
  for (size_t k = 0; k < collrt_env_nvars; ++k) {
    const collrt_env_var_t *v = &collrt_env_vars[k];
    CHECK(v->def && *v->def && v->meaning && *v->meaning && v->reader && *v->reader,
          "%s: default, reader and meaning", v->name);
    CHECK((v->kind == COLLRT_ENV_ENUM) == (v->accepted != NULL), "%s: accepted values", v->name);
    CHECK(collrt_env_find(v->name) == v, "%s: listed once", v->name);
  }
  EXPECT(collrt_env_check_all(&d), COLLRT_OK, &d, NULL);
}

/* collrt_copy moves exactly memmove's bytes at every distance modulo 4 KiB
 * (the aliased ones take the vector path), length around its threshold and
 * overlap (which must keep memmove's meaning), and touches nothing else. */
static void test_copy(void) {
  enum { SPAN = 3 * 65536 };
  uint8_t *src = malloc(SPAN), *got = malloc(SPAN), *want = malloc(SPAN);
  static const size_t lengths[] = {0, 1, 63, 64, 65, 2047, 2048, 2049, 4096, 65536 + 13};
  static const size_t distances[] = {0, 1, 16, 63, 64, 100, 4096 + 16};
  for (size_t i = 0; i < SPAN; ++i)
    src[i] = (uint8_t)(i * 131 + 7);
  for (size_t li = 0; li < sizeof lengths / sizeof *lengths; ++li)
    for (size_t di = 0; di < sizeof distances / sizeof *distances; ++di)
      for (int overlap = 0; overlap < 2; ++overlap) {
        size_t n = lengths[li], from = 64, to = overlap ? from + distances[di]
                                                         : SPAN / 2 + distances[di];
        if (to + n > SPAN)
          continue;
        /* both copies in one buffer holding src's bytes, as memmove sees them */
        memcpy(got, src, SPAN);
        memcpy(want, src, SPAN);
        collrt_copy(got + to, got + from, n);
        memmove(want + to, want + from, n);
        CHECK(!memcmp(got, want, SPAN), "length %zu, distance %zu, %s", n, distances[di],
              overlap ? "overlapping" : "disjoint");
      }
  free(src);
  free(got);
  free(want);
}


/* An alltoall of the ranks of one node through the node arena: every rank
 * copies its send buffer into its row, NOTIFYs counter 0, AWAITs it and
 * copies its column out. `mode`: 0 as described; 1 the copies out do not
 * wait for the AWAIT (a race on the arena); 2 the ranks size the arena
 * differently; 3 the NOTIFY waits for the AWAIT (a deadlock); 4 the AWAIT
 * names a counter the arena does not have. */
static collrt_plan_t *build_arena_alltoall(tp_builder_t *b, int rpn, int mode) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  b->desc.ranks_per_node = (uint32_t)rpn;
  b->desc.nevents = 2;
  const char *arena[8] = {mode == 2 ? "r 1 + P * P * r rcount *" : "P P * r rcount *", "1"};
  tp_stmt(b, COLLRT_STMT_ARENA, 0, 0, 0, arena);
  unsigned ph = tp_phase(b, 0);
  unsigned in = tp_copy(b, COLLRT_BUF_SEND, "0", COLLRT_BUF_ARENA, "r P * r rcount *", "P r rcount *");
  tp_signal(b, in, 0, "0", NULL);
  const char *counter[8] = {"0"};
  unsigned notify = tp_stmt(b, COLLRT_STMT_NOTIFY, 0, 0, 0, counter);
  tp_wait(b, notify, mode == 3 ? 1 : 0, "0", NULL);
  const char *awaited[8] = {mode == 4 ? "1" : "0"};
  unsigned await = tp_stmt(b, COLLRT_STMT_AWAIT, 0, 0, 0, awaited);
  tp_signal(b, await, 1, "0", NULL);
  unsigned f = tp_for(b, 0, "0", "P");
  unsigned out = tp_copy(b, COLLRT_BUF_ARENA, "v0 P * r + r rcount *", COLLRT_BUF_RECV,
                         "v0 r rcount *", "r rcount");
  if (mode != 1)
    tp_wait(b, out, 1, "0", NULL);
  tp_end(b, f);
  tp_end(b, ph);
  return tp_finish(b);
}

static void test_arena(void) {
  collrt_diag_t d;
  tp_builder_t b;
  int64_t c[64];
  for (int k = 0; k < 64; ++k)
    c[k] = 6;
  /* the node's ranks exchange through the arena; every byte checked */
  for (int P = 1; P <= 4; ++P) {
    collrt_plan_t *p = build_arena_alltoall(&b, P, 0);
    CHECK(p != NULL, "arena plan does not encode");
    EXPECT(sim(p, P, c, &d), COLLRT_OK, &d, NULL);
    collrt_plan_free(p);
  }
  /* two nodes of 2: each node's arena is its own (a node-local exchange is
   * then not an alltoall, so the simulator's result check must fail) */
  collrt_plan_t *p = build_arena_alltoall(&b, 2, 0);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_BOUNDS, &d, "receive buffer at offset");
  collrt_plan_free(p);
  p = build_arena_alltoall(&b, 4, 1);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_BOUNDS, &d, "race on arena bytes");
  collrt_plan_free(p);
  p = build_arena_alltoall(&b, 4, 2);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_COUNTS, &d, "disagree on its ARENA");
  collrt_plan_free(p);
  p = build_arena_alltoall(&b, 4, 3);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_DEADLOCK, &d, "not issued");
  collrt_plan_free(p);
  p = build_arena_alltoall(&b, 4, 4);
  EXPECT(sim(p, 4, c, &d), COLLRT_ERR_BOUNDS, &d, "counter 1 is outside the arena's 1 counters");
  collrt_plan_free(p);

  /* validation: where ARENA, NOTIFY and AWAIT may stand */
  const char *counter[8] = {"0"}, *two[8] = {"8", "1"};
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  unsigned ph = tp_phase(&b, 0);
  tp_stmt(&b, COLLRT_STMT_NOTIFY, 0, 0, 0, counter);
  tp_end(&b, ph);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, "uses the node arena (NOTIFY) but the plan has no ARENA");
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  ph = tp_phase(&b, 0);
  tp_copy(&b, COLLRT_BUF_SEND, "0", COLLRT_BUF_ARENA, "0", "1");
  tp_end(&b, ph);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, "uses the node arena (buffer ARENA)");
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  ph = tp_phase(&b, 0);
  tp_end(&b, ph);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, "ARENA after the PHASE");
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, "a plan has one ARENA");
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  tp_exchange(&b);
  tp_end(&b, b.desc.nstmts - 1);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, "EXCHANGE after the ARENA");
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  ph = tp_phase(&b, 0);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  tp_end(&b, ph);
  EXPECT(encode(&b, &d), COLLRT_ERR_PLAN_INVALID, &d, "ARENA inside another statement");
  tp_init(&b, COLLRT_OP_ALLTOALL, COLLRT_ALG_CUSTOM);
  tp_stmt(&b, COLLRT_STMT_ARENA, 0, 0, 0, two);
  ph = tp_phase(&b, 0);
  tp_copy(&b, COLLRT_BUF_SEND, "0", COLLRT_BUF_ARENA, "0", "r rcount");
  tp_end(&b, ph);
  EXPECT(encode(&b, &d), COLLRT_OK, &d, NULL);
  /* expansion: the arena's bounds and its size's */
  collrt_plan_t *q = NULL;
  b.desc.fifos = b.fifos;
  b.desc.stmts = b.stmts;
  b.desc.exprs = b.exprs;
  EXPECT(collrt_plan_encode(&b.desc, &q, &d), COLLRT_OK, &d, NULL);
  int64_t arr[4 * 2];
  collrt_expand_input_t in;
  collrt_steps_t steps;
  uniform_input(&in, arr, 2, 0, 9);
  EXPECT(collrt_expand(q, &in, &steps, &d), COLLRT_ERR_BOUNDS, &d, "outside the 8-byte arena buffer");
  uniform_input(&in, arr, 2, 0, 8);
  EXPECT(collrt_expand(q, &in, &steps, &d), COLLRT_OK, &d, NULL);
  CHECK(steps.has_arena && steps.arena_bytes == 8 && steps.arena_counters == 1 && steps.count == 1 &&
            collrt_step_uses_arena(&steps, &steps.steps[0]),
        "arena expansion: %d %lld %lld %zu", steps.has_arena, (long long)steps.arena_bytes,
        (long long)steps.arena_counters, steps.count);
  collrt_steps_free(&steps);
  collrt_plan_free(q);
}

/* REDUCE: the kernels against serial references, the table's rules, and a
 * plan that reduces, encoded, decoded and expanded. */
static void test_reduce(void) {
  /* integers wrap, in the destination's place, element by element */
  int a[4] = {1, INT_MAX, -5, 7}, b[4] = {2, 1, -5, -7};
  collrt_reduce_apply(COLLRT_ROP_SUM, COLLRT_RTYPE_INT, a, b, 4);
  CHECK(a[0] == 3 && a[1] == INT_MIN && a[2] == -10 && a[3] == 0, "int sum wraps: %d %d %d %d", a[0], a[1], a[2], a[3]);
  /* floats: dst = dst + src, not reassociated: (1e16 + 1) + 1 != 1e16 + 2 */
  double x = 1e16, one = 1.0;
  collrt_reduce_apply(COLLRT_ROP_SUM, COLLRT_RTYPE_DOUBLE, &x, &one, 1);
  collrt_reduce_apply(COLLRT_ROP_SUM, COLLRT_RTYPE_DOUBLE, &x, &one, 1);
  CHECK(x == (1e16 + 1.0) + 1.0 && x != 1e16 + 2.0, "double sum in the plan's order: %.1f", x);
  /* unaligned regions */
  unsigned char raw[1 + 2 * sizeof(double)];
  double u = 1.5, v = 2.25, w;
  memcpy(raw + 1, &u, sizeof u);
  memcpy(raw + 1 + sizeof u, &v, sizeof v);
  collrt_reduce_apply(COLLRT_ROP_PROD, COLLRT_RTYPE_DOUBLE, raw + 1, raw + 1 + sizeof u, 1);
  memcpy(&w, raw + 1, sizeof w);
  CHECK(w == 1.5 * 2.25, "unaligned double prod: %g", w);
  /* MIN and MAX keep the destination on a tie; MINLOC takes the smaller
   * index on equal values */
  collrt_2int_t p[3] = {{5, 3}, {5, 3}, {1, 9}}, q[3] = {{5, 1}, {4, 8}, {2, 0}};
  collrt_reduce_apply(COLLRT_ROP_MINLOC, COLLRT_RTYPE_2INT, p, q, 3);
  CHECK(p[0].i == 1 && p[1].v == 4 && p[1].i == 8 && p[2].v == 1 && p[2].i == 9, "minloc");
  collrt_double_int_t m = {2.0, 4}, n = {2.0, 2};
  collrt_reduce_apply(COLLRT_ROP_MAXLOC, COLLRT_RTYPE_DOUBLE_INT, &m, &n, 1);
  CHECK(m.v == 2.0 && m.i == 2, "maxloc tie: the smaller index");
  unsigned char c[3] = {0xF0, 0, 3}, e[3] = {0x3C, 5, 0};
  collrt_reduce_apply(COLLRT_ROP_BXOR, COLLRT_RTYPE_UCHAR, c, e, 1);
  collrt_reduce_apply(COLLRT_ROP_LXOR, COLLRT_RTYPE_UCHAR, c + 1, e + 1, 2);
  CHECK(c[0] == 0xCC && c[1] == 1 && c[2] == 1, "bxor, lxor: %x %u %u", c[0], c[1], c[2]);
  long long big = 3, neg = -4;
  collrt_reduce_apply(COLLRT_ROP_MAX, COLLRT_RTYPE_LONG_LONG, &big, &neg, 1);
  collrt_reduce_apply(COLLRT_ROP_MIN, COLLRT_RTYPE_LONG_LONG, &neg, &big, 1);
  CHECK(big == 3 && neg == -4, "max, min");
  /* the table: every op on every type of its classes, nothing else */
  int valid = 0;
  for (unsigned op = 0; op < 16; ++op)
    for (unsigned t = 0; t < 32; ++t)
      valid += collrt_reduce_valid(op, t, NULL, 0);
  CHECK(valid == 4 * 21 + 6 * 18 + 2 * 6, "%d valid (op, type) pairs", valid);
  CHECK(collrt_reduce_type_size(COLLRT_RTYPE_DOUBLE_INT) == sizeof(collrt_double_int_t) &&
            collrt_reduce_type_size(COLLRT_RTYPE_SHORT) == sizeof(short) && !collrt_reduce_type_size(0),
        "element sizes");
  CHECK(collrt_reduce_op_from_name("bxor") == COLLRT_ROP_BXOR &&
            collrt_reduce_type_from_name("2int") == COLLRT_RTYPE_2INT &&
            !strcmp(collrt_reduce_type_name(COLLRT_RTYPE_LONG_DOUBLE_INT), "long_double_int") &&
            !collrt_reduce_op_from_name("avg"),
        "names");
  /* a plan: copy the send buffer, then reduce it into itself from a
   * scratch copy (as a schedule combines a received slot) */
  tp_builder_t bl;
  collrt_diag_t d;
  tp_init(&bl, COLLRT_OP_ALLREDUCE, COLLRT_ALG_CUSTOM);
  bl.desc.nevents = 1;
  bl.desc.scratch_expr = tp_expr(&bl, "0 rcount");
  unsigned ph = tp_phase(&bl, 0);
  unsigned k0 = tp_copy(&bl, COLLRT_BUF_SEND, "0", COLLRT_BUF_RECV, "0", "0 rcount");
  unsigned k1 = tp_copy(&bl, COLLRT_BUF_SEND, "0", COLLRT_BUF_SCRATCH, "0", "0 rcount");
  unsigned k2 = tp_copy(&bl, COLLRT_BUF_SCRATCH, "0", COLLRT_BUF_RECV, "0", "0 rcount");
  tp_end(&bl, ph);
  bl.stmts[k0].signal_event = 1;
  bl.stmts[k0].expr[COLLRT_E_SIGNAL_I] = tp_expr(&bl, "0");
  bl.stmts[k1].signal_event = 1;
  bl.stmts[k1].expr[COLLRT_E_SIGNAL_I] = tp_expr(&bl, "0");
  bl.stmts[k2].kind = COLLRT_STMT_REDUCE;
  bl.stmts[k2].rop = COLLRT_ROP_SUM;
  bl.stmts[k2].rtype = COLLRT_RTYPE_INT;
  bl.stmts[k2].wait_event = 1;
  bl.stmts[k2].expr[COLLRT_E_WAIT_I] = tp_expr(&bl, "0");
  collrt_plan_t *plan = tp_finish(&bl);
  CHECK(plan != NULL, "a REDUCE plan encodes");
  if (!plan)
    return;
  const collrt_stmt_t *rs = &collrt_plan_desc(plan)->stmts[k2];
  CHECK(rs->kind == COLLRT_STMT_REDUCE && rs->rop == COLLRT_ROP_SUM && rs->rtype == COLLRT_RTYPE_INT,
        "REDUCE decodes with its op and type");
  int64_t cnt[1] = {8}, zero[1] = {0};
  collrt_expand_input_t in = {1, 0, cnt, zero, cnt, zero, 8, 8, NULL};
  collrt_steps_t ss;
  EXPECT(collrt_expand(plan, &in, &ss, &d), COLLRT_OK, &d, NULL);
  CHECK(ss.count == 3 && ss.steps[2].kind == COLLRT_STEP_REDUCE && ss.steps[2].rop == COLLRT_ROP_SUM &&
            ss.steps[2].rtype == COLLRT_RTYPE_INT && ss.steps[2].ndeps == 2,
        "expanded: a REDUCE step waiting on both copies");
  collrt_steps_free(&ss);
  int64_t odd[1] = {6};
  collrt_expand_input_t bad = {1, 0, odd, zero, odd, zero, 6, 6, NULL};
  EXPECT(collrt_expand(plan, &bad, &ss, &d), COLLRT_ERR_BOUNDS, &d,
         "stmt[3] REDUCE on rank 0: length 6 is not a whole number of int elements (4 bytes each)");
  /* simulated: rank 0's own contribution combined twice (its send buffer
   * reaches the receive buffer and the scratch slot) */
  collrt_sim_input_t si = {1, cnt};
  collrt_sim_result_t res;
  EXPECT(collrt_simulate(plan, &si, &res, &d), COLLRT_ERR_BOUNDS, &d,
         "rank 0's stmt[3] REDUCE combines the contribution of rank 0 twice into its receive buffer element 0 (byte 0)");
  collrt_plan_free(plan);
}

/* The suites, one CTest test each (runtime/test/CMakeLists.txt registers
 * the names `collrt_test_core --list` prints, so a failure names its suite).
 *   collrt_test_core            every suite
 *   collrt_test_core SUITE      one suite
 *   collrt_test_core --list     the suites' names */
static const struct {
  const char *name;
  void (*run)(void);
} kSuites[] = {
    {"copy", test_copy},
    {"reduce", test_reduce},
    {"round-trip", test_round_trip},
    {"validation", test_validation},
    {"expressions", test_expressions},
    {"expand", test_expand},
    {"phase-loop", test_phase_loop},
    {"table-reads", test_table_reads},
    {"simulate", test_simulate},
    {"wait-policy", test_wait_policy},
    {"format-v2", test_format_v2},
    {"exchange", test_exchange},
    {"arena", test_arena},
    {"status-names", test_status_names},
    {"env", test_env},
    {"load-file-kinds", test_load_file_kinds},
};
enum { kNumSuites = sizeof kSuites / sizeof kSuites[0] };

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--list")) {
    for (int i = 0; i < kNumSuites; ++i)
      printf("%s\n", kSuites[i].name);
    return 0;
  }
  int ran = 0;
  for (int i = 0; i < kNumSuites; ++i)
    if (argc < 2 || !strcmp(argv[1], kSuites[i].name)) {
      kSuites[i].run();
      ++ran;
    }
  if (!ran) {
    fprintf(stderr, "collrt_test_core: no suite named '%s' (--list names them)\n", argv[1]);
    return 2;
  }
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("%s passed\n", argc < 2 ? "all core tests" : argv[1]);
  return failures != 0;
}

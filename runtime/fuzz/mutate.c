/* Plan-aware mutations. Random bytes die at the checksum or the first
 * field check, so besides bit flips and interesting values the mutator
 * edits what the format is made of: header counts, FIFO depths, statement
 * fields, expression references, opcodes and immediates, and it inserts
 * instructions into the expression pool (fixing every reference behind the
 * insertion). It then recomputes the CRC-32, except for one mutant in 64,
 * which keeps a wrong checksum to exercise that path. */
#include <string.h>

#include "fuzz_plan.h"
#include "plan_internal.h"

typedef struct layout {
  size_t fifos, stmts, exprs, end; /* section offsets; end = expr pool end */
  unsigned nfifos, nstmts;
} layout_t;

/* The statements decoded (statements are of varying size; the mutator
 * edits them decoded and writes them back with the runtime's own codec). */
typedef struct stmt_table {
  collrt_stmt_t s[COLLRT_MAX_STMTS];
  unsigned n;
} stmt_table_t;
static stmt_table_t table_a, table_b;

static const uint32_t interesting[] = {
    0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 1000,
    4095, 4096, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF, 0x10000, 1u << 24, 1u << 30,
    0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu};
#define NINTERESTING (sizeof interesting / sizeof interesting[0])

static const uint8_t opcodes[] = {
    COLLRT_X_END, COLLRT_X_CONST32, COLLRT_X_CONST64, COLLRT_X_RANK, COLLRT_X_SIZE,
    COLLRT_X_VAR, COLLRT_X_DIM, COLLRT_X_RPN, COLLRT_X_COORD, COLLRT_X_RANK_AT,
    COLLRT_X_SCOUNT, COLLRT_X_SDISPL, COLLRT_X_RCOUNT, COLLRT_X_RDISPL,
    COLLRT_X_RCOUNT_SUM, COLLRT_X_RCOUNT_MINPOS, COLLRT_X_RCOUNT_ZEROS,
    COLLRT_X_ADD, COLLRT_X_SUB, COLLRT_X_MUL, COLLRT_X_DIV, COLLRT_X_MOD,
    COLLRT_X_MIN, COLLRT_X_MAX, COLLRT_X_CEILDIV, COLLRT_X_EQ, COLLRT_X_NE,
    COLLRT_X_LT, COLLRT_X_LE, COLLRT_X_GT, COLLRT_X_GE, COLLRT_X_AND,
    COLLRT_X_OR, COLLRT_X_NOT, COLLRT_X_SELECT, COLLRT_X_ISQRT, COLLRT_X_TABLE,
    COLLRT_X_TABLE_ANY, COLLRT_X_TABLE_SUM, COLLRT_X_SMALL + 3, COLLRT_X_VAR_SHORT + 1};
#define NOPCODES (sizeof opcodes / sizeof opcodes[0])

static uint32_t pick(uint64_t *rng, uint32_t n) {
  return n ? (uint32_t)(collrt_fuzz_rand(rng) % n) : 0;
}

static int immediate_bytes(uint8_t op) {
  switch (op) {
  case COLLRT_X_CONST32: return 4;
  case COLLRT_X_CONST64: return 8;
  case COLLRT_X_VAR: case COLLRT_X_DIM: case COLLRT_X_COORD: case COLLRT_X_TABLE:
  case COLLRT_X_TABLE_ANY: case COLLRT_X_TABLE_SUM: return 1;
  case COLLRT_X_SUM: case COLLRT_X_SUM_MAX: return 3; /* var, summand length; the summand follows */
  default: return 0;
  }
}

/* The sections, from the header: the pool is the plan's last expr_bytes
 * bytes and the statements lie between the FIFOs and it. */
static int get_layout(const uint8_t *b, size_t len, layout_t *l) {
  if (len < COLLRT_PLAN_HEADER_BYTES)
    return 0;
  l->nfifos = b[COLLRT_H_NFIFOS];
  l->nstmts = collrt_rd16(b + COLLRT_H_NSTMTS);
  l->fifos = COLLRT_PLAN_HEADER_BYTES;
  l->stmts = l->fifos + (size_t)COLLRT_PLAN_FIFO_BYTES * l->nfifos;
  size_t pool = collrt_rd16(b + COLLRT_H_EXPR_BYTES);
  if (pool > len || len - pool < l->stmts || l->nstmts > COLLRT_MAX_STMTS)
    return 0;
  l->exprs = len - pool;
  l->end = len;
  return 1;
}

/* Decodes the statements; 0 if they are not well formed. */
static int read_stmts(const uint8_t *b, const layout_t *l, stmt_table_t *t) {
  const uint8_t *p = b + l->stmts, *end = b + l->exprs;
  for (t->n = 0; t->n < l->nstmts; ++t->n) {
    size_t n = collrt_stmt_decode(p, end, &t->s[t->n]);
    if (!n)
      return 0;
    p += n;
  }
  return p == end;
}

/* Writes the statements back (their size may have changed: the pool moves)
 * and fixes the header's total; returns the new length, or len if the
 * result would not fit in cap. */
static size_t write_stmts(uint8_t *b, size_t len, size_t cap, const layout_t *l,
                          const stmt_table_t *t) {
  uint8_t enc[COLLRT_PLAN_STMT_MAX_BYTES];
  size_t bytes = 0, pool = l->end - l->exprs;
  for (unsigned i = 0; i < t->n; ++i)
    bytes += collrt_stmt_encode(&t->s[i], enc);
  if (l->stmts + bytes + pool > cap)
    return len;
  memmove(b + l->stmts + bytes, b + l->exprs, pool);
  uint8_t *p = b + l->stmts;
  for (unsigned i = 0; i < t->n; ++i)
    p += collrt_stmt_encode(&t->s[i], p);
  len = l->stmts + bytes + pool;
  collrt_wr32(b + COLLRT_H_TOTAL, (uint32_t)len);
  return len;
}

/* Offsets (pool-relative) of the instructions of the pool; returns how many
 * fit in `max`. */
static size_t instructions(const uint8_t *b, const layout_t *l, uint16_t *at, size_t max) {
  size_t n = 0;
  for (size_t p = l->exprs; p < l->end && n < max; p += 1u + immediate_bytes(b[p]))
    at[n++] = (uint16_t)(p - l->exprs);
  return n;
}

/* Expression starts: offset 0 and every offset after an END. */
static uint16_t random_expr_ref(const uint8_t *b, const layout_t *l, uint64_t *rng) {
  uint16_t at[512], starts[512];
  size_t n = instructions(b, l, at, 512), ns = 0;
  for (size_t k = 0; k < n; ++k)
    if (k == 0 || b[l->exprs + at[k - 1]] == COLLRT_X_END)
      starts[ns++] = at[k];
  if (!ns || pick(rng, 8) == 0)
    return pick(rng, 2) ? COLLRT_EXPR_NONE : (uint16_t)interesting[pick(rng, NINTERESTING)];
  return starts[pick(rng, (uint32_t)ns)];
}

static size_t mutate_stmt(uint8_t *b, size_t len, size_t cap, const layout_t *l,
                          uint64_t *rng) {
  if (!l->nstmts || !read_stmts(b, l, &table_a))
    return len;
  collrt_stmt_t *s = &table_a.s[pick(rng, l->nstmts)];
  switch (pick(rng, 8)) {
  case 0: s->kind = (uint8_t)(1 + pick(rng, COLLRT_STMT_AWAIT + 1)); break;  /* kind */
  case 1: *(pick(rng, 2) ? &s->buf0 : &s->buf1) = (uint8_t)pick(rng, 5); break;
  case 2: s->slot = (uint8_t)pick(rng, COLLRT_MAX_VARS + 2); break;          /* var / fifo */
  case 3: *(pick(rng, 2) ? &s->wait_event : &s->signal_event) = (uint8_t)pick(rng, 4); break;
  case 4: {                                                                  /* body */
    uint32_t r = pick(rng, 4);
    s->body = r == 0 ? (uint16_t)(s->body + 1) : r == 1 ? (uint16_t)(s->body - 1)
              : r == 2 ? 0u : (uint16_t)pick(rng, l->nstmts + 1);
    break;
  }
  default:                                                                   /* an expression */
    s->expr[pick(rng, COLLRT_STMT_EXPRS)] = random_expr_ref(b, l, rng);
  }
  return write_stmts(b, len, cap, l, &table_a);
}

static void mutate_instruction(uint8_t *b, const layout_t *l, uint64_t *rng) {
  uint16_t at[512];
  size_t n = instructions(b, l, at, 512);
  if (!n)
    return;
  size_t p = l->exprs + at[pick(rng, (uint32_t)n)];
  int imm = immediate_bytes(b[p]);
  if (p + 1 + (size_t)imm > l->end) /* an immediate cut off by the end of the plan */
    return;
  if (imm && pick(rng, 2)) {
    uint32_t v = interesting[pick(rng, NINTERESTING)];
    if (imm == 1 || imm == 3) { /* a byte: var / table / dim, or a SUM's var or length */
      size_t at = p + 1 + (imm == 3 ? pick(rng, 3) : 0);
      b[at] = (uint8_t)(pick(rng, 2) ? v : b[at] + 1u);
    } else
      collrt_wr32(b + p + 1 + (imm == 8 ? 4 * pick(rng, 2) : 0),
                  pick(rng, 4) ? v : 0u - v);
    return;
  }
  /* swap in an opcode with the same immediate size, keeping the layout */
  for (int tries = 0; tries < 8; ++tries) {
    uint8_t op = opcodes[pick(rng, NOPCODES)];
    if (immediate_bytes(op) == imm) {
      b[p] = op;
      return;
    }
  }
}

/* Inserts one instruction (opcode + immediate) at an instruction boundary
 * and moves every expression reference at or behind it. */
static size_t insert_instruction(uint8_t *b, size_t len, size_t cap, const layout_t *l,
                                 uint64_t *rng) {
  uint16_t at[512];
  size_t n = instructions(b, l, at, 512);
  uint8_t ins[9];
  ins[0] = opcodes[pick(rng, NOPCODES)];
  int k = 1 + immediate_bytes(ins[0]);
  uint32_t v = interesting[pick(rng, NINTERESTING)];
  for (int i = 1; i < k; ++i)
    ins[i] = (uint8_t)(i <= 4 ? v >> (8 * (i - 1)) : 0);
  size_t pool = l->end - l->exprs;
  if (len + (size_t)k > cap || pool + (size_t)k > 0xFFFE || !read_stmts(b, l, &table_a))
    return len;
  size_t rel = n ? at[pick(rng, (uint32_t)n)] : 0, pos = l->exprs + rel;
  memmove(b + pos + k, b + pos, len - pos);
  memcpy(b + pos, ins, (size_t)k);
  for (unsigned i = 0; i < table_a.n; ++i)
    for (int e = 0; e < COLLRT_STMT_EXPRS; ++e) {
      uint16_t *ref = &table_a.s[i].expr[e];
      /* an expression starting exactly here keeps its start: it gains the
       * instruction only if something precedes it in the same expression
       * (a reference keeps its size, so the statements keep theirs) */
      if (*ref != COLLRT_EXPR_NONE && *ref > rel && (unsigned)*ref + (unsigned)k < COLLRT_EXPR_NONE)
        *ref = (uint16_t)(*ref + k);
    }
  uint8_t *p = b + l->stmts;
  for (unsigned i = 0; i < table_a.n; ++i)
    p += collrt_stmt_encode(&table_a.s[i], p);
  uint16_t sref = collrt_rd16(b + COLLRT_H_SCRATCH);
  if (sref != COLLRT_EXPR_NONE && sref > rel)
    collrt_wr16(b + COLLRT_H_SCRATCH, (uint16_t)(sref + k));
  collrt_wr16(b + COLLRT_H_EXPR_BYTES, (uint16_t)(pool + k));
  len += (size_t)k;
  collrt_wr32(b + COLLRT_H_TOTAL, (uint32_t)len);
  return len;
}

static void mutate_header(uint8_t *b, const layout_t *l, uint64_t *rng) {
  uint32_t v = interesting[pick(rng, NINTERESTING)];
  switch (pick(rng, 8)) {
  case 0: b[COLLRT_H_OP + pick(rng, 4)] = (uint8_t)pick(rng, 5); break; /* op, alg, ndims, wrap */
  case 1: collrt_wr32(b + COLLRT_H_SHAPE + 4 * pick(rng, 3), pick(rng, 2) ? v : 1 + pick(rng, 8)); break;
  case 2: collrt_wr32(b + COLLRT_H_RPN, pick(rng, 2) ? v : 1 + pick(rng, 4)); break;
  case 3: b[COLLRT_H_NEVENTS + pick(rng, 2)] = (uint8_t)pick(rng, 70); break; /* nevents, nvars */
  case 4: collrt_wr16(b + COLLRT_H_SCRATCH, random_expr_ref(b, l, rng)); break;
  case 5:
    if (l->nfifos)
      collrt_wr16(b + l->fifos + 2 * pick(rng, 2 * l->nfifos), (uint16_t)v);
    break;
  case 6: collrt_wr32(b + COLLRT_H_ALPHA + 4 * pick(rng, 3), v); break;
  default: b[COLLRT_H_NFIFOS] = (uint8_t)(b[COLLRT_H_NFIFOS] + (pick(rng, 2) ? 1 : -1)); break;
  }
}

static size_t mutate_once(uint8_t *b, size_t len, size_t cap, const uint8_t *other,
                          size_t other_len, uint64_t *rng) {
  layout_t l;
  int structured = get_layout(b, len, &l);
  uint32_t r = pick(rng, 16);
  if (structured && r < 4)
    len = mutate_stmt(b, len, cap, &l, rng);
  else if (structured && r < 7)
    mutate_instruction(b, &l, rng);
  else if (structured && r < 8)
    len = insert_instruction(b, len, cap, &l, rng);
  else if (structured && r < 10)
    mutate_header(b, &l, rng);
  else if (r < 12 && len) {
    size_t p = pick(rng, (uint32_t)len);
    b[p] ^= (uint8_t)(1u << pick(rng, 8));
  } else if (r < 13 && len >= 2) {
    size_t p = pick(rng, (uint32_t)len - 1);
    collrt_wr16(b + p, (uint16_t)interesting[pick(rng, NINTERESTING)]);
  } else if (r < 14 && structured && l.nstmts && other && other_len >= COLLRT_PLAN_HEADER_BYTES) {
    /* splice a statement of another plan over one of this plan */
    layout_t o;
    if (get_layout(other, other_len, &o) && o.nstmts && read_stmts(other, &o, &table_b) &&
        read_stmts(b, &l, &table_a)) {
      table_a.s[pick(rng, l.nstmts)] = table_b.s[pick(rng, o.nstmts)];
      len = write_stmts(b, len, cap, &l, &table_a);
    }
  } else if (r < 15 && len > COLLRT_PLAN_HEADER_BYTES) {
    len -= 1 + pick(rng, (uint32_t)(len - COLLRT_PLAN_HEADER_BYTES)); /* truncate */
  } else if (len >= 4) {
    size_t p = pick(rng, (uint32_t)len - 3);
    collrt_wr32(b + p, interesting[pick(rng, NINTERESTING)]);
  }
  return len;
}

size_t collrt_fuzz_mutate(uint8_t *b, size_t len, size_t cap, const uint8_t *other,
                          size_t other_len, uint64_t *rng) {
  for (uint32_t n = 1 + pick(rng, 4); n > 0; --n)
    len = mutate_once(b, len, cap, other, other_len, rng);
  if (len >= COLLRT_PLAN_CHECKED_FROM && pick(rng, 64)) {
    uint32_t total = collrt_rd32(b + COLLRT_H_TOTAL);
    size_t n = total >= COLLRT_PLAN_CHECKED_FROM && total <= len ? total : len;
    collrt_wr32(b + COLLRT_PLAN_CHECKSUM_OFFSET,
                collrt_crc32(b + COLLRT_PLAN_CHECKED_FROM, n - COLLRT_PLAN_CHECKED_FROM));
  }
  return len;
}

/* Plan loading: bounds, checksum, decoding and validation of the program.
 * Every rule of plan_format.h that can be checked without a rank is checked
 * here, so expansion only meets value errors (peers, offsets, events). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "plan_internal.h"

/* What one expression check needs besides the code itself. */
typedef struct expr_check {
  const collrt_plan_t *plan;
  const char *field;
  unsigned ref;        /* where the whole expression starts */
  int *uses_topology;
  int *uses_table;     /* set when the expression reads TABLE */
  collrt_diag_t *diag;
} expr_check_t;

/* Checks the code at [*pc, end) (end = 0: up to and including END) with
 * `depth` values already on the stack; a SUM's summand is checked by a
 * nested call on its n bytes, with its variable defined, so that it pushes
 * exactly one value. */
static collrt_status_t check_code(const expr_check_t *c, unsigned *pcp, unsigned end,
                                  uint64_t defined, unsigned depth, unsigned nesting) {
  const collrt_plan_desc_t *d = &c->plan->desc;
  const char *field = c->field;
  collrt_diag_t *diag = c->diag;
  const uint8_t *x = c->plan->exprs;
  unsigned pc = *pcp, base = depth;
  for (;;) {
    if (end && pc == end) {
      if (depth != base + 1) {
        collrt_diag_set(diag, "plan field '%s': SUM summand ending at offset %u leaves %u values, expected 1",
                        field, pc, depth - base);
        return COLLRT_ERR_PLAN_INVALID;
      }
      *pcp = pc;
      return COLLRT_OK;
    }
    if (pc >= (end ? end : d->expr_bytes)) {
      collrt_diag_set(diag, "plan field '%s': expression at offset %u runs past %s without END",
                      field, c->ref, end ? "its SUM summand" : "the end of the pool");
      return COLLRT_ERR_PLAN_INVALID;
    }
    unsigned at = pc;
    uint8_t op = x[pc++];
    unsigned imm = 0, pops = 0, pushes = 1;
    if ((op >= COLLRT_X_SMALL && op < COLLRT_X_SMALL_END_) ||
        (op >= COLLRT_X_VAR_SHORT && op < COLLRT_X_VAR_SHORT_END_)) {
      /* one-byte SMALL v or VAR v: pushes one value */
      unsigned v = op - COLLRT_X_VAR_SHORT;
      if (op >= COLLRT_X_VAR_SHORT && (v >= d->nvars || !(defined >> v & 1u))) {
        collrt_diag_set(diag, v >= d->nvars
                                  ? "plan field '%s': variable %u at offset %u but the plan declares fewer variables"
                                  : "plan field '%s': variable %u is used at offset %u before a LET, FOR or SUM defines it",
                        field, v, at);
        return COLLRT_ERR_PLAN_INVALID;
      }
      if (++depth > COLLRT_MAX_EXPR_STACK) {
        collrt_diag_set(diag, "plan field '%s': expression at offset %u needs more than %d stack entries",
                        field, c->ref, COLLRT_MAX_EXPR_STACK);
        return COLLRT_ERR_PLAN_INVALID;
      }
      continue;
    }
    switch (op) {
    case COLLRT_X_END:
      if (end) {
        collrt_diag_set(diag, "plan field '%s': END at offset %u inside a SUM summand", field, at);
        return COLLRT_ERR_PLAN_INVALID;
      }
      if (depth != 1) {
        collrt_diag_set(diag, "plan field '%s': expression at offset %u leaves %u values on the stack at END (offset %u), expected 1",
                        field, c->ref, depth, at);
        return COLLRT_ERR_PLAN_INVALID;
      }
      *pcp = pc;
      return COLLRT_OK;
    case COLLRT_X_CONST32: imm = 4; break;
    case COLLRT_X_CONST64: imm = 8; break;
    case COLLRT_X_RANK: case COLLRT_X_SIZE: case COLLRT_X_RPN:
    case COLLRT_X_RCOUNT_SUM: case COLLRT_X_RCOUNT_MINPOS:
    case COLLRT_X_RCOUNT_ZEROS:
      break;
    case COLLRT_X_VAR: case COLLRT_X_DIM: imm = 1; break;
    case COLLRT_X_COORD: imm = 1; pops = 1; break;
    case COLLRT_X_RANK_AT: pops = d->ndims + 1u; break;
    case COLLRT_X_SCOUNT: case COLLRT_X_SDISPL: case COLLRT_X_RCOUNT:
    case COLLRT_X_RDISPL: case COLLRT_X_NOT: case COLLRT_X_ISQRT:
      pops = 1; break;
    case COLLRT_X_TABLE: imm = 1; pops = 2; break;
    case COLLRT_X_TABLE_ANY: imm = 1; pops = 1; break;
    case COLLRT_X_TABLE_SUM: imm = 1; pops = 2; break;
    case COLLRT_X_SUM: case COLLRT_X_SUM_MAX: imm = 3; pops = 2; break;
    case COLLRT_X_ADD: case COLLRT_X_SUB: case COLLRT_X_MUL: case COLLRT_X_DIV:
    case COLLRT_X_MOD: case COLLRT_X_MIN: case COLLRT_X_MAX:
    case COLLRT_X_CEILDIV: case COLLRT_X_EQ: case COLLRT_X_NE: case COLLRT_X_LT:
    case COLLRT_X_LE: case COLLRT_X_GT: case COLLRT_X_GE: case COLLRT_X_AND:
    case COLLRT_X_OR:
      pops = 2; break;
    case COLLRT_X_SELECT: pops = 3; break;
    default:
      collrt_diag_set(diag, "plan field '%s': opcode 0x%02x at expression pool offset %u is not valid",
                      field, op, at);
      return COLLRT_ERR_PLAN_INVALID;
    }
    if (pc + imm > (end ? end : d->expr_bytes)) {
      collrt_diag_set(diag, "plan field '%s': immediate of opcode 0x%02x at offset %u runs past the %s",
                      field, op, at, end ? "SUM summand" : "pool");
      return COLLRT_ERR_PLAN_INVALID;
    }
    if (op == COLLRT_X_VAR || op == COLLRT_X_SUM || op == COLLRT_X_SUM_MAX) {
      unsigned v = x[pc];
      if (v >= d->nvars) {
        collrt_diag_set(diag, "plan field '%s': variable %u at offset %u but the plan declares %u variables",
                        field, v, at, d->nvars);
        return COLLRT_ERR_PLAN_INVALID;
      }
      if (op == COLLRT_X_VAR && !(defined >> v & 1u)) {
        collrt_diag_set(diag, "plan field '%s': variable %u is used at offset %u before a LET, FOR or SUM defines it",
                        field, v, at);
        return COLLRT_ERR_PLAN_INVALID;
      }
    }
    if (op == COLLRT_X_DIM || op == COLLRT_X_COORD) {
      unsigned dim = x[pc];
      if (dim >= d->ndims) {
        collrt_diag_set(diag, "plan field '%s': dimension %u at offset %u but the topology has %u dimensions",
                        field, dim, at, d->ndims);
        return COLLRT_ERR_PLAN_INVALID;
      }
    }
    if (op == COLLRT_X_TABLE || op == COLLRT_X_TABLE_ANY || op == COLLRT_X_TABLE_SUM) {
      *c->uses_table = 1;
      if (x[pc] >= d->ntables) {
        collrt_diag_set(diag, "plan field '%s': TABLE %u at offset %u but the plan declares %u tables",
                        field, x[pc], at, d->ntables);
        return COLLRT_ERR_PLAN_INVALID;
      }
    }
    if (op == COLLRT_X_DIM || op == COLLRT_X_COORD || op == COLLRT_X_RANK_AT)
      *c->uses_topology = 1;
    if (depth < pops) {
      collrt_diag_set(diag, "plan field '%s': opcode 0x%02x at offset %u pops %u values but the stack holds %u",
                      field, op, at, pops, depth);
      return COLLRT_ERR_PLAN_INVALID;
    }
    depth -= pops;
    if (op == COLLRT_X_SUM || op == COLLRT_X_SUM_MAX) {
      unsigned var = x[pc], n = collrt_rd16(x + pc + 1u);
      pc += imm;
      if (nesting + 1u > COLLRT_MAX_SUM_NESTING) {
        collrt_diag_set(diag, "plan field '%s': SUM at offset %u nests deeper than %d",
                        field, at, COLLRT_MAX_SUM_NESTING);
        return COLLRT_ERR_PLAN_INVALID;
      }
      if (n == 0 || pc + n > (end ? end : d->expr_bytes)) {
        collrt_diag_set(diag, "plan field '%s': SUM at offset %u has a %u-byte summand, empty or past the %s",
                        field, at, n, end ? "enclosing summand" : "pool");
        return COLLRT_ERR_PLAN_INVALID;
      }
      collrt_status_t st = check_code(c, &pc, pc + n, defined | 1ull << var, depth, nesting + 1u);
      if (st)
        return st;
      imm = 0; /* pc now stands after the summand; it pushed the sum */
    }
    pc += imm;
    depth += pushes;
    if (depth > COLLRT_MAX_EXPR_STACK) {
      collrt_diag_set(diag, "plan field '%s': expression at offset %u needs more than %d stack entries",
                      field, c->ref, COLLRT_MAX_EXPR_STACK);
      return COLLRT_ERR_PLAN_INVALID;
    }
  }
}

/* Checks one expression; `defined` is the set of variables in scope. Sets
 * *uses_table when it reads TABLE. */
static collrt_status_t check_expr(const collrt_plan_t *plan, uint16_t ref,
                                  uint64_t defined, const char *field,
                                  int *uses_topology, int *uses_table, collrt_diag_t *diag) {
  const collrt_plan_desc_t *d = &plan->desc;
  if (ref >= d->expr_bytes) {
    collrt_diag_set(diag, "plan field '%s' is %u but the expression pool has %u bytes",
                    field, ref, d->expr_bytes);
    return COLLRT_ERR_PLAN_INVALID;
  }
  expr_check_t c = {plan, field, ref, uses_topology, uses_table, diag};
  unsigned pc = ref;
  return check_code(&c, &pc, 0, defined, 0, 0);
}

static int is_transfer(uint8_t kind) {
  return kind == COLLRT_STMT_SEND || kind == COLLRT_STMT_RECV || kind == COLLRT_STMT_COPY ||
         kind == COLLRT_STMT_REDUCE || kind == COLLRT_STMT_NOTIFY || kind == COLLRT_STMT_AWAIT;
}

/* Buffers a transfer may write: RECV, SCRATCH and the node's ARENA. */
static int writable(uint8_t buf) {
  return buf == COLLRT_BUF_RECV || buf == COLLRT_BUF_SCRATCH || buf == COLLRT_BUF_ARENA;
}

static int is_container(uint8_t kind) {
  return kind == COLLRT_STMT_PHASE || kind == COLLRT_STMT_EXCHANGE || kind == COLLRT_STMT_FOR ||
         kind == COLLRT_STMT_IF || is_transfer(kind);
}

/* Which expression slots a statement reads: bit i = required, and
 * `optional` the slots that may be NONE or set. All others must be NONE. */
static void expr_slots(const collrt_stmt_t *s, unsigned *required,
                       unsigned *optional) {
  *required = 0;
  *optional = 0;
  switch (s->kind) {
  case COLLRT_STMT_FOR:
    *required = s->buf0 != COLLRT_ORDER_ASCENDING ? 0x7u : 0x3u;
    break;
  case COLLRT_STMT_IF: case COLLRT_STMT_LET: *required = 0x1u; break;
  case COLLRT_STMT_SEND: case COLLRT_STMT_RECV:
    /* peer, tag; offset and length unless gathered */
    *required = s->slot & COLLRT_GATHER_SRC ? 0x9u : 0xFu;
    break;
  case COLLRT_STMT_COPY:
    *required = (s->slot & COLLRT_GATHER_SRC ? 0u : 0x1u) | (s->slot & COLLRT_GATHER_DST ? 0u : 0x2u) |
                (s->slot ? 0u : 0x4u);
    break;
  case COLLRT_STMT_REDUCE: *required = 0x7u; break; /* offsets, length */
  case COLLRT_STMT_SEG: *required = 0x3u; break;
  case COLLRT_STMT_PUT: *required = 0x7u; break; /* peer, index, value */
  case COLLRT_STMT_DEP: *optional = 0x30u; break; /* its event index, NONE = 0 */
  case COLLRT_STMT_PHASE: *optional = 0x1u; break; /* FIFO offset, NONE = 0 */
  case COLLRT_STMT_ARENA: *required = 0x3u; break;  /* bytes, counters */
  case COLLRT_STMT_NOTIFY: case COLLRT_STMT_AWAIT: *required = 0x1u; break; /* counter */
  default: break;
  }
  if (is_transfer(s->kind)) {
    if (s->wait_event)
      *optional |= 0x30u;
    if (s->signal_event)
      *optional |= 0xC0u;
  }
}

static collrt_status_t check_stmt_fields(const collrt_plan_t *plan, unsigned i,
                                         collrt_diag_t *diag) {
  const collrt_plan_desc_t *d = &plan->desc;
  const collrt_stmt_t *s = &plan->stmts[i];
  uint8_t k = s->kind;
  if (k < COLLRT_STMT_PHASE || k > COLLRT_STMT_REDUCE) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is %u, not a statement kind (1..15)", i, k);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (k != COLLRT_STMT_REDUCE && (s->rop || s->rtype)) {
    collrt_diag_set(diag, "plan field 'stmt[%u].%s' is %u but only a REDUCE names an operation and a type", i,
                    s->rop ? "rop" : "rtype", s->rop ? s->rop : s->rtype);
    return COLLRT_ERR_PLAN_INVALID;
  }
  char why[200];
  if (k == COLLRT_STMT_REDUCE && !collrt_reduce_valid(s->rop, s->rtype, why, sizeof why)) {
    collrt_diag_set(diag, "plan field 'stmt[%u]' is a REDUCE of operation %u on type %u: %s", i, s->rop,
                    s->rtype, why);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (!is_container(k) && s->body != 0) {
    collrt_diag_set(diag, "plan field 'stmt[%u].body' is %u but a kind-%u statement has no body", i, s->body, k);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (k == COLLRT_STMT_PHASE && s->slot >= d->nfifos) {
    collrt_diag_set(diag, "plan field 'stmt[%u].fifo' is %u but the plan declares %u FIFOs", i, s->slot, d->nfifos);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (k == COLLRT_STMT_PUT && s->slot >= d->ntables) {
    collrt_diag_set(diag, "plan field 'stmt[%u].table' is %u but the plan declares %u tables", i, s->slot, d->ntables);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if ((k == COLLRT_STMT_FOR || k == COLLRT_STMT_LET) && s->slot >= d->nvars) {
    collrt_diag_set(diag, "plan field 'stmt[%u].var' is %u but the plan declares %u variables", i, s->slot, d->nvars);
    return COLLRT_ERR_PLAN_INVALID;
  }
  unsigned max_slot = k == COLLRT_STMT_SEND || k == COLLRT_STMT_RECV ? COLLRT_GATHER_SRC
                      : k == COLLRT_STMT_COPY ? (COLLRT_GATHER_SRC | COLLRT_GATHER_DST)
                      : k == COLLRT_STMT_SEG  ? COLLRT_SIDE_DST
                                              : 0;
  if ((k == COLLRT_STMT_IF || (k >= COLLRT_STMT_SEND && k != COLLRT_STMT_PUT)) && s->slot > max_slot) {
    collrt_diag_set(diag, "plan field 'stmt[%u].slot' is %u but must be at most %u for kind %u", i, s->slot,
                    max_slot, k);
    return COLLRT_ERR_PLAN_INVALID;
  }
  /* buf0 / buf1 by kind; a gathered side names no buffer */
  int src_gathered = is_transfer(k) && (s->slot & COLLRT_GATHER_SRC);
  int dst_gathered = k == COLLRT_STMT_COPY && (s->slot & COLLRT_GATHER_DST);
  int writable0 = writable(s->buf0);
  int buf0_ok = 1, buf1_ok = s->buf1 == 0;
  switch (k) {
  case COLLRT_STMT_FOR: buf0_ok = s->buf0 <= COLLRT_ORDER_SHARED_RANDOM; break;
  case COLLRT_STMT_SEND: case COLLRT_STMT_SEG:
    buf0_ok = src_gathered ? s->buf0 == 0 : s->buf0 < COLLRT_BUF_COUNT_;
    break;
  case COLLRT_STMT_RECV: buf0_ok = src_gathered ? s->buf0 == 0 : writable0; break;
  case COLLRT_STMT_COPY:
    buf0_ok = src_gathered ? s->buf0 == 0 : s->buf0 < COLLRT_BUF_COUNT_;
    buf1_ok = dst_gathered ? s->buf1 == 0 : writable(s->buf1);
    break;
  case COLLRT_STMT_REDUCE:
    buf0_ok = s->buf0 < COLLRT_BUF_COUNT_;
    buf1_ok = writable(s->buf1);
    break;
  default: buf0_ok = s->buf0 == 0; break;
  }
  if (!buf0_ok || !buf1_ok) {
    collrt_diag_set(diag, "plan field 'stmt[%u].%s' is %u, not valid for kind %u%s", i,
                    buf0_ok ? "buf1" : "buf0", buf0_ok ? s->buf1 : s->buf0, k,
                    k >= COLLRT_STMT_SEND ? " (RECV, COPY and REDUCE write only RECV, SCRATCH or ARENA)" : "");
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->scratch_expr == COLLRT_EXPR_NONE &&
      (((is_transfer(k) || k == COLLRT_STMT_SEG) && s->buf0 == COLLRT_BUF_SCRATCH) ||
       ((k == COLLRT_STMT_COPY || k == COLLRT_STMT_REDUCE) && s->buf1 == COLLRT_BUF_SCRATCH))) {
    collrt_diag_set(diag, "plan field 'stmt[%u].buf' is SCRATCH but the plan declares no scratch_expr", i);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (!plan->has_arena &&
      (((is_transfer(k) || k == COLLRT_STMT_SEG) && s->buf0 == COLLRT_BUF_ARENA) ||
       ((k == COLLRT_STMT_COPY || k == COLLRT_STMT_REDUCE) && s->buf1 == COLLRT_BUF_ARENA) ||
       k == COLLRT_STMT_NOTIFY ||
       k == COLLRT_STMT_AWAIT)) {
    collrt_diag_set(diag, "plan field 'stmt[%u]' uses the node arena (%s) but the plan has no ARENA statement", i,
                    k == COLLRT_STMT_NOTIFY ? "NOTIFY" : k == COLLRT_STMT_AWAIT ? "AWAIT" : "buffer ARENA");
    return COLLRT_ERR_PLAN_INVALID;
  }
  if ((!is_transfer(k) && s->signal_event) || (!is_transfer(k) && k != COLLRT_STMT_DEP && s->wait_event) ||
      (k == COLLRT_STMT_DEP && !s->wait_event)) {
    collrt_diag_set(diag, "plan field 'stmt[%u].%s' is %u but only transfers wait on or signal events, and a DEP waits on one", i,
                    s->wait_event ? "wait_event" : "signal_event",
                    s->wait_event ? s->wait_event : s->signal_event);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (s->wait_event > d->nevents || s->signal_event > d->nevents) {
    int w = s->wait_event > d->nevents;
    collrt_diag_set(diag, "plan field 'stmt[%u].%s' is event %d but the plan declares %u events", i,
                    w ? "wait_event" : "signal_event",
                    (w ? s->wait_event : s->signal_event) - 1, d->nevents);
    return COLLRT_ERR_PLAN_INVALID;
  }
  unsigned req, opt;
  expr_slots(s, &req, &opt);
  for (unsigned e = 0; e < COLLRT_STMT_EXPRS; ++e) {
    int none = s->expr[e] == COLLRT_EXPR_NONE;
    if ((req >> e & 1u) && none) {
      collrt_diag_set(diag, "plan field 'stmt[%u].expr[%u]' is NONE but kind %u requires it", i, e, k);
      return COLLRT_ERR_PLAN_INVALID;
    }
    if (!((req | opt) >> e & 1u) && !none) {
      collrt_diag_set(diag, "plan field 'stmt[%u].expr[%u]' is %u but kind %u does not use it (must be NONE)",
                      i, e, s->expr[e], k);
      return COLLRT_ERR_PLAN_INVALID;
    }
  }
  return COLLRT_OK;
}

/* Where a body stands: the top level, a phase loop (a FOR outside phases),
 * a phase, an exchange, or the body of transfer statement `xfer` (where SEG
 * and DEP live). */
typedef struct body_ctx {
  int in_phase;
  int in_phase_loop;
  int in_exchange;
  int xfer; /* statement index, or -1 outside a transfer's body */
} body_ctx_t;

static collrt_status_t check_placement(const collrt_plan_t *plan, unsigned i, body_ctx_t ctx,
                                       collrt_diag_t *diag) {
  const collrt_stmt_t *s = &plan->stmts[i];
  uint8_t k = s->kind;
  int outside = !ctx.in_phase && !ctx.in_exchange; /* the top level or a phase loop */
  if (outside && !ctx.in_phase_loop && k != COLLRT_STMT_PHASE && k != COLLRT_STMT_LET &&
      k != COLLRT_STMT_EXCHANGE && k != COLLRT_STMT_FOR && k != COLLRT_STMT_ARENA) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is %u but only EXCHANGE, ARENA, PHASE, FOR and LET may appear at top level", i, k);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (outside && ctx.in_phase_loop && k != COLLRT_STMT_PHASE && k != COLLRT_STMT_LET &&
      k != COLLRT_STMT_FOR) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is %u in a phase loop (a FOR outside phases), which holds only PHASE, FOR and LET", i, k);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if ((!outside || ctx.in_phase_loop) && (k == COLLRT_STMT_EXCHANGE || k == COLLRT_STMT_ARENA)) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is %s inside another statement (it is top level)", i,
                    k == COLLRT_STMT_EXCHANGE ? "EXCHANGE" : "ARENA");
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (k == COLLRT_STMT_PHASE && s->expr[COLLRT_E_FIFO_OFFSET] != COLLRT_EXPR_NONE && !ctx.in_phase_loop) {
    collrt_diag_set(diag, "plan field 'stmt[%u].expr[0]' gives a FIFO offset but the PHASE is not in a phase loop (a fixed phase names its FIFO in 'fifo')", i);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (ctx.in_exchange && k != COLLRT_STMT_FOR && k != COLLRT_STMT_IF && k != COLLRT_STMT_LET &&
      k != COLLRT_STMT_PUT) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is %u inside an EXCHANGE, which holds only FOR, IF, LET and PUT", i, k);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (!ctx.in_exchange && k == COLLRT_STMT_PUT) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is PUT outside an EXCHANGE", i);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (ctx.in_phase && k == COLLRT_STMT_PHASE) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is PHASE inside another phase (phases do not nest)", i);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (ctx.xfer < 0 && (k == COLLRT_STMT_SEG || k == COLLRT_STMT_DEP)) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is %s outside a transfer's body", i,
                    k == COLLRT_STMT_SEG ? "SEG" : "DEP");
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (ctx.xfer >= 0 && is_transfer(k)) {
    collrt_diag_set(diag, "plan field 'stmt[%u].kind' is a transfer inside the body of transfer stmt[%d]", i, ctx.xfer);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (k == COLLRT_STMT_SEG) {
    const collrt_stmt_t *t = &plan->stmts[ctx.xfer];
    unsigned bit = s->slot == COLLRT_SIDE_DST ? COLLRT_GATHER_DST : COLLRT_GATHER_SRC;
    if (!(t->slot & bit)) {
      collrt_diag_set(diag, "plan field 'stmt[%u].slot' is side %u but transfer stmt[%d] does not gather that side",
                      i, s->slot, ctx.xfer);
      return COLLRT_ERR_PLAN_INVALID;
    }
    int writes = s->slot == COLLRT_SIDE_DST || t->kind == COLLRT_STMT_RECV;
    if (writes && !writable(s->buf0)) {
      collrt_diag_set(diag, "plan field 'stmt[%u].buf0' is %u but segments written by transfer stmt[%d] must be RECV, SCRATCH or ARENA",
                      i, s->buf0, ctx.xfer);
      return COLLRT_ERR_PLAN_INVALID;
    }
  }
  return COLLRT_OK;
}

/* Validates statements [first, end) as one body. */
static collrt_status_t check_body(collrt_plan_t *plan, unsigned first,
                                  unsigned end, body_ctx_t ctx, uint64_t defined,
                                  collrt_diag_t *diag) {
  char field[48];
  unsigned i = first;
  int top = !ctx.in_phase && !ctx.in_exchange && !ctx.in_phase_loop;
  int first_table_let = -1, seen_phase = 0; /* top level: the first-pass rules */
  int seen_arena = 0;
  while (i < end) {
    const collrt_stmt_t *s = &plan->stmts[i];
    collrt_status_t st = check_stmt_fields(plan, i, diag);
    if (!st)
      st = check_placement(plan, i, ctx, diag);
    if (st)
      return st;
    if ((uint32_t)i + 1u + s->body > end) {
      collrt_diag_set(diag, "plan field 'stmt[%u].body' is %u but the enclosing body ends at statement %u",
                      i, s->body, end);
      return COLLRT_ERR_PLAN_INVALID;
    }
    int uses_table = 0;
    for (unsigned e = 0; e < COLLRT_STMT_EXPRS; ++e) {
      if (s->expr[e] == COLLRT_EXPR_NONE)
        continue;
      snprintf(field, sizeof field, "stmt[%u].expr[%u]", i, e);
      st = check_expr(plan, s->expr[e], defined, field, &plan->uses_topology, &uses_table, diag);
      if (st)
        return st;
    }
    if (uses_table && ctx.in_exchange) {
      collrt_diag_set(diag, "plan field 'stmt[%u]': reads TABLE inside an EXCHANGE, before the tables exist", i);
      return COLLRT_ERR_PLAN_INVALID;
    }
    if (top) {
      if (uses_table && s->kind == COLLRT_STMT_LET && first_table_let < 0)
        first_table_let = (int)i;
      if (s->kind == COLLRT_STMT_EXCHANGE) {
        plan->has_exchange = 1;
        if (seen_phase || first_table_let >= 0) {
          collrt_diag_set(diag, "plan field 'stmt[%u]': EXCHANGE after %s stmt[%d]; every EXCHANGE comes before the first PHASE and before any LET that reads TABLE",
                          i, seen_phase ? "the PHASE or phase loop" : "the TABLE-reading LET",
                          seen_phase ? seen_phase - 1 : first_table_let);
          return COLLRT_ERR_PLAN_INVALID;
        }
      }
      if (s->kind == COLLRT_STMT_EXCHANGE && seen_arena) {
        collrt_diag_set(diag, "plan field 'stmt[%u]': EXCHANGE after the ARENA stmt[%d]; the ARENA comes after every EXCHANGE",
                        i, seen_arena - 1);
        return COLLRT_ERR_PLAN_INVALID;
      }
      if (s->kind == COLLRT_STMT_ARENA) {
        if (seen_arena || seen_phase) {
          collrt_diag_set(diag, "plan field 'stmt[%u]': ARENA after %s stmt[%d]; a plan has one ARENA, before the first PHASE or phase loop",
                          i, seen_arena ? "the ARENA" : "the PHASE or phase loop",
                          (seen_arena ? seen_arena : seen_phase) - 1);
          return COLLRT_ERR_PLAN_INVALID;
        }
        seen_arena = (int)i + 1;
      }
      if ((s->kind == COLLRT_STMT_PHASE || s->kind == COLLRT_STMT_FOR) && !seen_phase)
        seen_phase = (int)i + 1;
    }
    if (s->kind == COLLRT_STMT_LET)
      defined |= 1ull << s->slot;
    if (is_container(s->kind)) {
      uint64_t inner = defined;
      if (s->kind == COLLRT_STMT_FOR)
        inner |= 1ull << s->slot;
      body_ctx_t in = ctx;
      in.in_phase = ctx.in_phase || s->kind == COLLRT_STMT_PHASE;
      in.in_phase_loop = (ctx.in_phase_loop || s->kind == COLLRT_STMT_FOR) &&
                         !ctx.in_phase && !ctx.in_exchange && !in.in_phase;
      in.in_exchange = ctx.in_exchange || s->kind == COLLRT_STMT_EXCHANGE;
      if (is_transfer(s->kind))
        in.xfer = (int)i;
      st = check_body(plan, i + 1, i + 1 + s->body, in, inner, diag);
      if (st)
        return st;
    }
    i += 1u + s->body;
  }
  return COLLRT_OK;
}

static collrt_status_t check_header(const collrt_plan_t *plan,
                                    collrt_diag_t *diag) {
  const collrt_plan_desc_t *d = &plan->desc;
  const uint8_t *b = plan->bytes;
  if (!strcmp(collrt_op_name(d->op), "?")) {
    collrt_diag_set(diag, "plan field 'op' is %u, not a collective of COLLRT_OPS", d->op);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (!strcmp(collrt_algorithm_name(d->algorithm), "?")) {
    collrt_diag_set(diag, "plan field 'algorithm' is %u, not an algorithm of COLLRT_ALGORITHMS", d->algorithm);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->ndims < 1 || d->ndims > COLLRT_MAX_DIMS) {
    collrt_diag_set(diag, "plan field 'ndims' is %u but must be in 1..%d", d->ndims, COLLRT_MAX_DIMS);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->wrap_mask >> d->ndims) {
    collrt_diag_set(diag, "plan field 'wrap_mask' is 0x%x but the topology has %u dimensions", d->wrap_mask, d->ndims);
    return COLLRT_ERR_PLAN_INVALID;
  }
  for (unsigned k = 0; k < COLLRT_MAX_DIMS; ++k) {
    if (d->shape[k] < 1 || (k >= d->ndims && d->shape[k] != 1)) {
      collrt_diag_set(diag, "plan field 'shape[%u]' is %u but must be %s", k, d->shape[k],
                      k >= d->ndims ? "1 (unused dimension)" : ">= 1");
      return COLLRT_ERR_PLAN_INVALID;
    }
  }
  if ((uint64_t)d->shape[0] * d->shape[1] * d->shape[2] * d->ranks_per_node > 0x7FFFFFFFull ||
      d->ranks_per_node < 1) {
    collrt_diag_set(diag, "plan field 'ranks_per_node' is %u with shape %ux%ux%u: must be >= 1 and the rank count must fit an int",
                    d->ranks_per_node, d->shape[0], d->shape[1], d->shape[2]);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->nfifos < 1 || d->nfifos > COLLRT_MAX_FIFOS) {
    collrt_diag_set(diag, "plan field 'nfifos' is %u but must be in 1..%d", d->nfifos, COLLRT_MAX_FIFOS);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->nevents > COLLRT_MAX_EVENTS) {
    collrt_diag_set(diag, "plan field 'nevents' is %u but at most %d are allowed", d->nevents, COLLRT_MAX_EVENTS);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->nvars > COLLRT_MAX_VARS) {
    collrt_diag_set(diag, "plan field 'nvars' is %u but at most %d are allowed", d->nvars, COLLRT_MAX_VARS);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->nstmts < 1 || d->nstmts > COLLRT_MAX_STMTS) {
    collrt_diag_set(diag, "plan field 'nstmts' is %u but must be in 1..%d", d->nstmts, COLLRT_MAX_STMTS);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->flags & ~COLLRT_PLAN_F_UNVERIFIED) {
    collrt_diag_set(diag, "plan field 'flags' is 0x%02x but only bit 0 (unverified) is defined", d->flags);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (b[COLLRT_H_RESERVED1]) {
    collrt_diag_set(diag, "plan field 'reserved' at byte %d is %u but must be 0", COLLRT_H_RESERVED1,
                    b[COLLRT_H_RESERVED1]);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->ntables > COLLRT_MAX_TABLES) {
    collrt_diag_set(diag, "plan field 'ntables' is %u but at most %d are allowed", d->ntables, COLLRT_MAX_TABLES);
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->block_bytes_max == 0) {
    collrt_diag_set(diag, "plan field 'block_bytes_max' is 0; a plan for any size records UINT64_MAX");
    return COLLRT_ERR_PLAN_INVALID;
  }
  if (d->block_bytes_min > d->block_bytes_max) {
    collrt_diag_set(diag, "plan field 'block_bytes_min' is %llu, above block_bytes_max %llu",
                    (unsigned long long)d->block_bytes_min, (unsigned long long)d->block_bytes_max);
    return COLLRT_ERR_PLAN_INVALID;
  }
  for (unsigned f = 0; f < d->nfifos; ++f) {
    if (plan->fifos[f].send_depth < 1) {
      collrt_diag_set(diag, "plan field 'fifo[%u].send_depth' is 0 but must be >= 1", f);
      return COLLRT_ERR_PLAN_INVALID;
    }
  }
  return COLLRT_OK;
}

collrt_status_t collrt_plan_decode_owned(uint8_t *bytes, size_t len,
                                         collrt_plan_t **out_plan,
                                         collrt_diag_t *diag) {
  collrt_status_t st = COLLRT_OK;
  collrt_plan_t *plan = NULL;
  if (len < COLLRT_PLAN_HEADER_BYTES) {
    collrt_diag_set(diag, "plan is %zu bytes, shorter than the %d-byte header", len, COLLRT_PLAN_HEADER_BYTES);
    st = COLLRT_ERR_PLAN_FORMAT;
    goto fail;
  }
  if (memcmp(bytes, COLLRT_PLAN_MAGIC, 8) != 0) {
    collrt_diag_set(diag, "plan does not start with the magic \"COLLPLAN\"");
    st = COLLRT_ERR_PLAN_FORMAT;
    goto fail;
  }
  uint16_t version = collrt_rd16(bytes + COLLRT_H_VERSION);
  if (version != COLLRT_PLAN_FORMAT_VERSION) {
    collrt_diag_set(diag, "plan format version is %u but this runtime reads version %d; recompile the spec with a collc that writes version %d",
                    version, COLLRT_PLAN_FORMAT_VERSION, COLLRT_PLAN_FORMAT_VERSION);
    st = COLLRT_ERR_PLAN_FORMAT;
    goto fail;
  }
  uint32_t total = collrt_rd32(bytes + COLLRT_H_TOTAL);
  if (total != len) {
    collrt_diag_set(diag, "plan is %zu bytes but header says total_bytes = %u", len, total);
    st = COLLRT_ERR_PLAN_FORMAT;
    goto fail;
  }
  uint32_t want = collrt_rd32(bytes + COLLRT_H_CHECKSUM);
  uint32_t have = collrt_crc32(bytes + COLLRT_PLAN_CHECKED_FROM, len - COLLRT_PLAN_CHECKED_FROM);
  if (want != have) {
    collrt_diag_set(diag, "plan checksum 0x%08x does not match contents (0x%08x)", want, have);
    st = COLLRT_ERR_PLAN_CHECKSUM;
    goto fail;
  }
  plan = calloc(1, sizeof *plan);
  if (!plan) {
    st = COLLRT_ERR_NOMEM;
    goto fail;
  }
  plan->bytes = bytes;
  plan->len = len;
  bytes = NULL;
  const uint8_t *b = plan->bytes;
  collrt_plan_desc_t *d = &plan->desc;
  d->producer_version = collrt_rd16(b + COLLRT_H_PRODUCER);
  d->op = b[COLLRT_H_OP];
  d->algorithm = b[COLLRT_H_ALG];
  d->ndims = b[COLLRT_H_NDIMS];
  d->wrap_mask = b[COLLRT_H_WRAP];
  for (int k = 0; k < COLLRT_MAX_DIMS; ++k)
    d->shape[k] = collrt_rd32(b + COLLRT_H_SHAPE + 4 * k);
  d->ranks_per_node = collrt_rd32(b + COLLRT_H_RPN);
  d->alpha_ps = collrt_rd32(b + COLLRT_H_ALPHA);
  d->beta_ps_per_byte = collrt_rd32(b + COLLRT_H_BETA);
  d->gamma_ps_per_byte = collrt_rd32(b + COLLRT_H_GAMMA);
  d->nfifos = b[COLLRT_H_NFIFOS];
  d->nevents = b[COLLRT_H_NEVENTS];
  d->nvars = b[COLLRT_H_NVARS];
  d->flags = b[COLLRT_H_FLAGS];
  d->nstmts = collrt_rd16(b + COLLRT_H_NSTMTS);
  d->expr_bytes = collrt_rd16(b + COLLRT_H_EXPR_BYTES);
  d->scratch_expr = collrt_rd16(b + COLLRT_H_SCRATCH);
  d->ntables = b[COLLRT_H_NTABLES];
  d->block_bytes_min = collrt_rd64(b + COLLRT_H_BLOCK_MIN);
  d->block_bytes_max = collrt_rd64(b + COLLRT_H_BLOCK_MAX);
  /* statements are 3 to COLLRT_PLAN_STMT_MAX_BYTES bytes each: what the
   * header, FIFOs and pool leave must be that much */
  uint64_t fixed = COLLRT_PLAN_HEADER_BYTES + (uint64_t)COLLRT_PLAN_FIFO_BYTES * d->nfifos +
                   d->expr_bytes;
  if (fixed + 3ull * d->nstmts > len ||
      fixed + (uint64_t)COLLRT_PLAN_STMT_MAX_BYTES * d->nstmts < len) {
    collrt_diag_set(diag, "plan is %zu bytes but its header declares %u FIFOs, %u statements and %u expression bytes (%llu to %llu bytes)",
                    len, d->nfifos, d->nstmts, d->expr_bytes,
                    (unsigned long long)(fixed + 3ull * d->nstmts),
                    (unsigned long long)(fixed + (uint64_t)COLLRT_PLAN_STMT_MAX_BYTES * d->nstmts));
    st = COLLRT_ERR_PLAN_FORMAT;
    goto fail;
  }
  plan->fifos = calloc(d->nfifos ? d->nfifos : 1, sizeof *plan->fifos);
  plan->stmts = calloc(d->nstmts ? d->nstmts : 1, sizeof *plan->stmts);
  plan->exprs = malloc(d->expr_bytes ? d->expr_bytes : 1);
  if (!plan->fifos || !plan->stmts || !plan->exprs) {
    st = COLLRT_ERR_NOMEM;
    goto fail;
  }
  const uint8_t *p = b + COLLRT_PLAN_HEADER_BYTES;
  for (unsigned f = 0; f < d->nfifos; ++f, p += COLLRT_PLAN_FIFO_BYTES) {
    plan->fifos[f].send_depth = collrt_rd16(p);
    plan->fifos[f].recv_depth = collrt_rd16(p + 2);
  }
  const uint8_t *pool = b + len - d->expr_bytes;
  for (unsigned i = 0; i < d->nstmts; ++i) {
    size_t n = collrt_stmt_decode(p, pool, &plan->stmts[i]);
    if (!n) {
      collrt_diag_set(diag, "plan statement %u at byte %zu is not a statement (truncated, a reserved presence bit, or a field marked present that is 0)",
                      i, (size_t)(p - b));
      st = COLLRT_ERR_PLAN_FORMAT;
      goto fail;
    }
    p += n;
  }
  if (p != pool) {
    collrt_diag_set(diag, "plan's %u statements end at byte %zu but its expression pool begins at byte %zu",
                    d->nstmts, (size_t)(p - b), (size_t)(pool - b));
    st = COLLRT_ERR_PLAN_FORMAT;
    goto fail;
  }
  memcpy(plan->exprs, p, d->expr_bytes);
  d->fifos = plan->fifos;
  d->stmts = plan->stmts;
  d->exprs = plan->exprs;
  if ((st = check_header(plan, diag)))
    goto fail;
  int uses_table = 0; /* TABLE in scratch_expr is fine: it is evaluated in the second pass */
  if (d->scratch_expr != COLLRT_EXPR_NONE &&
      (st = check_expr(plan, d->scratch_expr, 0, "scratch_expr", &plan->uses_topology, &uses_table, diag)))
    goto fail;
  /* whether buffer ARENA, NOTIFY and AWAIT are allowed: the ARENA is top
   * level (check_body checks where it stands and that bodies fit) */
  for (unsigned i = 0; i < d->nstmts; i += 1u + plan->stmts[i].body)
    plan->has_arena |= plan->stmts[i].kind == COLLRT_STMT_ARENA;
  body_ctx_t top = {.in_phase = 0, .in_phase_loop = 0, .in_exchange = 0, .xfer = -1};
  if ((st = check_body(plan, 0, d->nstmts, top, 0, diag)))
    goto fail;
  *out_plan = plan;
  return COLLRT_OK;
fail:
  free(bytes);
  collrt_plan_free(plan);
  return st;
}

collrt_status_t collrt_plan_load(const void *bytes, size_t len,
                                 collrt_plan_t **out_plan, collrt_diag_t *diag) {
  if (!bytes || !out_plan) {
    collrt_diag_set(diag, "collrt_plan_load: %s is NULL", bytes ? "out_plan" : "bytes");
    return COLLRT_ERR_ARG;
  }
  *out_plan = NULL;
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) {
    collrt_diag_set(diag, "cannot allocate %zu bytes for the plan", len);
    return COLLRT_ERR_NOMEM;
  }
  memcpy(copy, bytes, len);
  return collrt_plan_decode_owned(copy, len, out_plan, diag);
}

/* "a FIFO": what a path that is not a plan file is, for messages. */
static const char *file_kind(unsigned mode) {
  switch (mode & S_IFMT) {
  case S_IFREG: return "a regular file";
  case S_IFDIR: return "a directory";
  case S_IFIFO: return "a FIFO";
  case S_IFCHR: return "a character device";
  case S_IFBLK: return "a block device";
  case S_IFSOCK: return "a socket";
  }
  return "not a regular file";
}

collrt_status_t collrt_plan_load_file(const char *path,
                                      collrt_plan_t **out_plan,
                                      collrt_diag_t *diag) {
  if (!path || !out_plan) {
    collrt_diag_set(diag, "collrt_plan_load_file: %s is NULL", path ? "out_plan" : "path");
    return COLLRT_ERR_ARG;
  }
  *out_plan = NULL;
  /* Plans are bounded well below 1 MiB (4096 statements, 64 KiB of
   * expressions); anything longer is not a plan. */
  enum { MAX_PLAN = 1 << 20 };
  /* O_NONBLOCK: opening a FIFO must not wait for a writer (a FIFO named
   * x.plan in COLLC_PLANS hung start-up); fstat on the open file then
   * refuses anything but a regular file (a FIFO, /dev/zero, a directory)
   * before a byte is read, and the read stops at the cap whatever the size
   * said. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    collrt_diag_set(diag, "cannot open plan file '%s': %s", path, strerror(errno));
    return COLLRT_ERR_IO;
  }
  collrt_status_t st = COLLRT_OK;
  uint8_t *buf = NULL;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    collrt_diag_set(diag, "cannot stat plan file '%s': %s", path, strerror(errno));
    st = COLLRT_ERR_IO;
    goto out;
  }
  if (!S_ISREG(info.st_mode)) {
    collrt_diag_set(diag, "plan file '%s' is %s, not a regular file", path,
                    file_kind((unsigned)info.st_mode));
    st = COLLRT_ERR_IO;
    goto out;
  }
  if (info.st_size > MAX_PLAN) {
    collrt_diag_set(diag, "plan file '%s' is %lld bytes, larger than a plan can be (%d bytes)",
                    path, (long long)info.st_size, MAX_PLAN);
    st = COLLRT_ERR_PLAN_FORMAT;
    goto out;
  }
  if (!(buf = malloc(MAX_PLAN + 1))) {
    collrt_diag_set(diag, "cannot allocate %d bytes to read plan file '%s'", MAX_PLAN + 1, path);
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  size_t n = 0;
  while (n < MAX_PLAN + 1) { /* one byte past the cap tells a file that grew */
    ssize_t got = read(fd, buf + n, MAX_PLAN + 1 - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      collrt_diag_set(diag, "cannot read plan file '%s': %s", path, strerror(errno));
      st = COLLRT_ERR_IO;
      goto out;
    }
    if (got == 0)
      break;
    n += (size_t)got;
  }
  if (n > MAX_PLAN) {
    collrt_diag_set(diag, "plan file '%s' is larger than a plan can be (%d bytes)", path, MAX_PLAN);
    st = COLLRT_ERR_PLAN_FORMAT;
    goto out;
  }
  st = collrt_plan_load(buf, n, out_plan, diag);
out:
  free(buf);
  close(fd);
  return st;
}

void collrt_plan_free(collrt_plan_t *plan) {
  if (!plan)
    return;
  free(plan->bytes);
  free(plan->fifos);
  free(plan->stmts);
  free(plan->exprs);
  free(plan);
}

const collrt_plan_desc_t *collrt_plan_desc(const collrt_plan_t *plan) {
  return plan ? &plan->desc : NULL;
}

const uint8_t *collrt_plan_bytes(const collrt_plan_t *plan, size_t *out_len) {
  if (!plan)
    return NULL;
  if (out_len)
    *out_len = plan->len;
  return plan->bytes;
}

int collrt_plan_needs_exact_size(const collrt_plan_t *plan) {
  return plan ? plan->uses_topology : 0;
}

uint64_t collrt_plan_topology_ranks(const collrt_plan_t *plan) {
  if (!plan)
    return 0;
  const collrt_plan_desc_t *d = &plan->desc;
  return (uint64_t)d->shape[0] * d->shape[1] * d->shape[2] * d->ranks_per_node;
}

/* Only plans that use the topology depend on the communicator's shape; the
 * others (direct, blocked ring) are defined for every size, whatever
 * ranks_per_node says. */
collrt_status_t collrt_plan_check_size(const collrt_plan_t *plan, int size,
                                       collrt_diag_t *diag) {
  const collrt_plan_desc_t *d = &plan->desc;
  if (plan->uses_topology && (uint64_t)size != collrt_plan_topology_ranks(plan)) {
    char shape[64];
    int n = snprintf(shape, sizeof shape, "%u", d->shape[0]);
    for (unsigned k = 1; k < d->ndims && n > 0 && (size_t)n < sizeof shape; ++k)
      n += snprintf(shape + n, sizeof shape - (size_t)n, "x%u", d->shape[k]);
    unsigned all = (1u << d->ndims) - 1;
    const char *kind = (d->wrap_mask & all) == all ? "torus"
                       : (d->wrap_mask & all) == 0 ? "mesh" : "partial torus";
    collrt_diag_set(diag, "communicator has %d ranks but the plan was compiled for shape %s (%s) with %u rank%s per node (%llu ranks)",
                    size, shape, kind, d->ranks_per_node,
                    d->ranks_per_node == 1 ? "" : "s",
                    (unsigned long long)collrt_plan_topology_ranks(plan));
    return COLLRT_ERR_COMM_MISMATCH;
  }
  return COLLRT_OK;
}

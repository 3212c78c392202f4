/* Hand-built plans for the runtime tests: the direct alltoall(v) and the
 * pipelined blocked-ring allgatherv, written in the plan format directly. */
#define _POSIX_C_SOURCE 200809L
#include "test_plans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tp_init(tp_builder_t *b, collrt_op_t op, collrt_algorithm_t alg) {
  memset(b, 0, sizeof *b);
  b->desc.producer_version = 1;
  b->desc.op = (uint8_t)op;
  b->desc.algorithm = (uint8_t)alg;
  b->desc.ndims = 1;
  b->desc.shape[0] = b->desc.shape[1] = b->desc.shape[2] = 1;
  b->desc.ranks_per_node = 1;
  b->desc.alpha_ps = 1000000;
  b->desc.beta_ps_per_byte = 1000;
  b->desc.gamma_ps_per_byte = 100;
  b->desc.nfifos = 1;
  b->desc.nvars = 8;
  b->desc.ntables = 2;
  b->desc.scratch_expr = COLLRT_EXPR_NONE;
  b->fifos[0].send_depth = 8;
  b->fifos[0].recv_depth = 0;
}

static void put(tp_builder_t *b, uint8_t v) {
  if (b->desc.expr_bytes >= sizeof b->exprs) {
    b->error = 1;
    return;
  }
  b->exprs[b->desc.expr_bytes++] = v;
}

static const struct { const char *tok; uint8_t op; } ops[] = {
    {"r", COLLRT_X_RANK}, {"P", COLLRT_X_SIZE}, {"rpn", COLLRT_X_RPN},
    {"scount", COLLRT_X_SCOUNT}, {"sdispl", COLLRT_X_SDISPL},
    {"rcount", COLLRT_X_RCOUNT}, {"rdispl", COLLRT_X_RDISPL},
    {"rsum", COLLRT_X_RCOUNT_SUM}, {"rminpos", COLLRT_X_RCOUNT_MINPOS},
    {"rzeros", COLLRT_X_RCOUNT_ZEROS}, {"+", COLLRT_X_ADD}, {"-", COLLRT_X_SUB},
    {"*", COLLRT_X_MUL}, {"/", COLLRT_X_DIV}, {"%", COLLRT_X_MOD},
    {"min", COLLRT_X_MIN}, {"max", COLLRT_X_MAX}, {"cdiv", COLLRT_X_CEILDIV},
    {"==", COLLRT_X_EQ}, {"!=", COLLRT_X_NE}, {"<", COLLRT_X_LT},
    {"<=", COLLRT_X_LE}, {">", COLLRT_X_GT}, {">=", COLLRT_X_GE},
    {"&&", COLLRT_X_AND}, {"||", COLLRT_X_OR}, {"!", COLLRT_X_NOT},
    {"?", COLLRT_X_SELECT}, {"isqrt", COLLRT_X_ISQRT}, {"rank_at", COLLRT_X_RANK_AT},
};

uint16_t tp_expr(tp_builder_t *b, const char *src) {
  if (!src)
    return COLLRT_EXPR_NONE;
  uint16_t at = b->desc.expr_bytes;
  char buf[512];
  unsigned open_sums[COLLRT_MAX_SUM_NESTING + 1], nopen = 0;
  snprintf(buf, sizeof buf, "%s", src);
  for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    size_t k;
    for (k = 0; k < sizeof ops / sizeof ops[0]; ++k)
      if (!strcmp(t, ops[k].tok))
        break;
    if (k < sizeof ops / sizeof ops[0]) {
      put(b, ops[k].op);
    } else if (!strncmp(t, "tableany", 8)) { /* tableanyT: pops index */
      put(b, COLLRT_X_TABLE_ANY);
      put(b, (uint8_t)atoi(t + 8));
    } else if (!strncmp(t, "tablesum", 8)) { /* tablesumT: pops hi, lo */
      put(b, COLLRT_X_TABLE_SUM);
      put(b, (uint8_t)atoi(t + 8));
    } else if (!strncmp(t, "table", 5)) { /* tableT: pops from, index */
      put(b, COLLRT_X_TABLE);
      put(b, (uint8_t)atoi(t + 5));
    } else if ((!strncmp(t, "sum", 3) || !strncmp(t, "max", 3)) &&
               t[strlen(t) - 1] == '[') { /* sumV[ summand ], maxV[ summand ] */
      put(b, t[0] == 's' ? COLLRT_X_SUM : COLLRT_X_SUM_MAX);
      put(b, (uint8_t)atoi(t + 3));
      if (nopen <= COLLRT_MAX_SUM_NESTING)
        open_sums[nopen++] = b->desc.expr_bytes;
      put(b, 0);
      put(b, 0);
    } else if (!strcmp(t, "]") && nopen) {
      unsigned len_at = open_sums[--nopen], n = b->desc.expr_bytes - len_at - 2u;
      b->exprs[len_at] = (uint8_t)n;
      b->exprs[len_at + 1] = (uint8_t)(n >> 8);
    } else if (t[0] == 'v' || !strncmp(t, "dim", 3) || !strncmp(t, "coord", 5)) {
      put(b, t[0] == 'v' ? COLLRT_X_VAR : t[0] == 'd' ? COLLRT_X_DIM : COLLRT_X_COORD);
      put(b, (uint8_t)atoi(t + (t[0] == 'v' ? 1 : t[0] == 'd' ? 3 : 5)));
    } else if (!strncmp(t, "op", 2)) { /* raw opcode, for invalid plans */
      put(b, (uint8_t)strtol(t + 2, NULL, 16));
    } else {
      char *end;
      long long v = strtoll(t, &end, 0);
      if (*end) {
        fprintf(stderr, "test_plans: bad token '%s'\n", t);
        b->error = 1;
        return at;
      }
      int wide = v < INT32_MIN || v > INT32_MAX;
      put(b, wide ? COLLRT_X_CONST64 : COLLRT_X_CONST32);
      for (int i = 0; i < (wide ? 8 : 4); ++i)
        put(b, (uint8_t)((unsigned long long)v >> (8 * i)));
    }
  }
  put(b, COLLRT_X_END);
  return at;
}

unsigned tp_stmt(tp_builder_t *b, collrt_stmt_kind_t kind, int buf0, int buf1,
                 int slot, const char *const e[8]) {
  if (b->desc.nstmts >= sizeof b->stmts / sizeof b->stmts[0]) {
    b->error = 1;
    return 0;
  }
  unsigned i = b->desc.nstmts++;
  collrt_stmt_t *s = &b->stmts[i];
  memset(s, 0, sizeof *s);
  s->kind = (uint8_t)kind;
  s->buf0 = (uint8_t)buf0;
  s->buf1 = (uint8_t)buf1;
  s->slot = (uint8_t)slot;
  for (int k = 0; k < COLLRT_STMT_EXPRS; ++k)
    s->expr[k] = tp_expr(b, e ? e[k] : NULL);
  return i;
}

void tp_end(tp_builder_t *b, unsigned c) {
  b->stmts[c].body = (uint16_t)(b->desc.nstmts - c - 1);
}

unsigned tp_phase(tp_builder_t *b, int fifo) {
  return tp_stmt(b, COLLRT_STMT_PHASE, 0, 0, fifo, NULL);
}
unsigned tp_for(tp_builder_t *b, int var, const char *lo, const char *hi) {
  const char *e[8] = {lo, hi};
  return tp_stmt(b, COLLRT_STMT_FOR, COLLRT_ORDER_ASCENDING, 0, var, e);
}
unsigned tp_if(tp_builder_t *b, const char *cond) {
  const char *e[8] = {cond};
  return tp_stmt(b, COLLRT_STMT_IF, 0, 0, 0, e);
}
unsigned tp_let(tp_builder_t *b, int var, const char *value) {
  const char *e[8] = {value};
  return tp_stmt(b, COLLRT_STMT_LET, 0, 0, var, e);
}
unsigned tp_send(tp_builder_t *b, int buf, const char *peer, const char *off,
                 const char *len, const char *tag) {
  const char *e[8] = {peer, off, len, tag};
  return tp_stmt(b, COLLRT_STMT_SEND, buf, 0, 0, e);
}
unsigned tp_recv(tp_builder_t *b, int buf, const char *peer, const char *off,
                 const char *len, const char *tag) {
  const char *e[8] = {peer, off, len, tag};
  return tp_stmt(b, COLLRT_STMT_RECV, buf, 0, 0, e);
}
unsigned tp_exchange(tp_builder_t *b) {
  return tp_stmt(b, COLLRT_STMT_EXCHANGE, 0, 0, 0, NULL);
}
unsigned tp_put(tp_builder_t *b, int table, const char *peer, const char *index,
                const char *value) {
  const char *e[8] = {peer, index, value};
  return tp_stmt(b, COLLRT_STMT_PUT, 0, 0, table, e);
}
unsigned tp_copy(tp_builder_t *b, int src, const char *src_off, int dst,
                 const char *dst_off, const char *len) {
  const char *e[8] = {src_off, dst_off, len};
  return tp_stmt(b, COLLRT_STMT_COPY, src, dst, 0, e);
}

collrt_plan_t *tp_finish(tp_builder_t *b) {
  if (b->error) {
    fprintf(stderr, "test_plans: builder error\n");
    return NULL;
  }
  b->desc.fifos = b->fifos;
  b->desc.stmts = b->stmts;
  b->desc.exprs = b->exprs;
  collrt_plan_t *plan = NULL;
  collrt_diag_t diag = {{0}};
  collrt_status_t st = collrt_plan_encode(&b->desc, &plan, &diag);
  if (st) {
    fprintf(stderr, "test_plans: encode failed: %s: %s\n", collrt_strerror(st), diag.message);
    return NULL;
  }
  return plan;
}

/* Direct alltoall(v): copy the own block, then for k in [1, P) receive from
 * (r - k) mod P and send to (r + k) mod P. Vars: 0 = k, 1 = dst, 2 = src. */
void tp_build_direct(tp_builder_t *b, collrt_op_t op, int send_depth) {
  tp_init(b, op, COLLRT_ALG_DIRECT);
  b->fifos[0].send_depth = (uint16_t)send_depth;
  unsigned ph = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "r sdispl", COLLRT_BUF_RECV, "r rdispl", "r scount");
  unsigned f = tp_for(b, 0, "1", "P");
  tp_let(b, 1, "r v0 + P %");
  tp_let(b, 2, "r v0 - P + P %");
  tp_recv(b, COLLRT_BUF_RECV, "v2", "v2 rdispl", "v2 rcount", "0");
  tp_send(b, COLLRT_BUF_SEND, "v1", "v1 sdispl", "v1 scount", "0");
  tp_end(b, f);
  tp_end(b, ph);
}

/* Pipelined blocked-ring allgatherv (block size `block`, an expression).
 * Vars: 5 = B, 0 = j, 1 = o (origin), 2 = n, 3 = k, 4 = offset, 6 = length.
 * Rank r receives the blocks of origin (r - j) mod P from its left for
 * j >= 1 and forwards them to its right while j <= P - 2, each block once it
 * has arrived (event 0, indexed by origin and block). */
void tp_build_ring(tp_builder_t *b, const char *block, int send_depth) {
  tp_init(b, COLLRT_OP_ALLGATHERV, COLLRT_ALG_BLOCKED_RING);
  b->fifos[0].send_depth = (uint16_t)send_depth;
  b->desc.nevents = 1;
  tp_let(b, 5, block);
  unsigned ph = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "0", COLLRT_BUF_RECV, "r rdispl", "r rcount");
  unsigned fj = tp_for(b, 0, "0", "P");
  tp_let(b, 1, "r v0 - P + P %");
  tp_let(b, 2, "v1 rcount");
  unsigned fk = tp_for(b, 3, "0", "v2 v5 cdiv");
  tp_let(b, 4, "v1 rdispl v3 v5 * +");
  tp_let(b, 6, "v5 v2 v3 v5 * - min");
  unsigned i1 = tp_if(b, "v0 1 >=");
  unsigned rc = tp_recv(b, COLLRT_BUF_RECV, "r 1 - P + P %", "v4", "v6", "0");
  b->stmts[rc].signal_event = 1;
  b->stmts[rc].expr[COLLRT_E_SIGNAL_I] = tp_expr(b, "v1");
  b->stmts[rc].expr[COLLRT_E_SIGNAL_J] = tp_expr(b, "v3");
  tp_end(b, i1);
  unsigned i2 = tp_if(b, "v0 0 == P 1 > &&");
  tp_send(b, COLLRT_BUF_SEND, "r 1 + P %", "v3 v5 *", "v6", "0");
  tp_end(b, i2);
  unsigned i3 = tp_if(b, "v0 1 >= v0 P 2 - <= &&");
  unsigned sd = tp_send(b, COLLRT_BUF_RECV, "r 1 + P %", "v4", "v6", "0");
  b->stmts[sd].wait_event = 1;
  b->stmts[sd].expr[COLLRT_E_WAIT_I] = tp_expr(b, "v1");
  b->stmts[sd].expr[COLLRT_E_WAIT_J] = tp_expr(b, "v3");
  tp_end(b, i3);
  tp_end(b, fk);
  tp_end(b, fj);
  tp_end(b, ph);
}

void tp_build_direct_topo(tp_builder_t *b, unsigned x, unsigned y, unsigned z) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  b->desc.ndims = 3;
  b->desc.wrap_mask = 7;
  b->desc.shape[0] = x;
  b->desc.shape[1] = y;
  b->desc.shape[2] = z;
  const char *n = "dim0 dim1 * dim2 * rpn *";
  char dst[128], src[128];
  snprintf(dst, sizeof dst, "r v0 + %s %%", n);
  snprintf(src, sizeof src, "r v0 - %s + %s %%", n, n);
  unsigned ph = tp_phase(b, 0);
  tp_copy(b, COLLRT_BUF_SEND, "r sdispl", COLLRT_BUF_RECV, "r rdispl", "r scount");
  unsigned f = tp_for(b, 0, "1", n);
  tp_let(b, 1, dst);
  tp_let(b, 2, src);
  tp_recv(b, COLLRT_BUF_RECV, "v2", "v2 rdispl", "v2 rcount", "0");
  tp_send(b, COLLRT_BUF_SEND, "v1", "v1 sdispl", "v1 scount", "0");
  tp_end(b, f);
  tp_end(b, ph);
}

unsigned tp_seg(tp_builder_t *b, int side, int buf, const char *off, const char *len) {
  const char *e[8] = {off, len};
  return tp_stmt(b, COLLRT_STMT_SEG, buf, 0, side, e);
}

unsigned tp_dep(tp_builder_t *b, int event, const char *i, const char *j) {
  const char *e[8] = {NULL, NULL, NULL, NULL, i, j};
  unsigned s = tp_stmt(b, COLLRT_STMT_DEP, 0, 0, 0, e);
  b->stmts[s].wait_event = (uint8_t)(event + 1);
  return s;
}

void tp_wait(tp_builder_t *b, unsigned s, int event, const char *i, const char *j) {
  b->stmts[s].wait_event = (uint8_t)(event + 1);
  b->stmts[s].expr[COLLRT_E_WAIT_I] = tp_expr(b, i);
  b->stmts[s].expr[COLLRT_E_WAIT_J] = tp_expr(b, j);
}

void tp_signal(tp_builder_t *b, unsigned s, int event, const char *i, const char *j) {
  b->stmts[s].signal_event = (uint8_t)(event + 1);
  b->stmts[s].expr[COLLRT_E_SIGNAL_I] = tp_expr(b, i);
  b->stmts[s].expr[COLLRT_E_SIGNAL_J] = tp_expr(b, j);
}

/* Two-phase alltoall on an X x Y torus (seed 000's TPS in two dimensions),
 * c = the uniform block. Vars: 0 = x2 / x1, 1 = y', 2 = c, 3 = peer.
 * Phase 1 (FIFO 0, the line): to m = (x2, y(r)) one gathered message of the
 * Y blocks whose destination has x == x2; from m into stage slot x2 % slots
 * (signals arrived[x2]). Phase 2 (FIFO 1, the plane):
 *   combine: to each (x(r), y') one gathered message of block y' of every
 *            stage, after all X arrivals (a join of DEPs), received as one
 *            gathered message scattered to the X sources' receive blocks;
 *   else:    stage by stage, block by block, each send signalling
 *            freed[x1] (Y signallers: a counted event); with slots < X the
 *            phase-1 receive into a reused slot waits on freed[x2 - slots],
 *            a forward wait on later statements (credit flow control). */
void tp_build_two_phase(tp_builder_t *b, unsigned X, unsigned Y, unsigned slots, int combine) {
  tp_init(b, COLLRT_OP_ALLTOALL, COLLRT_ALG_DIRECT);
  b->desc.ndims = 2;
  b->desc.wrap_mask = 3;
  b->desc.shape[0] = X;
  b->desc.shape[1] = Y;
  b->desc.nfifos = 2;
  b->fifos[0].send_depth = b->fifos[1].send_depth = 4;
  b->desc.nevents = 2;
  char scratch[64];
  snprintf(scratch, sizeof scratch, "%u dim1 * r scount *", slots);
  b->desc.scratch_expr = tp_expr(b, scratch);
  char slot_off[96], credit[48], no_credit[48];
  snprintf(slot_off, sizeof slot_off, "v0 %u %% dim1 * v2 *", slots);
  snprintf(credit, sizeof credit, "v0 %u >=", slots);
  snprintf(no_credit, sizeof no_credit, "v0 %u <", slots);
  tp_let(b, 2, "r scount");
  unsigned ph = tp_phase(b, 0);
  unsigned f = tp_for(b, 0, "0", "dim0");
  tp_let(b, 3, "v0 r coord1 0 rank_at");
  unsigned sd = tp_stmt(b, COLLRT_STMT_SEND, 0, 0, COLLRT_GATHER_SRC,
                        (const char *const[8]){"v3", NULL, NULL, "0"});
  unsigned g = tp_for(b, 1, "0", "dim1");
  tp_seg(b, COLLRT_SIDE_SRC, COLLRT_BUF_SEND, "v0 v1 0 rank_at sdispl", "v2");
  tp_end(b, g);
  tp_end(b, sd);
  unsigned i1 = tp_if(b, credit);
  unsigned rc = tp_recv(b, COLLRT_BUF_SCRATCH, "v3", slot_off, "dim1 v2 *", "0");
  tp_signal(b, rc, 0, "v0", NULL);
  char back[48];
  snprintf(back, sizeof back, "v0 %u -", slots);
  tp_wait(b, rc, 1, back, NULL);
  tp_end(b, i1);
  unsigned i2 = tp_if(b, no_credit);
  rc = tp_recv(b, COLLRT_BUF_SCRATCH, "v3", slot_off, "dim1 v2 *", "0");
  tp_signal(b, rc, 0, "v0", NULL);
  tp_end(b, i2);
  tp_end(b, f);
  tp_end(b, ph);

  ph = tp_phase(b, 1);
  if (combine) {
    f = tp_for(b, 1, "0", "dim1");
    tp_let(b, 3, "r coord0 v1 0 rank_at");
    sd = tp_stmt(b, COLLRT_STMT_SEND, 0, 0, COLLRT_GATHER_SRC,
                 (const char *const[8]){"v3", NULL, NULL, "0"});
    g = tp_for(b, 0, "0", "dim0");
    char seg[96];
    snprintf(seg, sizeof seg, "v0 %u %% dim1 * v1 + v2 *", slots);
    tp_seg(b, COLLRT_SIDE_SRC, COLLRT_BUF_SCRATCH, seg, "v2");
    tp_dep(b, 0, "v0", NULL);
    tp_end(b, g);
    tp_end(b, sd);
    rc = tp_stmt(b, COLLRT_STMT_RECV, 0, 0, COLLRT_GATHER_SRC,
                 (const char *const[8]){"v3", NULL, NULL, "0"});
    g = tp_for(b, 0, "0", "dim0");
    tp_seg(b, COLLRT_SIDE_SRC, COLLRT_BUF_RECV, "v0 v1 0 rank_at rdispl", "v2");
    tp_end(b, g);
    tp_end(b, rc);
    tp_end(b, f);
  } else {
    f = tp_for(b, 0, "0", "dim0");
    g = tp_for(b, 1, "0", "dim1");
    tp_let(b, 3, "r coord0 v1 0 rank_at");
    char from[96];
    snprintf(from, sizeof from, "v0 %u %% dim1 * v1 + v2 *", slots);
    sd = tp_send(b, COLLRT_BUF_SCRATCH, "v3", from, "v2", "0");
    tp_wait(b, sd, 0, "v0", NULL);
    tp_signal(b, sd, 1, "v0", NULL);
    tp_recv(b, COLLRT_BUF_RECV, "v3", "v0 v1 0 rank_at rdispl", "v2", "0");
    tp_end(b, g);
    tp_end(b, f);
  }
  tp_end(b, ph);
}

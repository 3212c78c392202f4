/* Small hand-built plans for the runtime's own tests (the compiler is not
 * needed to test the runtime). Expressions are written as space-separated
 * postfix tokens, e.g. "r v0 + P %" = (rank + var0) % size. */
#ifndef COLLRT_TEST_PLANS_H
#define COLLRT_TEST_PLANS_H

#include "collc/plan.h"

typedef struct tp_builder {
  collrt_plan_desc_t desc;
  collrt_fifo_desc_t fifos[COLLRT_MAX_FIFOS];
  collrt_stmt_t stmts[256];
  uint8_t exprs[8192];
  int error; /* set when a token does not parse or a table overflows */
} tp_builder_t;

void tp_init(tp_builder_t *b, collrt_op_t op, collrt_algorithm_t alg);
/* Appends an expression; returns its pool offset. NULL -> COLLRT_EXPR_NONE. */
uint16_t tp_expr(tp_builder_t *b, const char *postfix);
/* Appends a statement with expressions e[0..7] (NULL = NONE); returns its
 * index. Containers are closed with tp_end. */
unsigned tp_stmt(tp_builder_t *b, collrt_stmt_kind_t kind, int buf0, int buf1,
                 int slot, const char *const e[8]);
void tp_end(tp_builder_t *b, unsigned container);

unsigned tp_phase(tp_builder_t *b, int fifo);
unsigned tp_for(tp_builder_t *b, int var, const char *lo, const char *hi);
unsigned tp_if(tp_builder_t *b, const char *cond);
unsigned tp_let(tp_builder_t *b, int var, const char *value);
unsigned tp_send(tp_builder_t *b, int buf, const char *peer, const char *off,
                 const char *len, const char *tag);
unsigned tp_recv(tp_builder_t *b, int buf, const char *peer, const char *off,
                 const char *len, const char *tag);
unsigned tp_copy(tp_builder_t *b, int src, const char *src_off, int dst,
                 const char *dst_off, const char *len);
/* The bind-time exchange: an EXCHANGE container and its PUTs. In
 * expressions, "tableT" pops from and index, "sumV[ ... ]" sums the
 * bracketed summand over vV in [lo, hi) (popped). */
unsigned tp_exchange(tp_builder_t *b);
unsigned tp_put(tp_builder_t *b, int table, const char *peer, const char *index,
                const char *value);

/* v2: a segment of the enclosing gathered transfer, an extra wait (DEP),
 * and the wait / signal of transfer statement `s`. */
unsigned tp_seg(tp_builder_t *b, int side, int buf, const char *off, const char *len);
unsigned tp_dep(tp_builder_t *b, int event, const char *i, const char *j);
void tp_wait(tp_builder_t *b, unsigned s, int event, const char *i, const char *j);
void tp_signal(tp_builder_t *b, unsigned s, int event, const char *i, const char *j);

/* Encodes; returns NULL (and prints the diagnostic) on failure. */
collrt_plan_t *tp_finish(tp_builder_t *b);

/* The reference programs (see test_plans.c). */
void tp_build_direct(tp_builder_t *b, collrt_op_t op, int send_depth);
void tp_build_ring(tp_builder_t *b, const char *block, int send_depth);
/* Direct alltoall whose size comes from the topology (needs exact size). */
void tp_build_direct_topo(tp_builder_t *b, unsigned x, unsigned y, unsigned z);

/* Two-phase alltoall on an X x Y torus with `slots` stage buffers; see
 * test_plans.c. */
void tp_build_two_phase(tp_builder_t *b, unsigned X, unsigned Y, unsigned slots, int combine);

#endif

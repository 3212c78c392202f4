/* Evaluation of plan expressions for one rank. */
#ifndef COLLRT_EXPR_EVAL_H
#define COLLRT_EXPR_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "collc/plan.h"

typedef struct collrt_expr_ctx {
  const collrt_plan_desc_t *desc;
  const collrt_expand_input_t *in; /* rank, size, counts, displacements, tables */
  int64_t *vars;                   /* SUM sets its variable, then restores it */
  uint64_t *sum_budget;            /* SUM iterations left (the bind budget) */
} collrt_expr_ctx_t;

/* Evaluates the (validated) expression at pool offset `ref`. On error returns
 * COLLRT_ERR_BOUNDS and writes the reason (no location) to `why`. */
collrt_status_t collrt_expr_eval(const collrt_expr_ctx_t *ctx, uint16_t ref,
                                 int64_t *out, char *why, size_t why_len);

/* Floor division and modulo; *ok = 0 on division by zero or overflow. */
int64_t collrt_floordiv(int64_t a, int64_t b, int *ok);
int64_t collrt_floormod(int64_t a, int64_t b, int *ok);

#endif

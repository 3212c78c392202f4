/* Plan encoding: the compiler's side of the format. The result is decoded
 * and validated by the same code that loads plans, so an encoder bug cannot
 * produce a plan the runtime would accept differently. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "plan_internal.h"

collrt_status_t collrt_plan_encode(const collrt_plan_desc_t *d,
                                   collrt_plan_t **out_plan,
                                   collrt_diag_t *diag) {
  if (!d || !out_plan || (d->nfifos && !d->fifos) || (d->nstmts && !d->stmts) ||
      (d->expr_bytes && !d->exprs)) {
    collrt_diag_set(diag, "collrt_plan_encode: a NULL descriptor, output or array");
    return COLLRT_ERR_ARG;
  }
  *out_plan = NULL;
  size_t len = COLLRT_PLAN_HEADER_BYTES + (size_t)COLLRT_PLAN_FIFO_BYTES * d->nfifos +
               (size_t)COLLRT_PLAN_STMT_BYTES * d->nstmts + d->expr_bytes;
  uint8_t *b = calloc(1, len);
  if (!b) {
    collrt_diag_set(diag, "cannot allocate %zu bytes for the plan", len);
    return COLLRT_ERR_NOMEM;
  }
  memcpy(b, COLLRT_PLAN_MAGIC, 8);
  collrt_wr16(b + COLLRT_H_VERSION, COLLRT_PLAN_FORMAT_VERSION);
  collrt_wr16(b + COLLRT_H_PRODUCER, d->producer_version);
  collrt_wr32(b + COLLRT_H_TOTAL, (uint32_t)len);
  b[COLLRT_H_OP] = d->op;
  b[COLLRT_H_ALG] = d->algorithm;
  b[COLLRT_H_NDIMS] = d->ndims;
  b[COLLRT_H_WRAP] = d->wrap_mask;
  for (int k = 0; k < COLLRT_MAX_DIMS; ++k)
    collrt_wr32(b + COLLRT_H_SHAPE + 4 * k, d->shape[k]);
  collrt_wr32(b + COLLRT_H_RPN, d->ranks_per_node);
  collrt_wr32(b + COLLRT_H_ALPHA, d->alpha_ps);
  collrt_wr32(b + COLLRT_H_BETA, d->beta_ps_per_byte);
  collrt_wr32(b + COLLRT_H_GAMMA, d->gamma_ps_per_byte);
  b[COLLRT_H_NFIFOS] = d->nfifos;
  b[COLLRT_H_NEVENTS] = d->nevents;
  b[COLLRT_H_NVARS] = d->nvars;
  b[COLLRT_H_FLAGS] = d->flags;
  collrt_wr16(b + COLLRT_H_NSTMTS, d->nstmts);
  collrt_wr16(b + COLLRT_H_EXPR_BYTES, d->expr_bytes);
  collrt_wr16(b + COLLRT_H_SCRATCH, d->scratch_expr);
  b[COLLRT_H_NTABLES] = d->ntables;
  collrt_wr64(b + COLLRT_H_BLOCK_MIN, d->block_bytes_min);
  /* a description that leaves the range zeroed means any size */
  collrt_wr64(b + COLLRT_H_BLOCK_MAX, d->block_bytes_max ? d->block_bytes_max : UINT64_MAX);
  uint8_t *p = b + COLLRT_PLAN_HEADER_BYTES;
  for (unsigned f = 0; f < d->nfifos; ++f, p += COLLRT_PLAN_FIFO_BYTES) {
    collrt_wr16(p, d->fifos[f].send_depth);
    collrt_wr16(p + 2, d->fifos[f].recv_depth);
  }
  for (unsigned i = 0; i < d->nstmts; ++i, p += COLLRT_PLAN_STMT_BYTES) {
    const collrt_stmt_t *s = &d->stmts[i];
    p[0] = s->kind;
    p[1] = s->buf0;
    p[2] = s->buf1;
    p[3] = s->slot;
    p[4] = s->wait_event;
    p[5] = s->signal_event;
    collrt_wr16(p + 6, s->body);
    for (int e = 0; e < COLLRT_STMT_EXPRS; ++e)
      collrt_wr16(p + 8 + 2 * e, s->expr[e]);
  }
  if (d->expr_bytes)
    memcpy(p, d->exprs, d->expr_bytes);
  collrt_wr32(b + COLLRT_H_CHECKSUM,
              collrt_crc32(b + COLLRT_PLAN_CHECKED_FROM, len - COLLRT_PLAN_CHECKED_FROM));
  return collrt_plan_decode_owned(b, len, out_plan, diag);
}

/* Plan encoding: the compiler's side of the format. The result is decoded
 * and validated by the same code that loads plans, so an encoder bug cannot
 * produce a plan the runtime would accept differently. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "plan_internal.h"

/* The byte fields a statement may omit, by their bit in `fields` (bit 5 is
 * the body), written after the masks in bit order. */
static uint8_t *stmt_fields(collrt_stmt_t *s, unsigned k) {
  uint8_t *fields[] = {&s->buf0, &s->buf1, &s->slot, &s->wait_event, &s->signal_event,
                       NULL, &s->rop, &s->rtype};
  return fields[k];
}

size_t collrt_stmt_encode(const collrt_stmt_t *s, uint8_t *out) {
  collrt_stmt_t c = *s;
  uint8_t *p = out + 3, fields = 0, exprs = 0;
  for (unsigned k = 0; k < 8; ++k)
    if ((COLLRT_STMT_BYTE_FIELDS >> k & 1u) && *stmt_fields(&c, k)) {
      fields |= (uint8_t)(1u << k);
      *p++ = *stmt_fields(&c, k);
    }
  if (c.body) {
    fields |= COLLRT_STMT_HAS_BODY;
    collrt_wr16(p, c.body);
    p += 2;
  }
  for (int e = 0; e < COLLRT_STMT_EXPRS; ++e)
    if (c.expr[e] != COLLRT_EXPR_NONE) {
      exprs |= (uint8_t)(1u << e);
      collrt_wr16(p, c.expr[e]);
      p += 2;
    }
  out[0] = c.kind;
  out[1] = fields;
  out[2] = exprs;
  return (size_t)(p - out);
}

size_t collrt_stmt_decode(const uint8_t *p, const uint8_t *end, collrt_stmt_t *s) {
  const uint8_t *at = p;
  if (end - p < 3)
    return 0;
  memset(s, 0, sizeof *s);
  s->kind = p[0];
  uint8_t fields = p[1], exprs = p[2];
  p += 3;
  for (unsigned k = 0; k < 8; ++k)
    if ((COLLRT_STMT_BYTE_FIELDS >> k & 1u) && (fields >> k & 1u)) {
      if (p >= end || *p == 0)
        return 0;
      *stmt_fields(s, k) = *p++;
    }
  if (fields & COLLRT_STMT_HAS_BODY) {
    if (end - p < 2 || collrt_rd16(p) == 0)
      return 0;
    s->body = collrt_rd16(p);
    p += 2;
  }
  for (int e = 0; e < COLLRT_STMT_EXPRS; ++e) {
    s->expr[e] = COLLRT_EXPR_NONE;
    if (exprs >> e & 1u) {
      if (end - p < 2 || collrt_rd16(p) == COLLRT_EXPR_NONE)
        return 0;
      s->expr[e] = collrt_rd16(p);
      p += 2;
    }
  }
  return (size_t)(p - at);
}

collrt_status_t collrt_plan_encode(const collrt_plan_desc_t *d,
                                   collrt_plan_t **out_plan,
                                   collrt_diag_t *diag) {
  if (!d || !out_plan || (d->nfifos && !d->fifos) || (d->nstmts && !d->stmts) ||
      (d->expr_bytes && !d->exprs)) {
    collrt_diag_set(diag, "collrt_plan_encode: a NULL descriptor, output or array");
    return COLLRT_ERR_ARG;
  }
  *out_plan = NULL;
  size_t stmt_bytes = 0;
  uint8_t scratch[COLLRT_PLAN_STMT_MAX_BYTES];
  for (unsigned i = 0; i < d->nstmts; ++i)
    stmt_bytes += collrt_stmt_encode(&d->stmts[i], scratch);
  size_t len = COLLRT_PLAN_HEADER_BYTES + (size_t)COLLRT_PLAN_FIFO_BYTES * d->nfifos +
               stmt_bytes + d->expr_bytes;
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
  for (unsigned i = 0; i < d->nstmts; ++i)
    p += collrt_stmt_encode(&d->stmts[i], p);
  if (d->expr_bytes)
    memcpy(p, d->exprs, d->expr_bytes);
  collrt_wr32(b + COLLRT_H_CHECKSUM,
              collrt_crc32(b + COLLRT_PLAN_CHECKED_FROM, len - COLLRT_PLAN_CHECKED_FROM));
  return collrt_plan_decode_owned(b, len, out_plan, diag);
}

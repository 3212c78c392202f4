/* Rebinding a bound collective to new buffers: the local half of a bind.
 * Counts, steps, FIFO communicators and scratch stay; only what depends on
 * the buffer addresses changes. Lets a caller that keeps bound collectives
 * (the PMPI library's plan cache) serve a repeated call without a collective
 * bind. */
#include <stdlib.h>

#include "coll_internal.h"
#include "diag.h"

/* Gathered transfers are hindexed datatypes over ABSOLUTE addresses (bind.c,
 * build_datatypes), so a step whose segments lie in the send or receive
 * buffer needs its datatype built again; one in scratch only keeps it. */
static int touches_user_buffers(const collrt_coll_t *c, const collrt_step_t *s) {
  for (uint32_t k = 0; k < s->nsrc; ++k)
    if (c->steps.segs[s->seg_begin + k].buf != COLLRT_BUF_SCRATCH)
      return 1;
  return 0;
}

/* Builds every new datatype before replacing any, so that a failure leaves
 * the handle bound to the old buffers, whole. */
static collrt_status_t rebuild_datatypes(collrt_coll_t *c, collrt_diag_t *diag) {
  size_t n = c->steps.count, most = 0;
  for (size_t i = 0; i < n; ++i)
    if (c->dtype[i] != MPI_DATATYPE_NULL && c->steps.steps[i].nsrc > most)
      most = c->steps.steps[i].nsrc;
  int *lens = malloc((most + 1) * sizeof *lens);
  MPI_Aint *displs = malloc((most + 1) * sizeof *displs);
  MPI_Datatype *fresh = malloc((n + 1) * sizeof *fresh);
  collrt_status_t st = COLLRT_OK;
  if (!lens || !displs || !fresh) {
    collrt_diag_set(diag, "collrt_coll_rebind: cannot allocate datatypes for %zu steps", n);
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  for (size_t i = 0; i < n; ++i)
    fresh[i] = MPI_DATATYPE_NULL;
  for (size_t i = 0; i < n && !st; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    if (c->dtype[i] == MPI_DATATYPE_NULL || !touches_user_buffers(c, s))
      continue;
    st = collrt_gathered_type(c, i, lens, displs, &fresh[i], diag);
  }
  for (size_t i = 0; i < n; ++i) {
    if (fresh[i] == MPI_DATATYPE_NULL)
      continue;
    MPI_Datatype *drop = st ? &fresh[i] : &c->dtype[i];
    MPI_Type_free(drop);
    if (!st)
      c->dtype[i] = fresh[i];
  }
out:
  free(lens);
  free(displs);
  free(fresh);
  return st;
}

collrt_status_t collrt_coll_rebind(collrt_coll_t *c, const void *sendbuf, void *recvbuf,
                                   collrt_diag_t *diag) {
  if (!c) {
    collrt_diag_set(diag, "collrt_coll_rebind: coll is NULL");
    return COLLRT_ERR_ARG;
  }
  if (c->running || c->outcome) {
    collrt_diag_set(diag, "collrt_coll_rebind on rank %d: the collective is running; wait for it first",
                    c->rank);
    return COLLRT_ERR_STATE;
  }
  /* bound in place, the send side stays the bind's copy (each start makes
   * it): MPI_IN_PLACE again, or the copy itself */
  if (c->in_place && (sendbuf == MPI_IN_PLACE || sendbuf == c->in_place))
    sendbuf = c->in_place;
  if (c->recv_sink)
    recvbuf = c->recv_sink;
  uint8_t *send = (uint8_t *)(uintptr_t)sendbuf, *recv = recvbuf;
  /* The steps were expanded for the bound extents; a NULL buffer is only
   * right where the bind's was NULL too (nothing to move). */
  if (sendbuf == MPI_IN_PLACE || (c->in_place && send != c->in_place) ||
      (!send && c->buf[COLLRT_BUF_SEND]) || (!recv && c->buf[COLLRT_BUF_RECV])) {
    collrt_diag_set(diag, "collrt_coll_rebind on rank %d: %s", c->rank,
                    sendbuf == MPI_IN_PLACE ? "MPI_IN_PLACE is supported only by a collective bound with it (collrt_bind_allreduce)"
                    : c->in_place ? "the collective was bound with MPI_IN_PLACE and rebinds only with it"
                                  : "a buffer is NULL but was bound non-NULL");
    return COLLRT_ERR_ARG;
  }
  if (send == c->buf[COLLRT_BUF_SEND] && recv == c->buf[COLLRT_BUF_RECV])
    return COLLRT_OK;
  uint8_t *old_send = c->buf[COLLRT_BUF_SEND], *old_recv = c->buf[COLLRT_BUF_RECV];
  c->buf[COLLRT_BUF_SEND] = send;
  c->buf[COLLRT_BUF_RECV] = recv;
  collrt_status_t st = c->dtype ? rebuild_datatypes(c, diag) : COLLRT_OK;
  if (st) {
    c->buf[COLLRT_BUF_SEND] = old_send;
    c->buf[COLLRT_BUF_RECV] = old_recv;
  } else {
    collrt_shm_rebind(c); /* receivers on this node read the new addresses */
  }
  return st;
}

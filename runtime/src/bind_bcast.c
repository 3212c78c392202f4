/* Binding a bcast plan to MPI_Bcast's one buffer.
 *
 * A bcast plan reads the root's send buffer and leaves the root's bytes in
 * every rank's receive buffer, the root's own included (the verifier proves
 * it, with rank 0 as the root; another root runs it relabeled: rank r
 * takes the part of rank (r − root) mod P). MPI_Bcast has one buffer, the root's data
 * there and the result elsewhere, so the bind passes it as both sides.
 * Off the root, the plan's output is what the buffer must hold. At the root
 * the buffer already holds the result, and the plan must not overwrite bytes
 * it has not sent yet: its own copy of its data into its receive buffer (a
 * COPY of the same bytes to the same offset) moves nothing, but a plan that
 * stages anything else in the root's receive buffer gets a receive buffer
 * of its own there (a sink the bind owns), and the root's data is read from
 * the untouched user buffer. */
#include <stdlib.h>

#include "coll_internal.h"
#include "diag.h"

/* Whether step s of the root writes its receive buffer with anything but
 * the same bytes of its send buffer, where one buffer is both. */
static int writes_root_buffer(const collrt_steps_t *ss, const collrt_step_t *s) {
  if (s->kind != COLLRT_STEP_RECV && s->kind != COLLRT_STEP_COPY && s->kind != COLLRT_STEP_REDUCE)
    return 0;
  if (s->kind == COLLRT_STEP_COPY && !s->nsrc && !s->ndst && s->buf == COLLRT_BUF_SEND &&
      s->dst_buf == COLLRT_BUF_RECV && s->off == s->dst_off)
    return 0; /* its own bytes where they are */
  collrt_region_t r;
  collrt_step_dest(ss, s, &r);
  if (!r.nsegs)
    return r.whole.buf == COLLRT_BUF_RECV;
  for (uint32_t k = 0; k < r.nsegs; ++k)
    if (r.segs[k].buf == COLLRT_BUF_RECV)
      return 1;
  return 0;
}

int collrt_bcast_takes_root(const collrt_plan_t *plan, int root) {
  /* the relabeling moves ranks between nodes, and a node's ranks share the
   * arena's counters as the plan's node of ranks */
  return root == 0 || !collrt_plan_has_arena(plan);
}

collrt_status_t collrt_bind_bcast(const collrt_plan_t *plan, MPI_Comm comm, void *buffer,
                                  int count, MPI_Datatype type, int root, unsigned flags,
                                  collrt_coll_t **out, collrt_diag_t *diag) {
  collrt_status_t st = COLLRT_OK;
  /* every rank passes the same root (MPI requires it), so every rank fails
   * alike, inside the bind's agreement */
  int rank = -1, size = 0, tsize = 0;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  if (comm != MPI_COMM_NULL && (root < 0 || root >= size)) {
    collrt_diag_set(diag, "collrt_bind_bcast: root %d is not a rank of the communicator's %d", root,
                    size);
    st = COLLRT_ERR_ARG;
  } else if (plan && !collrt_bcast_takes_root(plan, root)) {
    collrt_diag_set(diag, "collrt_bind_bcast: root %d, but the plan's node arena ties its ranks to their nodes: it broadcasts from rank 0 only", root);
    st = COLLRT_ERR_ARG;
  }
  /* the root's sink, in case its steps need one: allocated before the bind,
   * so that running out of memory fails every rank together */
  uint8_t *sink = NULL;
  if (!st && rank == root && type != MPI_DATATYPE_NULL && count >= 0) {
    MPI_Type_size(type, &tsize);
    if (!(sink = malloc((size_t)count * (size_t)(tsize > 0 ? tsize : 0) + 1))) {
      collrt_diag_set(diag, "collrt_bind_bcast on the root: cannot allocate %lld bytes",
                      (long long)count * tsize);
      st = COLLRT_ERR_NOMEM;
    }
  }
  st = collrt_bind_one_message(plan, comm, COLLRT_OP_BCAST, buffer, buffer, count, type,
                               st ? 0 : root, flags, st, out, diag);
  if (st || rank != root) {
    free(sink);
    return st;
  }
  collrt_coll_t *c = *out;
  int staged = 0;
  for (size_t i = 0; i < c->steps.count && !staged; ++i)
    staged = writes_root_buffer(&c->steps, &c->steps.steps[i]);
  /* local, no communication: where it fails (an MPI datatype for a gathered
   * step), the peers, already bound, fail on their first run instead */
  if (staged && (st = collrt_coll_rebind(c, buffer, sink, diag))) {
    free(sink);
    collrt_coll_free(c);
    *out = NULL;
    return st;
  }
  if (staged)
    c->recv_sink = sink;
  else
    free(sink);
  return COLLRT_OK;
}

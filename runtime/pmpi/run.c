/* Plan runs for intercepted calls, and the runs in flight.
 *
 * A cached collective serves every later call of its key, but one bound
 * collective executes one run at a time. A program may start a second
 * nonblocking call of the same key before it completed the first, and
 * whether the first is complete on this rank is local knowledge: choosing
 * another collective (a new bind) on one rank and not on another would
 * leave them in different collectives. So the second run queues behind the
 * first on every rank alike, and starts when the first ends; collectives on
 * a communicator start in the same order on every rank, so the queues do
 * too.
 *
 * Every completion call the library sees advances every run in flight
 * (the runtime's engine advances every started collective; pmpi_progress
 * harvests the ones that ended and starts what queued behind them). */
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

static pmpi_run_t **inflight;
static int ninflight, cap;

static int track(pmpi_run_t *r) {
  if (ninflight == cap) {
    int ncap = cap ? 2 * cap : 16;
    pmpi_run_t **n = realloc(inflight, (size_t)ncap * sizeof *n);
    if (!n)
      return MPI_ERR_NO_MEM;
    inflight = n;
    cap = ncap;
  }
  inflight[ninflight++] = r;
  return MPI_SUCCESS;
}

static void untrack(pmpi_run_t *r) {
  for (int k = 0; k < ninflight; ++k)
    if (inflight[k] == r) {
      inflight[k] = inflight[--ninflight];
      return;
    }
}

int pmpi_runs_in_flight(void) { return ninflight; }

int pmpi_run_init(pmpi_run_t *r, const pmpi_call_t *call, pmpi_entry_t *e, collrt_coll_t *owned) {
  /* every field but the diagnostic (written only on failure): a served
   * call costs no 512-byte clear */
  memset(r, 0, offsetof(pmpi_run_t, diag));
  r->diag.message[0] = 0;
  r->next = NULL;
  r->coll = e ? e->coll : owned;
  r->entry = e;
  r->what = call->what;
  r->comm = call->comm;
  r->sendbuf = call->sendbuf;
  r->recvbuf = call->recvbuf;
  r->state = PMPI_RUN_IDLE;
  r->op = call->key.op;
  r->recount = call->recount;
  r->sendcount = call->sendcount;
  r->sc = call->sc, r->sd = call->sd, r->rc = call->rc, r->rd = call->rd;
  r->type = call->type;
  r->vpack = call->vpack;
  if (r->vpack) {
    r->stype = call->vstype;
    r->rtype = call->vrtype;
    PMPI_Comm_size(call->comm, &r->size);
    if (!(r->vbytes = malloc(4 * (size_t)r->size * sizeof *r->vbytes)))
      return MPI_ERR_NO_MEM;
  }
  if (call->pack) {
    r->pack = 1;
    r->stype = call->stype;
    r->rtype = call->rtype;
    /* alltoall: the whole buffers, a block per rank; bcast: the buffer */
    int size = 1;
    if (call->key.op != COLLRT_OP_BCAST)
      PMPI_Comm_size(call->comm, &size);
    r->scount = call->scount * size;
    r->rcount = call->rcount * size;
    r->packed_bytes = call->block * size;
    if (call->key.op == COLLRT_OP_BCAST) {
      int rank = 0;
      PMPI_Comm_rank(call->comm, &rank);
      r->pack_root = rank == call->root;
    }
    r->packed_send = malloc((size_t)r->packed_bytes + 1);
    r->packed_recv = malloc((size_t)r->packed_bytes + 1);
    if (!r->packed_send || !r->packed_recv) {
      free(r->packed_send);
      free(r->packed_recv);
      return MPI_ERR_NO_MEM;
    }
  }
  if (call->in_place_bytes && !r->pack && !r->vpack) {
    r->in_place_bytes = call->in_place_bytes;
    r->in_place_src = call->sendbuf;
    if (!(r->in_place_copy = malloc((size_t)r->in_place_bytes))) {
      r->entry = NULL; /* no reference taken yet */
      pmpi_run_free(r);
      return MPI_ERR_NO_MEM;
    }
    r->sendbuf = r->in_place_copy;
  }
  if (e)
    e->refs++;
  return MPI_SUCCESS;
}

void pmpi_run_free(pmpi_run_t *r) {
  if (r->vpack) {
    free(r->vbytes);
    free(r->vsend);
    free(r->vrecv);
    r->vpack = 0;
  }
  if (r->pack) {
    free(r->packed_send);
    free(r->packed_recv);
  }
  free(r->in_place_copy);
  r->in_place_copy = NULL;
  if (r->entry)
    pmpi_entry_release(r->entry);
  r->entry = NULL;
  r->pack = 0;
}

static void fail(pmpi_run_t *r, const char *fmt, const char *detail) {
  r->state = PMPI_RUN_FAILED;
  snprintf(r->diag.message, sizeof r->diag.message, fmt, detail);
}

/* Packs the send side into the bytes the plan moves. MPI_Pack of the whole
 * buffer (count * P elements) is the blocks in rank order, each packed. */
static int pack_send(pmpi_run_t *r) {
  int position = 0;
  int rc = PMPI_Pack(r->sendbuf, r->scount, r->stype, r->packed_send, (int)r->packed_bytes,
                     &position, r->comm);
  if (rc != MPI_SUCCESS || position != r->packed_bytes) {
    char why[128];
    snprintf(why, sizeof why, "MPI_Pack gave %d bytes where the type signature has %lld", position,
             (long long)r->packed_bytes);
    fail(r, "cannot pack the send datatype: %s", why);
    return 0;
  }
  return 1;
}

static void unpack_recv(pmpi_run_t *r) {
  int position = 0;
  if (PMPI_Unpack(r->packed_recv, (int)r->packed_bytes, &position, r->recvbuf, r->rcount,
                  r->rtype, r->comm) != MPI_SUCCESS)
    fail(r, "%s", "MPI_Unpack of the received bytes failed");
}

/* v-collectives with datatypes that are not bytes in memory order: each
 * block is packed (MPI_Pack) into a contiguous buffer, and the plan moves
 * bytes; received blocks are unpacked at the end. The decision to serve a
 * v-collective then depends on no rank's datatypes. */
static int vpack_send(pmpi_run_t *r) {
  int P = r->size, *sc = r->vbytes, *sd = sc + P, *rc = sc + 2 * P, *rd = sc + 3 * P;
  int ss = 0, rs = 0, nblocks = r->op == COLLRT_OP_ALLTOALLV ? P : 1;
  MPI_Aint lb = 0, sext = 0, rext = 0;
  PMPI_Type_size(r->rtype, &rs);
  PMPI_Type_get_extent(r->rtype, &lb, &rext);
  PMPI_Type_get_extent(r->stype, &lb, &sext);
  PMPI_Type_size(r->stype, &ss);
  int64_t stotal = 0, rtotal = 0;
  for (int j = 0; j < nblocks; ++j)
    stotal += (int64_t)(r->op == COLLRT_OP_ALLTOALLV ? r->sc[j] : r->sendcount) * ss;
  for (int j = 0; j < P; ++j)
    rtotal += (int64_t)r->rc[j] * rs;
  if (stotal > INT32_MAX || rtotal > INT32_MAX) {
    fail(r, "%s", "a v-collective of more than 2^31 packed bytes");
    return 0;
  }
  free(r->vsend);
  free(r->vrecv);
  r->vsend = malloc((size_t)stotal + 1);
  r->vrecv = malloc((size_t)rtotal + 1);
  if (!r->vsend || !r->vrecv) {
    fail(r, "%s", "out of memory for packed blocks");
    return 0;
  }
  int pos = 0;
  for (int j = 0; j < nblocks; ++j) {
    int n = r->op == COLLRT_OP_ALLTOALLV ? r->sc[j] : r->sendcount;
    const char *from = (const char *)r->sendbuf + (r->op == COLLRT_OP_ALLTOALLV ? r->sd[j] * sext : 0);
    int at = pos;
    if (PMPI_Pack(from, n, r->stype, r->vsend, (int)stotal, &pos, r->comm) != MPI_SUCCESS) {
      fail(r, "%s", "MPI_Pack of a send block failed");
      return 0;
    }
    sc[j] = pos - at;
    sd[j] = at;
  }
  for (int j = 0, at = 0; j < P; ++j) {
    rc[j] = r->rc[j] * rs;
    rd[j] = at;
    at += rc[j];
  }
  return 1;
}

static void vunpack_recv(pmpi_run_t *r) {
  int P = r->size, *rc = r->vbytes + 2 * P, *rd = r->vbytes + 3 * P;
  MPI_Aint lb = 0, rext = 0;
  PMPI_Type_get_extent(r->rtype, &lb, &rext);
  for (int j = 0; j < P; ++j) {
    int pos = rd[j];
    if (PMPI_Unpack(r->vrecv, rd[j] + rc[j], &pos, (char *)r->recvbuf + r->rd[j] * rext, r->rc[j],
                    r->rtype, r->comm) != MPI_SUCCESS) {
      fail(r, "%s", "MPI_Unpack of a received block failed");
      return;
    }
  }
}

/* Starts r on its collective, which is idle. */
static void start(pmpi_run_t *r) {
  collrt_diag_t diag; /* written only on failure: not cleared per call */
  diag.message[0] = 0;
  const void *sb = r->pack ? r->packed_send : r->sendbuf;
  void *rb = r->pack ? r->packed_recv : r->recvbuf;
  if (r->in_place_copy) /* what the call's receive buffer holds now */
    memcpy(r->in_place_copy, r->in_place_src, (size_t)r->in_place_bytes);
  if (r->pack && !pack_send(r))
    return;
  if (r->vpack && !vpack_send(r))
    return;
  pmpi_busy++;
  collrt_status_t st;
  if (r->vpack) {
    int P = r->size, *b = r->vbytes;
    st = r->op == COLLRT_OP_ALLTOALLV
             ? collrt_coll_recount_alltoallv(r->coll, r->vsend, b, b + P, r->vrecv, b + 2 * P,
                                             b + 3 * P, MPI_BYTE, &diag)
             : collrt_coll_recount_allgatherv(r->coll, r->vsend, b[0], r->vrecv, b + 2 * P,
                                              b + 3 * P, MPI_BYTE, &diag);
  } else if (!r->recount)
    st = collrt_coll_rebind(r->coll, sb, rb, &diag);
  else if (r->op == COLLRT_OP_ALLTOALLV)
    st = collrt_coll_recount_alltoallv(r->coll, sb, r->sc, r->sd, rb, r->rc, r->rd, r->type,
                                       &diag);
  else
    st = collrt_coll_recount_allgatherv(r->coll, sb, r->sendcount, rb, r->rc, r->rd, r->type,
                                        &diag);
  if (!st)
    st = collrt_start(r->coll, &diag);
  pmpi_busy--;
  if (st) {
    r->state = PMPI_RUN_FAILED;
    r->diag = diag;
    return;
  }
  r->state = PMPI_RUN_RUNNING;
  if (r->entry)
    r->entry->current = r;
}

int pmpi_run_begin(pmpi_run_t *r) {
  int rc = track(r);
  if (rc != MPI_SUCCESS)
    return rc;
  pmpi_entry_t *e = r->entry;
  if (e && (e->current || e->queue)) {
    r->state = PMPI_RUN_QUEUED;
    r->next = NULL;
    if (e->queue_tail)
      e->queue_tail->next = r;
    else
      e->queue = r;
    e->queue_tail = r;
    return MPI_SUCCESS;
  }
  start(r);
  return MPI_SUCCESS;
}

/* r's collective reported its outcome: r ends, and the next run queued on
 * the same collective starts. */
static void ended(pmpi_run_t *r, collrt_status_t st, const collrt_diag_t *diag) {
  if (st) {
    r->state = PMPI_RUN_FAILED;
    r->diag = *diag;
  } else {
    r->state = PMPI_RUN_DONE;
    if (r->pack && !r->pack_root)
      unpack_recv(r);
    if (r->vpack)
      vunpack_recv(r);
  }
  pmpi_entry_t *e = r->entry;
  if (!e)
    return;
  e->current = NULL;
  while (e->queue && !e->current) {
    pmpi_run_t *next = e->queue;
    e->queue = next->next;
    if (!e->queue)
      e->queue_tail = NULL;
    start(next);
  }
}

/* Collects the outcome of r if its collective finished. */
static void harvest(pmpi_run_t *r) {
  if (r->state != PMPI_RUN_RUNNING)
    return;
  collrt_diag_t diag; /* written only on failure: not cleared per call */
  diag.message[0] = 0;
  int done = 0;
  pmpi_busy++;
  collrt_status_t st = collrt_test(r->coll, &done, &diag);
  pmpi_busy--;
  if (st || done)
    ended(r, st, &diag);
}

void pmpi_progress(void) {
  if (!ninflight)
    return;
  /* harvest walks a snapshot: ended runs leave, queued ones start */
  for (int k = 0; k < ninflight; ++k)
    harvest(inflight[k]);
  for (int k = 0; k < ninflight;)
    if (inflight[k]->state == PMPI_RUN_DONE || inflight[k]->state == PMPI_RUN_FAILED)
      inflight[k] = inflight[--ninflight];
    else
      ++k;
}

static int report(pmpi_run_t *r) {
  untrack(r);
  if (r->state == PMPI_RUN_DONE)
    return MPI_SUCCESS;
  /* Part of the data may have moved: too late to fall back. */
  fprintf(stderr, "collc_pmpi: %s: the plan failed while running: %s\n", r->what,
          r->diag.message);
  PMPI_Comm_call_errhandler(r->comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

int pmpi_run_test(pmpi_run_t *r, int *done) {
  pmpi_progress();
  *done = r->state == PMPI_RUN_DONE || r->state == PMPI_RUN_FAILED;
  return *done ? report(r) : MPI_SUCCESS;
}

int pmpi_run_wait(pmpi_run_t *r) {
  unsigned polls = 0;
  while (r->state == PMPI_RUN_QUEUED || r->state == PMPI_RUN_RUNNING) {
    if (r->state == PMPI_RUN_RUNNING && ninflight == 1) {
      /* alone: the runtime's wait, with its idle policy */
      collrt_diag_t diag; /* written only on failure: not cleared per call */
      diag.message[0] = 0;
      pmpi_busy++;
      collrt_status_t st = collrt_wait(r->coll, &diag);
      pmpi_busy--;
      ended(r, st, &diag);
      break;
    }
    pmpi_progress();
    if ((++polls & 15) == 0)
      sched_yield();
  }
  return report(r);
}

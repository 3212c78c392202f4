/* The progress engine: issues steps under the FIFO rules with MPI_Isend /
 * MPI_Irecv on each FIFO's communicator, copies with memmove, and completes
 * requests with MPI_Testsome. A large copy is done in chunks with a poll in
 * between, so a rank copying its own block keeps its messages moving (MPI
 * progresses a rendezvous transfer only inside MPI calls). */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_internal.h"
#include "diag.h"

static collrt_status_t mpi_fail(collrt_diag_t *diag, int rc, const char *what,
                                const collrt_step_t *s) {
  char msg[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(rc, msg, &n);
  collrt_diag_set(diag, "%s (peer %d, %lld bytes, fifo %u, tag %d, stmt %u) failed: %s",
                  what, s->peer, (long long)s->len, s->fifo, s->tag, s->stmt, msg);
  return COLLRT_ERR_MPI;
}

enum { COPY_CHUNK = 64 * 1024 };

/* Advances every copy under way by one chunk; returns 1 if any moved. */
static int advance_copies(collrt_coll_t *c, int trace) {
  int moved = 0;
  for (int k = 0; k < c->ncopying;) {
    uint32_t i = c->copy_step[k];
    const collrt_step_t *s = &c->steps.steps[i];
    int64_t done = c->copy_done[k];
    int64_t n = s->len - done < COPY_CHUNK ? s->len - done : COPY_CHUNK;
    memmove(c->buf[s->dst_buf] + s->dst_off + done, c->buf[s->buf] + s->off + done,
            (size_t)n);
    moved = 1;
    c->copy_done[k] = done + n;
    if (c->copy_done[k] < s->len) {
      ++k;
      continue;
    }
    collrt_fq_complete(&c->fq, i);
    if (trace)
      c->t_done[i] = MPI_Wtime();
    --c->ncopying;
    c->copy_step[k] = c->copy_step[c->ncopying];
    c->copy_done[k] = c->copy_done[c->ncopying];
  }
  return moved;
}

static int cmp_desc(const void *a, const void *b) {
  return *(const int *)b - *(const int *)a;
}

/* Issues what the queues allow and completes what MPI has finished, until
 * neither moves; *progressed = 1 if anything happened. */
static collrt_status_t progress(collrt_coll_t *c, int *progressed,
                                collrt_diag_t *diag) {
  int trace = (c->flags & COLLRT_BIND_TRACE) != 0;
  *progressed = 0;
  for (;;) {
    int moved = 0;
    size_t i;
    while (collrt_fq_next(&c->fq, &i)) {
      const collrt_step_t *s = &c->steps.steps[i];
      moved = 1;
      if (trace)
        c->t_issue[i] = MPI_Wtime();
      if (s->kind == COLLRT_STEP_COPY) {
        c->copy_step[c->ncopying] = (uint32_t)i;
        c->copy_done[c->ncopying++] = 0;
        continue;
      }
      int rc;
      MPI_Request *r = &c->reqs[c->nactive];
      if (s->kind == COLLRT_STEP_SEND)
        rc = MPI_Isend(c->buf[s->buf] + s->off, (int)s->len, MPI_BYTE, s->peer, s->tag,
                       c->fifo_comm[s->fifo], r);
      else
        rc = MPI_Irecv(c->buf[s->buf] + s->off, (int)s->len, MPI_BYTE, s->peer, s->tag,
                       c->fifo_comm[s->fifo], r);
      if (rc != MPI_SUCCESS)
        return mpi_fail(diag, rc, s->kind == COLLRT_STEP_SEND ? "MPI_Isend" : "MPI_Irecv", s);
      c->req_step[c->nactive++] = (uint32_t)i;
    }
    if (c->nactive) {
      int n = 0;
      int rc = MPI_Testsome(c->nactive, c->reqs, &n, c->indices, c->statuses);
      if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        collrt_diag_set(diag, "MPI_Testsome over %d requests failed: %s", c->nactive, msg);
        return COLLRT_ERR_MPI;
      }
      if (n != MPI_UNDEFINED && n > 0) {
        moved = 1;
        double now = trace ? MPI_Wtime() : 0.0;
        qsort(c->indices, (size_t)n, sizeof *c->indices, cmp_desc);
        for (int k = 0; k < n; ++k) {
          int at = c->indices[k];
          uint32_t step = c->req_step[at];
          collrt_fq_complete(&c->fq, step);
          if (trace)
            c->t_done[step] = now;
          --c->nactive;
          c->reqs[at] = c->reqs[c->nactive];
          c->req_step[at] = c->req_step[c->nactive];
        }
      }
    }
    if (advance_copies(c, trace))
      moved = 1;
    if (!moved)
      return COLLRT_OK;
    *progressed = 1;
  }
}

collrt_status_t collrt_start(collrt_coll_t *c, collrt_diag_t *diag) {
  if (!c) {
    collrt_diag_set(diag, "collrt_start: coll is NULL");
    return COLLRT_ERR_ARG;
  }
  if (c->running) {
    collrt_diag_set(diag, "collrt_start: the collective is already started and has not completed");
    return COLLRT_ERR_STATE;
  }
  collrt_fq_reset(&c->fq);
  c->nactive = 0;
  c->ncopying = 0;
  c->running = 1;
  c->t_start = MPI_Wtime();
  return COLLRT_OK;
}

static collrt_status_t test_impl(collrt_coll_t *c, int *done, int *progressed,
                                 collrt_diag_t *diag) {
  if (!c || !done) {
    collrt_diag_set(diag, "collrt_test/wait: %s is NULL", c ? "out_done" : "coll");
    return COLLRT_ERR_ARG;
  }
  if (!c->running) {
    collrt_diag_set(diag, "collrt_test/wait: the collective was not started (call collrt_start first)");
    return COLLRT_ERR_STATE;
  }
  collrt_status_t st = progress(c, progressed, diag);
  if (st) {
    c->running = 0; /* outstanding requests are abandoned with the error */
    return st;
  }
  *done = collrt_fq_done(&c->fq);
  if (*done)
    c->running = 0;
  return COLLRT_OK;
}

collrt_status_t collrt_test(collrt_coll_t *c, int *out_done,
                            collrt_diag_t *diag) {
  int progressed;
  return test_impl(c, out_done, &progressed, diag);
}

/* Polls; on an oversubscribed node the peers need this core, so after a few
 * idle polls yield, then sleep with a growing (bounded) back-off. */
collrt_status_t collrt_wait(collrt_coll_t *c, collrt_diag_t *diag) {
  enum { SPIN = 64, YIELD = 256, MAX_SLEEP_NS = 50000 };
  unsigned idle = 0;
  long sleep_ns = 1000;
  for (;;) {
    int done = 0, progressed = 0;
    collrt_status_t st = test_impl(c, &done, &progressed, diag);
    if (st || done)
      return st;
    if (progressed) {
      idle = 0;
      sleep_ns = 1000;
      continue;
    }
    ++idle;
    if (idle < SPIN)
      continue;
    if (idle < YIELD) {
      sched_yield();
      continue;
    }
    struct timespec ts = {0, sleep_ns};
    nanosleep(&ts, NULL);
    if (sleep_ns < MAX_SLEEP_NS)
      sleep_ns *= 2;
  }
}

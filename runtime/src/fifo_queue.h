/* The FIFO issue rules of plan_format.h, in one place: the MPI engine and the
 * simulator both ask this module which step to issue next.
 *
 * Per FIFO an injection queue (SEND, COPY, NOTIFY, AWAIT; program order) and
 * a reception queue (RECV, program order). A queue's head is issued once its
 * dependency steps have completed and, for SEND / RECV, the FIFO's window
 * has room (send_depth, recv_depth; 0 = unlimited). The others take no
 * window slot. A head
 * waits until every step of its dependency list has completed. */
#ifndef COLLRT_FIFO_QUEUE_H
#define COLLRT_FIFO_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "collc/plan.h"

enum { COLLRT_FQ_PENDING = 0, COLLRT_FQ_ISSUED = 1, COLLRT_FQ_DONE = 2 };

typedef struct collrt_fifo_queue {
  const collrt_step_t *steps;
  const uint32_t *deps;  /* dependency lists (collrt_steps_t.deps) */
  size_t nsteps;
  int nqueues;          /* 2 * nfifos: queue 2f = injection, 2f+1 = reception */
  uint32_t *order;      /* step indices, queue by queue, program order */
  size_t *qbegin;       /* queue q is order[qbegin[q] .. qbegin[q+1]) */
  size_t *qhead;        /* next entry of queue q to issue */
  uint32_t *inflight;   /* issued, not completed SEND/RECV per queue */
  uint32_t *depth;      /* window per queue, 0 = unlimited */
  uint8_t *state;       /* per step */
  size_t ndone;
  int next_queue;       /* round-robin start of the next scan */
} collrt_fifo_queue_t;

collrt_status_t collrt_fq_init(collrt_fifo_queue_t *fq, const collrt_steps_t *steps,
                               const collrt_fifo_desc_t *fifos, int nfifos);
void collrt_fq_reset(collrt_fifo_queue_t *fq);
void collrt_fq_free(collrt_fifo_queue_t *fq);

/* If some queue head may be issued now, marks it issued, stores its index in
 * *out_step and returns 1; returns 0 otherwise. The caller starts the step
 * (and, for a COPY, performs it and calls collrt_fq_complete at once). */
int collrt_fq_next(collrt_fifo_queue_t *fq, size_t *out_step);
/* 1 if every step `s` waits for has completed. */
int collrt_fq_deps_done(const collrt_fifo_queue_t *fq, const collrt_step_t *s);
void collrt_fq_complete(collrt_fifo_queue_t *fq, size_t step);
static inline int collrt_fq_done(const collrt_fifo_queue_t *fq) {
  return fq->ndone == fq->nsteps;
}

#endif

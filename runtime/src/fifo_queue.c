/* FIFO issue logic shared by the engine and the simulator. */
#include <stdlib.h>
#include <string.h>

#include "fifo_queue.h"

static int queue_of(const collrt_step_t *s) {
  return 2 * s->fifo + (s->kind == COLLRT_STEP_RECV);
}

collrt_status_t collrt_fq_init(collrt_fifo_queue_t *fq, const collrt_steps_t *ss,
                               const collrt_fifo_desc_t *fifos, int nfifos) {
  const collrt_step_t *steps = ss->steps;
  size_t nsteps = ss->count;
  memset(fq, 0, sizeof *fq);
  fq->steps = steps;
  fq->deps = ss->deps;
  fq->nsteps = nsteps;
  fq->nqueues = 2 * nfifos;
  fq->order = malloc((nsteps ? nsteps : 1) * sizeof *fq->order);
  fq->qbegin = calloc((size_t)fq->nqueues + 1, sizeof *fq->qbegin);
  fq->qhead = calloc((size_t)fq->nqueues, sizeof *fq->qhead);
  fq->inflight = calloc((size_t)fq->nqueues, sizeof *fq->inflight);
  fq->depth = calloc((size_t)fq->nqueues, sizeof *fq->depth);
  fq->state = calloc(nsteps ? nsteps : 1, 1);
  if (!fq->order || !fq->qbegin || !fq->qhead || !fq->inflight || !fq->depth ||
      !fq->state) {
    collrt_fq_free(fq);
    return COLLRT_ERR_NOMEM;
  }
  for (int f = 0; f < nfifos; ++f) {
    fq->depth[2 * f] = fifos[f].send_depth;
    fq->depth[2 * f + 1] = fifos[f].recv_depth;
  }
  /* counting sort by queue keeps program order within each queue */
  for (size_t i = 0; i < nsteps; ++i)
    ++fq->qbegin[queue_of(&steps[i]) + 1];
  for (int q = 0; q < fq->nqueues; ++q)
    fq->qbegin[q + 1] += fq->qbegin[q];
  for (int q = 0; q < fq->nqueues; ++q)
    fq->qhead[q] = fq->qbegin[q];
  for (size_t i = 0; i < nsteps; ++i)
    fq->order[fq->qhead[queue_of(&steps[i])]++] = (uint32_t)i;
  collrt_fq_reset(fq);
  return COLLRT_OK;
}

void collrt_fq_reset(collrt_fifo_queue_t *fq) {
  for (int q = 0; q < fq->nqueues; ++q) {
    fq->qhead[q] = fq->qbegin[q];
    fq->inflight[q] = 0;
  }
  memset(fq->state, COLLRT_FQ_PENDING, fq->nsteps);
  fq->ndone = 0;
  fq->next_queue = 0;
}

void collrt_fq_free(collrt_fifo_queue_t *fq) {
  free(fq->order);
  free(fq->qbegin);
  free(fq->qhead);
  free(fq->inflight);
  free(fq->depth);
  free(fq->state);
  memset(fq, 0, sizeof *fq);
}

int collrt_fq_deps_done(const collrt_fifo_queue_t *fq, const collrt_step_t *s) {
  for (uint32_t k = 0; k < s->ndeps; ++k)
    if (fq->state[fq->deps[s->dep_begin + k]] != COLLRT_FQ_DONE)
      return 0;
  return 1;
}

int collrt_fq_next(collrt_fifo_queue_t *fq, size_t *out_step) {
  /* Round-robin over queues so that no FIFO is starved by a busy one. */
  for (int n = 0; n < fq->nqueues; ++n) {
    int q = (fq->next_queue + n) % fq->nqueues;
    if (fq->qhead[q] == fq->qbegin[q + 1])
      continue;
    uint32_t i = fq->order[fq->qhead[q]];
    const collrt_step_t *s = &fq->steps[i];
    if (!collrt_fq_deps_done(fq, s))
      continue;
    int windowed = collrt_step_is_message(s->kind);
    if (windowed && fq->depth[q] && fq->inflight[q] >= fq->depth[q])
      continue;
    if (windowed)
      ++fq->inflight[q];
    fq->state[i] = COLLRT_FQ_ISSUED;
    ++fq->qhead[q];
    fq->next_queue = (q + 1) % fq->nqueues;
    *out_step = i;
    return 1;
  }
  return 0;
}

void collrt_fq_complete(collrt_fifo_queue_t *fq, size_t i) {
  const collrt_step_t *s = &fq->steps[i];
  if (collrt_step_is_message(s->kind))
    --fq->inflight[queue_of(s)];
  fq->state[i] = COLLRT_FQ_DONE;
  ++fq->ndone;
}

/* Step traces as Chrome trace-event JSON (chrome://tracing, Perfetto): one
 * "X" event per step, pid = rank, tid = FIFO. Collective: the ranks append
 * their own steps to the one file in rank order, passing a token, so no
 * process ever holds more than its own steps (gathering every rank's steps
 * on rank 0 would need ~1.6 GB for a direct alltoall at P = 4096). */
#include <stdio.h>
#include <stdlib.h>

#include "coll_internal.h"
#include "diag.h"

/* Appends this rank's steps; returns 0 on an I/O error. */
static int append_steps(const collrt_coll_t *c, FILE *fp, double base) {
  fprintf(fp, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"rank %d\"}}",
          c->rank ? ",\n" : "", c->rank, c->rank);
  for (size_t i = 0; i < c->steps.count; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    char name[64];
    if (s->kind == COLLRT_STEP_COPY || s->kind == COLLRT_STEP_REDUCE)
      snprintf(name, sizeof name, "%s %lldB", s->kind == COLLRT_STEP_COPY ? "copy" : "reduce",
               (long long)s->len);
    else if (collrt_step_is_signal(s->kind))
      snprintf(name, sizeof name, "%s %d", s->kind == COLLRT_STEP_NOTIFY ? "notify" : "await",
               s->peer);
    else
      snprintf(name, sizeof name, "%s%d %lldB", s->kind == COLLRT_STEP_SEND ? "send->" : "recv<-",
               s->peer, (long long)s->len);
    fprintf(fp, ",\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f}",
            name, s->kind == COLLRT_STEP_SEND ? "send" : s->kind == COLLRT_STEP_RECV ? "recv"
                      : s->kind == COLLRT_STEP_COPY ? "copy"
                      : s->kind == COLLRT_STEP_REDUCE ? "reduce" : "arena",
            c->rank, s->fifo, (c->t_issue[i] - base) * 1e6, (c->t_done[i] - c->t_issue[i]) * 1e6);
  }
  return !ferror(fp);
}

collrt_status_t collrt_trace_write(const collrt_coll_t *c, const char *path,
                                   collrt_diag_t *diag) {
  if (!c || !path) {
    collrt_diag_set(diag, "collrt_trace_write: %s is NULL", c ? "path" : "coll");
    return COLLRT_ERR_ARG;
  }
  if (!(c->flags & COLLRT_BIND_TRACE)) {
    collrt_diag_set(diag, "collrt_trace_write: the collective was bound without COLLRT_BIND_TRACE");
    return COLLRT_ERR_STATE;
  }
  double base = 0;
  MPI_Allreduce((void *)&c->t_start, &base, 1, MPI_DOUBLE, MPI_MIN, c->comm);
  /* The token travels on FIFO 0's communicator and tags: no run is under
   * way, so it cannot meet a plan's message. */
  MPI_Comm ring = c->fifo_comm[0];
  int tag = c->fifo_tag[0];
  int ok = 1, failed_at = -1;
  if (c->rank > 0)
    MPI_Recv(&ok, 1, MPI_INT, c->rank - 1, tag, ring, MPI_STATUS_IGNORE);
  if (ok) {
    FILE *fp = fopen(path, c->rank ? "a" : "w");
    if (fp) {
      if (c->rank == 0)
        fprintf(fp, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
      ok = append_steps(c, fp, base);
      if (ok && c->rank == c->size - 1)
        fprintf(fp, "\n]}\n");
      ok = fclose(fp) == 0 && ok;
    } else {
      ok = 0;
    }
    if (!ok)
      failed_at = c->rank;
  }
  if (c->rank + 1 < c->size)
    MPI_Send(&ok, 1, MPI_INT, c->rank + 1, tag, ring);
  int first_failure = failed_at < 0 ? c->size : failed_at, worst = c->size;
  MPI_Allreduce(&first_failure, &worst, 1, MPI_INT, MPI_MIN, c->comm);
  if (worst < c->size) {
    collrt_diag_set(diag, "cannot write the trace file '%s' (rank %d failed to append its steps)", path, worst);
    return COLLRT_ERR_IO;
  }
  return COLLRT_OK;
}

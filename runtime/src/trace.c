/* Step traces as Chrome trace-event JSON (chrome://tracing, Perfetto): one
 * "X" event per step, pid = rank, tid = FIFO. Collective: every rank's steps
 * are gathered to rank 0, which writes the file. */
#include <stdio.h>
#include <stdlib.h>

#include "coll_internal.h"
#include "diag.h"

enum { FIELDS = 6 }; /* kind, fifo, peer, len, start us, duration us */

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
  collrt_status_t st = COLLRT_OK;
  int P = c->size, n = (int)c->steps.count * FIELDS;
  double base = 0;
  MPI_Allreduce((void *)&c->t_start, &base, 1, MPI_DOUBLE, MPI_MIN, c->comm);
  double *mine = malloc(((size_t)n + 1) * sizeof *mine);
  int *counts = NULL, *displs = NULL;
  double *all = NULL;
  int ok = mine != NULL, all_ok = 0;
  for (size_t i = 0; ok && i < c->steps.count; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    double *f = mine + i * FIELDS;
    f[0] = s->kind;
    f[1] = s->fifo;
    f[2] = s->peer;
    f[3] = (double)s->len;
    f[4] = (c->t_issue[i] - base) * 1e6;
    f[5] = (c->t_done[i] - c->t_issue[i]) * 1e6;
  }
  if (c->rank == 0) {
    counts = malloc((size_t)P * sizeof *counts);
    displs = malloc((size_t)P * sizeof *displs);
    ok = ok && counts && displs;
  }
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
  if (!all_ok) {
    collrt_diag_set(diag, "cannot allocate the trace buffers");
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, c->comm);
  int64_t total = 0;
  if (c->rank == 0) {
    for (int r = 0; r < P; ++r) {
      displs[r] = (int)total;
      total += counts[r];
    }
    if (total > 0x7FFFFFFF || !(all = malloc(((size_t)total + 1) * sizeof *all)))
      ok = 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, c->comm);
  if (!ok) {
    collrt_diag_set(diag, "cannot gather the trace on rank 0");
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  MPI_Gatherv(mine, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, c->comm);
  if (c->rank == 0) {
    FILE *fp = fopen(path, "w");
    if (!fp) {
      ok = 0;
    } else {
      fprintf(fp, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
      int first = 1;
      for (int r = 0; r < P; ++r) {
        fprintf(fp, "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"rank %d\"}}",
                first ? "" : ",\n", r, r);
        first = 0;
        for (int k = 0; k < counts[r]; k += FIELDS) {
          const double *f = all + displs[r] + k;
          int kind = (int)f[0];
          char name[64];
          if (kind == COLLRT_STEP_COPY)
            snprintf(name, sizeof name, "copy %.0fB", f[3]);
          else
            snprintf(name, sizeof name, "%s%d %.0fB", kind == COLLRT_STEP_SEND ? "send->" : "recv<-",
                     (int)f[2], f[3]);
          fprintf(fp, ",\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f}",
                  name, kind == COLLRT_STEP_SEND ? "send" : kind == COLLRT_STEP_RECV ? "recv" : "copy",
                  r, (int)f[1], f[4], f[5]);
        }
      }
      fprintf(fp, "\n]}\n");
      ok = fclose(fp) == 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, c->comm);
  if (!ok) {
    collrt_diag_set(diag, "cannot write the trace file '%s'%s", path,
                    c->rank ? " (on rank 0)" : "");
    st = COLLRT_ERR_IO;
  }
out:
  free(mine);
  free(counts);
  free(displs);
  free(all);
  return st;
}

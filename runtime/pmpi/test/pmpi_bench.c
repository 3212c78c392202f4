/* Times repeated MPI_Alltoall calls with one pattern: natively, through
 * libcollc_pmpi (preloaded: after the first call every call is a cache hit)
 * or, with --collrt PLAN, through collrt_start/wait on one bind (the plan's
 * own cost, without the cache's agreement and rebind); with --agreement,
 * only the allreduce an agreed (v-collective) hit starts with; with
 * --fresh-counts, MPI_Alltoallv whose counts change on every call (rank s
 * sends (s + d + i) mod (2 B + 1) bytes to rank d on call i: B bytes on
 * average, never the same pattern twice in a row).
 * With --overlap, MPI_Ialltoall overlapped with computation, OSU's way:
 * the time of Ialltoall + Wait alone (t_comm), then Ialltoall, t_comm of
 * computation that calls no MPI, Wait (t_total); overlap % =
 * 100 * (1 - (t_total - t_compute) / t_comm), clamped to [0, 100].
 *   pmpi_bench [--collrt PLAN | --agreement | --fresh-counts | --overlap] BYTES_PER_BLOCK ITERS
 * Prints the mean time per call on rank 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collc/collrt.h"

/* Spins for `seconds` without calling MPI. */
static void compute(double seconds) {
  double end = MPI_Wtime() + seconds;
  volatile double x = 1;
  while (MPI_Wtime() < end)
    for (int k = 0; k < 100; ++k)
      x = x * 1.0000001 + 1e-9;
}

static int overlap(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pmpi_bench --overlap BYTES_PER_BLOCK ITERS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int bytes = atoi(argv[0]), iters = atoi(argv[1]), rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *send = calloc((size_t)size * bytes + 1, 1), *recv = calloc((size_t)size * bytes + 1, 1);
  MPI_Request r;
  double t_comm = 0, t_total = 0;
  for (int pass = 0; pass < 2; ++pass) {
    double t0 = 0;
    for (int i = -1; i < iters; ++i) {
      if (i == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
      }
      MPI_Ialltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD, &r);
      if (pass)
        compute(t_comm);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    double t = (MPI_Wtime() - t0) / iters, all = 0;
    /* PMPI_: the program's own tally, not a call under test (the
     * library serves MPI_Allreduce too) */
    PMPI_Allreduce(&t, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (pass)
      t_total = all;
    else
      t_comm = all;
  }
  double ov = 100 * (1 - (t_total - t_comm) / t_comm);
  ov = ov < 0 ? 0 : ov > 100 ? 100 : ov;
  if (rank == 0)
    printf("pmpi_bench: %d ranks, %d B blocks, %d calls: overlap %.1f %% (comm %.2f us, with compute %.2f us)\n",
           size, bytes, iters, ov, t_comm * 1e6, t_total * 1e6);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *plan_path = NULL;
  int a = 1;
  int agreement = 0, fresh = 0;
  if (argc > 2 && !strcmp(argv[1], "--collrt"))
    plan_path = argv[2], a = 3;
  else if (argc > 1 && !strcmp(argv[1], "--agreement"))
    agreement = 1, a = 2;
  else if (argc > 1 && !strcmp(argv[1], "--fresh-counts"))
    fresh = 1, a = 2;
  else if (argc > 1 && !strcmp(argv[1], "--overlap"))
    return overlap(argc - 2, argv + 2);
  if (argc != a + 2) {
    fprintf(stderr, "usage: pmpi_bench [--collrt PLAN | --agreement | --fresh-counts] BYTES_PER_BLOCK ITERS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int bytes = atoi(argv[a]), iters = atoi(argv[a + 1]), rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t cap = (size_t)size * (fresh ? 2 * bytes + 1 : bytes) + 1;
  char *send = calloc(cap, 1), *recv = calloc(cap, 1);
  int *counts = calloc(4 * (size_t)size, sizeof *counts);
  int *sc = counts, *sd = counts + size, *rc = counts + 2 * size, *rd = counts + 3 * size;
  collrt_plan_t *plan = NULL;
  collrt_coll_t *coll = NULL;
  collrt_diag_t diag = {{0}};
  if (plan_path && (collrt_plan_load_file(plan_path, &plan, &diag) ||
                    collrt_bind_alltoall(plan, MPI_COMM_WORLD, send, recv, bytes, MPI_BYTE, 0,
                                         &coll, &diag))) {
    fprintf(stderr, "pmpi_bench: %s\n", diag.message);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double t0 = 0;
  for (int i = -1; i < iters; ++i) {
    if (i == 0) { /* the first call (a bind, when preloaded) is not timed */
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    if (agreement) {
      int64_t mine[6] = {rank, 0, 0, bytes, 1, -1}, all[6];
      PMPI_Allreduce(mine, all, 6, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    } else if (fresh) {
      int at = 0, rat = 0;
      for (int d = 0; d < size; ++d) {
        sc[d] = (rank + d + i + 1) % (2 * bytes + 1);
        sd[d] = at;
        at += sc[d];
        rc[d] = (d + rank + i + 1) % (2 * bytes + 1);
        rd[d] = rat;
        rat += rc[d];
      }
      MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    } else if (coll) {
      collrt_start(coll, &diag);
      collrt_wait(coll, &diag);
    } else {
      MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
    }
  }
  double t = (MPI_Wtime() - t0) / (iters > 0 ? iters : 1);
  if (rank == 0)
    printf("pmpi_bench: %d ranks, %d B blocks, %d calls: %.2f us per call\n", size, bytes, iters,
           t * 1e6);
  collrt_coll_free(coll);
  collrt_plan_free(plan);
  free(send);
  free(recv);
  free(counts);
  MPI_Finalize();
  return 0;
}

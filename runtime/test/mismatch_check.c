/* Mismatched inputs that used to hang, now an error on the rank that can
 * see it (and no rank left waiting):
 *   counts  PLAN (an allgatherv plan): rank 0 expects 8 bytes from rank 1,
 *           which contributes 4 (no COLLRT_BIND_CHECK_COUNTS): rank 0's
 *           wait fails naming the peer the short message came from (rank 1, or
 *           the ring neighbour that forwards its block) and both byte
 *           counts; the other ranks finish, or (waiting on blocks rank
 *           0 no longer forwards) end by COLLRT_TIMEOUT
 *   plans   PLAN_A PLAN_B: rank 0 binds PLAN_A, the others PLAN_B: bind
 *           fails on every rank, saying the ranks bind different plans
 *   flags   PLAN (an alltoallv plan): rank 0 binds with
 *           COLLRT_BIND_LOCAL_COUNTS, the others without (which decides
 *           whether a bind makes the node's collectives): bind fails on
 *           every rank, saying the ranks pass different flags
 * Prints "mismatch_check: ok (MODE)" and exits 0 when each rank saw what
 * it should. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "collc/collrt.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || size < 2) {
    fprintf(stderr, "usage: mpiexec -n 2+ mismatch_check counts PLAN | plans PLAN_A PLAN_B | flags PLAN\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  collrt_diag_t d = {{0}};
  collrt_plan_t *plan = NULL;
  const char *path = !strcmp(argv[1], "plans") && rank > 0 && argc > 3 ? argv[3] : argv[2];
  if (collrt_plan_load_file(path, &plan, &d)) {
    fprintf(stderr, "mismatch_check: %s\n", d.message);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char send[64] = {0}, recv[64 * 16] = {0};
  collrt_coll_t *c = NULL;
  if (!strcmp(argv[1], "counts")) {
    int counts[16], displs[16];
    for (int j = 0; j < size && j < 16; ++j) {
      counts[j] = 4;
      displs[j] = 8 * j;
    }
    if (rank == 0)
      counts[1] = 8; /* rank 1 contributes 4 */
    collrt_status_t st = collrt_bind_allgatherv(plan, MPI_COMM_WORLD, send, 4, recv, counts, displs,
                                                MPI_BYTE, 0, &c, &d);
    if (!st && !(st = collrt_start(c, &d)))
      st = collrt_wait(c, &d);
    if (rank == 0) {
      bad = st != COLLRT_ERR_COUNTS || !strstr(d.message, "received 4 bytes from rank") ||
            !strstr(d.message, "counts disagree");
      fprintf(stderr, "mismatch_check: rank 0: %s: %s\n", collrt_strerror(st), d.message);
    } else {
      /* a rank that needs rank 0 to forward blocks it no longer forwards
       * ends by COLLRT_TIMEOUT, explained, never waits forever */
      bad = st != COLLRT_OK && st != COLLRT_ERR_TIMEOUT;
    }
  } else if (!strcmp(argv[1], "flags")) {
    int counts[16], displs[16];
    for (int j = 0; j < size && j < 16; ++j) {
      counts[j] = 4;
      displs[j] = 4 * j;
    }
    collrt_status_t st = collrt_bind_alltoallv(
        plan, MPI_COMM_WORLD, send, counts, displs, recv, counts, displs, MPI_BYTE,
        rank == 0 ? COLLRT_BIND_LOCAL_COUNTS : 0, &c, &d);
    bad = st != COLLRT_ERR_ARG || !strstr(d.message, "different flags");
    if (rank == 0)
      fprintf(stderr, "mismatch_check: rank 0: %s: %s\n", collrt_strerror(st), d.message);
  } else {
    collrt_status_t st = collrt_bind_alltoall(plan, MPI_COMM_WORLD, send, recv, 4, MPI_BYTE, 0,
                                              &c, &d);
    bad = st != COLLRT_ERR_COMM_MISMATCH || !strstr(d.message, "bind different plans");
    if (rank == 0)
      fprintf(stderr, "mismatch_check: rank 0: %s: %s\n", collrt_strerror(st), d.message);
  }
  if (bad)
    fprintf(stderr, "mismatch_check: rank %d did not see what it should\n", rank);
  collrt_coll_free(c);
  collrt_plan_free(plan);
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!rank && !all)
    printf("mismatch_check: ok (%s)\n", argv[1]);
  MPI_Finalize();
  return all ? 1 : 0;
}

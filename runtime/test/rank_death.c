/* A rank dies in the middle of a collective: what does the survivor see?
 * (docs/runtime-faults.md). Under mpiexec -n 2 -disable-auto-cleanup:
 * every rank binds a plan's alltoall on MPI_COMM_WORLD with the error
 * handler MPI_ERRORS_RETURN; then rank 1 _exit(3)s before it sends (as a
 * crash would, without MPI_Finalize); rank 0 starts and waits, and prints
 * what collrt_wait returned:
 *   rank_death: rank 0: collrt_wait: NAME: MESSAGE      (then exits 2)
 *   rank_death: rank 0: collrt_wait succeeded ...       (then exits 0: wrong)
 * The test (rank_death.sh) runs it under `timeout`: a hang fails it, and so
 * does a success.
 * With a third argument, `started`, rank 1 starts the collective before it
 * dies (its sends may be under way: rank 0 may then get all of its bytes,
 * and a success is right).
 * Usage: rank_death PLAN BYTES [started] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collc/collrt.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* before bind: the runtime's duplicated and split communicators inherit it */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc < 3 || argc > 4 || size != 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpiexec -n 2 rank_death PLAN BYTES [started]\n");
    MPI_Finalize();
    return 1;
  }
  int bytes = atoi(argv[2]);
  collrt_diag_t diag = {{0}};
  collrt_plan_t *plan = NULL;
  collrt_coll_t *coll = NULL;
  char *send = malloc((size_t)bytes * 2 + 1), *recv = malloc((size_t)bytes * 2 + 1);
  memset(send, rank + 1, (size_t)bytes * 2);
  memset(recv, 0, (size_t)bytes * 2);
  collrt_status_t st = collrt_plan_load_file(argv[1], &plan, &diag);
  if (!st)
    st = collrt_bind_alltoall(plan, MPI_COMM_WORLD, send, recv, bytes, MPI_BYTE, 0, &coll, &diag);
  if (st) {
    fprintf(stderr, "rank_death: rank %d: setting up: %s: %s\n", rank, collrt_status_name(st),
            diag.message);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* both ranks bound: the collective is about to run */
  MPI_Barrier(MPI_COMM_WORLD);
  int started = argc == 4 && !strcmp(argv[3], "started");
  if (rank == 1) { /* by default dies before it sends: rank 0's collective cannot complete */
    if (started)
      collrt_start(coll, &diag);
    fprintf(stderr, "rank_death: rank 1 dies\n");
    fflush(stderr);
    _exit(3);
  }
  st = collrt_start(coll, &diag);
  if (!st)
    st = collrt_wait(coll, &diag);
  if (st) {
    fprintf(stderr, "rank_death: rank 0: collrt_wait: %s: %s\n", collrt_status_name(st),
            diag.message);
    fflush(stderr);
    _exit(2); /* MPI_Finalize would wait for the dead rank */
  }
  /* wrong unless rank 1 started: then its block may have arrived whole */
  int whole = 1;
  for (int k = 0; k < bytes; ++k)
    whole &= recv[bytes + k] == 2;
  printf("rank_death: rank 0: collrt_wait succeeded, %s rank 1's block, though rank 1 died %s\n",
         whole ? "with" : "WITHOUT", started ? "after it started" : "before it sent");
  fflush(stdout);
  _exit(0);
}

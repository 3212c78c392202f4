/* Runs the embedded alltoall plan and checks it against MPI_Alltoall. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collc/collrt.h>

extern const unsigned char alltoall_plan[];
extern const unsigned long alltoall_plan_size;

enum { COUNT = 1000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t n = (size_t)size * COUNT;
  int *send = malloc(n * sizeof *send), *recv = malloc(n * sizeof *recv),
      *ref = malloc(n * sizeof *ref);
  for (size_t i = 0; i < n; ++i)
    send[i] = rank * 1000003 + (int)i;

  collrt_plan_t *plan = NULL;
  collrt_coll_t *a2a = NULL;
  collrt_diag_t diag;
  if (collrt_plan_load(alltoall_plan, alltoall_plan_size, &plan, &diag) ||
      collrt_bind_alltoall(plan, MPI_COMM_WORLD, send, recv, COUNT, MPI_INT, 0, &a2a, &diag) ||
      collrt_start(a2a, &diag) || collrt_wait(a2a, &diag)) {
    fprintf(stderr, "embed: rank %d: %s\n", rank, diag.message);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Alltoall(send, COUNT, MPI_INT, ref, COUNT, MPI_INT, MPI_COMM_WORLD);
  int bad = memcmp(recv, ref, n * sizeof *ref) != 0, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("embed: %s: %lu-byte plan on %d ranks, %s MPI_Alltoall\n", any ? "FAILED" : "ok",
           alltoall_plan_size, size, any ? "differs from" : "same bytes as");
  collrt_coll_free(a2a);
  collrt_plan_free(plan);
  free(send);
  free(recv);
  free(ref);
  MPI_Finalize();
  return any;
}

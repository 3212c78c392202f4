/* collrt_coll_rebind: a bound alltoall moved to new buffers gives MPI's
 * result, gathered transfers included (their datatypes hold absolute
 * addresses); refused while running and for MPI_IN_PLACE, leaving the
 * collective usable. rebind_check PLAN */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collc/collrt.h"

enum { COUNT = 37, ROUNDS = 4 };

static int fails;

static void expect(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "rebind_check: %s\n", what);
    fails++;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  collrt_diag_t diag = {{0}};
  collrt_plan_t *plan = NULL;
  collrt_coll_t *coll = NULL;
  size_t n = (size_t)size * COUNT;
  int *buf[2 * ROUNDS], *ref = malloc(n * sizeof *ref);
  for (int i = 0; i < 2 * ROUNDS; ++i)
    buf[i] = malloc(n * sizeof(int));
  if (argc != 2 || collrt_plan_load_file(argv[1], &plan, &diag) ||
      collrt_bind_alltoall(plan, MPI_COMM_WORLD, buf[0], buf[1], COUNT, MPI_INT, 0, &coll, &diag)) {
    fprintf(stderr, "rebind_check: %s\n", argc != 2 ? "usage: rebind_check PLAN" : diag.message);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int round = 0; round < ROUNDS; ++round) {
    int *send = buf[2 * round], *recv = buf[2 * round + 1];
    for (size_t i = 0; i < n; ++i)
      send[i] = rank * 100000 + round * 1000 + (int)i, recv[i] = ref[i] = -1;
    expect(collrt_coll_rebind(coll, send, recv, &diag) == COLLRT_OK, diag.message);
    expect(collrt_start(coll, &diag) == COLLRT_OK, diag.message);
    expect(collrt_coll_rebind(coll, buf[0], buf[1], &diag) == COLLRT_ERR_STATE,
           "rebind while running is not refused");
    expect(collrt_wait(coll, &diag) == COLLRT_OK, diag.message);
    PMPI_Alltoall(send, COUNT, MPI_INT, ref, COUNT, MPI_INT, MPI_COMM_WORLD);
    expect(!memcmp(recv, ref, n * sizeof *ref), "result differs from MPI_Alltoall after rebind");
  }
  expect(collrt_coll_rebind(coll, MPI_IN_PLACE, buf[1], &diag) == COLLRT_ERR_ARG,
         "MPI_IN_PLACE is not refused");
  expect(collrt_coll_rebind(NULL, buf[0], buf[1], &diag) == COLLRT_ERR_ARG, "NULL coll accepted");
  collrt_coll_free(coll);
  collrt_plan_free(plan);
  for (int i = 0; i < 2 * ROUNDS; ++i)
    free(buf[i]);
  free(ref);
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("rebind_check: %s\n", all ? "FAILED" : "ok");
  MPI_Finalize();
  return all ? 1 : 0;
}

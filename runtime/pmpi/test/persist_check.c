/* An ordinary MPI-4 program using persistent collectives: MPI_Alltoall_init,
 * MPI_Alltoallv_init and MPI_Allgatherv_init, each started many times with
 * new data and completed by MPI_Wait, an MPI_Test loop, MPI_Waitall beside
 * ordinary point-to-point requests, MPI_Waitany and MPI_Waitsome; every
 * result compared with the MPI library's own blocking collective (called
 * through PMPI_, so that the comparison never goes through libcollc_pmpi).
 * Prints "persist_check: ok" and exits 0 when every byte matched.
 *
 * Under Open MPI 4 (MPI 3.1) the same calls are its MPIX_ extension's
 * (mpi_compat.h); an MPI library with neither prints "persist_check:
 * skipped: ..." and exits 0 (the test counts as skipped). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_compat.h"

#if !COLLC_HAVE_PERSISTENT_COLL
int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("persist_check: skipped: this MPI library (MPI %d.%d) has no persistent collectives "
           "(MPI-4's MPI_Alltoall_init, or Open MPI's MPIX_Alltoall_init extension)\n",
           MPI_VERSION, MPI_SUBVERSION);
  MPI_Finalize();
  return 0;
}
#else
static int rank, size, failures;

static void fill(int *buf, int n, int iter) {
  for (int k = 0; k < n; ++k)
    buf[k] = rank * 1000003 + iter * 7919 + k;
}

static void compare(const char *what, int iter, const int *got, const int *want, int n) {
  if (memcmp(got, want, (size_t)n * sizeof *got)) {
    ++failures;
    fprintf(stderr, "persist_check: rank %d: %s iteration %d differs from MPI's\n", rank, what,
            iter);
  }
}

/* How iteration `iter` completes request `req` (next to a native exchange
 * with the neighbours, so that mixed request sets are exercised). */
static void complete(MPI_Request *req, int iter) {
  int left = (rank + size - 1) % size, right = (rank + 1) % size, out = rank, in = -1;
  MPI_Request set[3] = {*req, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  switch (iter % 5) {
  case 0:
    MPI_Wait(req, MPI_STATUS_IGNORE);
    return;
  case 1: {
    int flag = 0;
    while (!flag)
      MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    return;
  }
  case 2:
    MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &set[1]);
    MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &set[2]);
    MPI_Status statuses[3];
    MPI_Waitall(3, set, statuses);
    if (in != left) {
      ++failures;
      fprintf(stderr, "persist_check: rank %d: the native message beside the plan carried %d, not %d\n",
              rank, in, left);
    }
    *req = set[0];
    return;
  case 3: {
    int index = -1, done = 0;
    MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &set[1]);
    MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &set[2]);
    while (done < 3) {
      MPI_Waitany(3, set, &index, MPI_STATUS_IGNORE);
      if (index == MPI_UNDEFINED)
        break;
      ++done;
      if (index != 0)
        set[index] = MPI_REQUEST_NULL;
      else
        set[0] = MPI_REQUEST_NULL; /* do not wait for the inactive request again */
    }
    return;
  }
  default: {
    int outcount = 0, indices[3];
    MPI_Status statuses[3];
    while (outcount != MPI_UNDEFINED) {
      MPI_Waitsome(1, req, &outcount, indices, statuses);
      if (outcount == 1)
        break;
    }
    return;
  }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc > 1 ? atoi(argv[1]) : 10, n = 5;
  int *send = malloc(sizeof(int) * (size_t)(n * size + 64));
  int *recv = malloc(sizeof(int) * (size_t)(n * size + 64));
  int *want = malloc(sizeof(int) * (size_t)(n * size + 64));
  int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
  int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
  /* alltoallv: rank s sends (s + d) % 3 elements to d, in reverse order of
   * destinations with a gap, so that displacements matter */
  int soff = 0, roff = 0;
  for (int j = size - 1; j >= 0; --j) {
    sc[j] = (rank + j) % 3;
    rc[j] = (j + rank) % 3;
    sd[j] = soff;
    rd[j] = roff;
    soff += sc[j] + 1;
    roff += rc[j] + 1;
  }
  int agc = rank % 3 + 1, *agr = malloc(sizeof(int) * (size_t)size), *agd = malloc(sizeof(int) * (size_t)size);
  for (int j = 0, off = 0; j < size; ++j) {
    agr[j] = j % 3 + 1;
    agd[j] = off;
    off += agr[j];
  }

  MPI_Request req[3];
  MPI_Alltoall_init(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
  for (int it = 0; it < iters; ++it) {
    fill(send, n * size, it);
    memset(recv, 0xff, sizeof(int) * (size_t)(n * size));
    MPI_Start(&req[0]);
    complete(&req[0], it);
    PMPI_Alltoall(send, n, MPI_INT, want, n, MPI_INT, MPI_COMM_WORLD);
    compare("MPI_Alltoall_init", it, recv, want, n * size);
  }
  MPI_Request_free(&req[0]);

  MPI_Alltoallv_init(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &req[1]);
  for (int it = 0; it < iters; ++it) {
    fill(send, soff, it);
    memset(recv, 0, sizeof(int) * (size_t)roff);
    memset(want, 0, sizeof(int) * (size_t)roff);
    MPI_Start(&req[1]);
    complete(&req[1], it + 1);
    PMPI_Alltoallv(send, sc, sd, MPI_INT, want, rc, rd, MPI_INT, MPI_COMM_WORLD);
    compare("MPI_Alltoallv_init", it, recv, want, roff);
  }

  /* two requests started together and completed together */
  MPI_Allgatherv_init(send, agc, MPI_INT, recv + roff, agr, agd, MPI_INT, MPI_COMM_WORLD,
                      MPI_INFO_NULL, &req[2]);
  int total = agd[size - 1] + agr[size - 1];
  for (int it = 0; it < iters; ++it) {
    fill(send, soff, it);
    memset(recv, 0, sizeof(int) * (size_t)roff); /* the gaps between blocks */
    memset(want, 0, sizeof(int) * (size_t)roff);
    MPI_Status statuses[2];
    MPI_Startall(2, &req[1]);
    MPI_Waitall(2, &req[1], statuses);
    PMPI_Alltoallv(send, sc, sd, MPI_INT, want, rc, rd, MPI_INT, MPI_COMM_WORLD);
    compare("MPI_Startall alltoallv", it, recv, want, roff);
    PMPI_Allgatherv(send, agc, MPI_INT, want, agr, agd, MPI_INT, MPI_COMM_WORLD);
    compare("MPI_Startall allgatherv", it, recv + roff, want, total);
  }
  MPI_Request_free(&req[1]);
  MPI_Request_free(&req[2]);

  int all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && !all)
    printf("persist_check: ok (%d iterations)\n", iters);
  free(send);
  free(recv);
  free(want);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(agr);
  free(agd);
  MPI_Finalize();
  return all != 0;
}
#endif

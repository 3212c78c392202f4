/* Two threads of an MPI_THREAD_MULTIPLE program, each calling collectives
 * on its own duplicated communicator at the same time: MPI_Alltoall,
 * MPI_Ialltoall + MPI_Wait, MPI_Alltoallv. Every result compared byte for
 * byte with MPI's own collective (PMPI_, same thread, same communicator).
 *   thread_check [BYTES [ITERS]]
 * Prints "thread_check: ok (2 threads, ITERS iterations, BYTES B)" and
 * exits 0 when all matched; 2 when MPI does not provide
 * MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bytes = 4096, iters = 200;

typedef struct worker {
  MPI_Comm comm;
  int id, failures;
} worker_t;

static void *work(void *arg) {
  worker_t *w = arg;
  size_t n = (size_t)bytes * size;
  unsigned char *send = malloc(n), *recv = malloc(n), *want = malloc(n);
  int *counts = malloc(4 * sizeof(int) * (size_t)size);
  int *sc = counts, *sd = counts + size, *rc = counts + 2 * size, *rd = counts + 3 * size;
  for (int it = 0; it < iters; ++it) {
    for (size_t k = 0; k < n; ++k)
      send[k] = (unsigned char)(rank * 37 + w->id * 101 + it * 7 + k);
    switch (it % 3) {
    case 0:
      MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, w->comm);
      PMPI_Alltoall(send, bytes, MPI_BYTE, want, bytes, MPI_BYTE, w->comm);
      break;
    case 1: {
      MPI_Request r;
      MPI_Ialltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, w->comm, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      PMPI_Alltoall(send, bytes, MPI_BYTE, want, bytes, MPI_BYTE, w->comm);
      break;
    }
    default: {
      int at = 0;
      for (int d = 0; d < size; ++d) {
        sc[d] = rc[d] = (it + d + rank) % (bytes + 1);
        rc[d] = (it + d + rank) % (bytes + 1);
        sd[d] = rd[d] = at;
        at += bytes;
      }
      memset(recv, 0, n);
      memset(want, 0, n);
      MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, w->comm);
      PMPI_Alltoallv(send, sc, sd, MPI_BYTE, want, rc, rd, MPI_BYTE, w->comm);
    }
    }
    if (memcmp(recv, want, n)) {
      ++w->failures;
      fprintf(stderr, "thread_check: rank %d thread %d iteration %d differs from MPI's result\n",
              rank, w->id, it);
    }
  }
  free(send);
  free(recv);
  free(want);
  free(counts);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    if (!rank)
      fprintf(stderr, "thread_check: MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n",
              provided);
    MPI_Finalize();
    return 2;
  }
  if (argc > 1)
    bytes = atoi(argv[1]);
  if (argc > 2)
    iters = atoi(argv[2]);
  worker_t w[2];
  pthread_t t[2];
  for (int k = 0; k < 2; ++k) {
    w[k].id = k;
    w[k].failures = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &w[k].comm);
  }
  for (int k = 0; k < 2; ++k)
    pthread_create(&t[k], NULL, work, &w[k]);
  for (int k = 0; k < 2; ++k)
    pthread_join(t[k], NULL);
  int mine = w[0].failures + w[1].failures, all = 0;
  /* PMPI_: the program's own tally, not a call under test (the
   * library serves MPI_Allreduce too) */
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < 2; ++k)
    MPI_Comm_free(&w[k].comm);
  if (!rank && !all)
    printf("thread_check: ok (2 threads, %d iterations, %d B)\n", iters, bytes);
  MPI_Finalize();
  return all ? 1 : 0;
}

/* Is a single-copy on-node alltoall faster than MPI's own? (issue 8)
 *
 * Two ways to run the same alltoall of N bytes per pair between the ranks
 * of one node, alternated iteration by iteration in one run:
 *   mpi   MPI_Alltoall;
 *   cma   each rank reads its block straight out of every peer's send buffer
 *         with process_vm_readv (Linux cross-memory attach: one copy), its
 *         own block with memcpy, then a zero-byte message to every peer says
 *         "done reading yours" (so a peer may not reuse its buffer earlier).
 * Both results are compared byte for byte with the expected pattern; a
 * mismatch exits 1. Prints min and median per way and their ratio.
 *
 * Whether single copy pays depends on what MPI already does: MPICH over UCX
 * moves large intra-node messages with UCX's own CMA rendezvous (one copy),
 * unless UCX_TLS excludes `cma` (then: two copies through shared memory).
 * bench/shm/run.sh runs both configurations.
 *
 *   mpiexec -n 2 single-copy [--bytes N,...] [--iters K] */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static uint8_t pattern(int src, int dst, size_t k) {
  return (uint8_t)(src * 131 + dst * 17 + k * 7 + 1);
}

static int check(const uint8_t *recv, int me, int P, size_t n, const char *what) {
  for (int s = 0; s < P; ++s)
    for (size_t k = 0; k < n; ++k)
      if (recv[(size_t)s * n + k] != pattern(s, me, k)) {
        fprintf(stderr, "single-copy: %s: rank %d byte %zu from rank %d differs\n", what, me, k, s);
        return 1;
      }
  return 0;
}

/* One single-copy alltoall; peers' send buffers at addr[] in pid[]. */
static int cma_alltoall(const uint8_t *send, uint8_t *recv, size_t n, int me, int P,
                        const pid_t *pid, const uint64_t *addr, MPI_Request *reqs,
                        MPI_Status *statuses) {
  memcpy(recv + (size_t)me * n, send + (size_t)me * n, n);
  for (int k = 1; k < P; ++k) {
    int s = (me + k) % P;
    struct iovec local = {recv + (size_t)s * n, n};
    struct iovec remote = {(void *)(uintptr_t)(addr[s] + (uint64_t)me * n), n};
    if (n && process_vm_readv(pid[s], &local, 1, &remote, 1, 0) != (ssize_t)n) {
      perror("single-copy: process_vm_readv");
      return 1;
    }
  }
  /* "done with your buffer": a peer returns only once all have read it */
  int nreq = 0;
  for (int k = 1; k < P; ++k) {
    MPI_Irecv(NULL, 0, MPI_BYTE, (me - k + P) % P, 7, MPI_COMM_WORLD, &reqs[nreq++]);
    MPI_Isend(NULL, 0, MPI_BYTE, (me + k) % P, 7, MPI_COMM_WORLD, &reqs[nreq++]);
  }
  /* (MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow) */
  MPI_Waitall(nreq, reqs, statuses);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const char *sizes = "1024,65536,262144,1048576,4194304";
  int iters = 200;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
      sizes = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else {
      if (!me)
        fprintf(stderr, "usage: single-copy [--bytes N,...] [--iters K]\n");
      MPI_Finalize();
      return 2;
    }
  }
  MPI_Comm node;
  int node_size;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  if (node_size != P) {
    if (!me)
      fprintf(stderr, "single-copy: needs every rank on one node (%d of %d are)\n", node_size, P);
    MPI_Finalize();
    return 2;
  }
  pid_t *pid = malloc((size_t)P * sizeof *pid);
  uint64_t *addr = malloc((size_t)P * sizeof *addr);
  MPI_Request *reqs = malloc(2 * (size_t)P * sizeof *reqs);
  MPI_Status *statuses = malloc(2 * (size_t)P * sizeof *statuses);
  double *t_mpi = malloc((size_t)iters * sizeof *t_mpi), *t_cma = malloc((size_t)iters * sizeof *t_cma);
  int bad = 0;
  if (!me)
    printf("# %d ranks on one node, %d iterations alternated; us per alltoall (max over ranks)\n"
           "# %10s %10s %10s %10s %10s %8s\n", P, iters, "bytes", "mpi_min", "mpi_med",
           "cma_min", "cma_med", "mpi/cma");
  for (const char *p = sizes; *p && !bad;) {
    size_t n = strtoull(p, (char **)&p, 10);
    if (*p == ',')
      ++p;
    uint8_t *send = malloc((size_t)P * n + 1), *recv = malloc((size_t)P * n + 1);
    for (int d = 0; d < P; ++d)
      for (size_t k = 0; k < n; ++k)
        send[(size_t)d * n + k] = pattern(me, d, k);
    pid_t mine = getpid();
    uint64_t at = (uint64_t)(uintptr_t)send;
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, pid, sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Allgather(&at, 1, MPI_UINT64_T, addr, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int it = -5; it < iters && !bad; ++it) {
      for (int way = 0; way < 2 && !bad; ++way) {
        memset(recv, 0, (size_t)P * n);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (way == 0)
          MPI_Alltoall(send, (int)n, MPI_BYTE, recv, (int)n, MPI_BYTE, MPI_COMM_WORLD);
        else
          bad |= cma_alltoall(send, recv, n, me, P, pid, addr, reqs, statuses);
        double t = MPI_Wtime() - t0, tmax;
        bad |= check(recv, me, P, n, way ? "cma" : "mpi");
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int any;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        bad = any;
        if (it >= 0)
          (way ? t_cma : t_mpi)[it] = tmax * 1e6;
      }
    }
    if (!bad && !me) {
      qsort(t_mpi, (size_t)iters, sizeof *t_mpi, cmp_double);
      qsort(t_cma, (size_t)iters, sizeof *t_cma, cmp_double);
      printf("  %10zu %10.1f %10.1f %10.1f %10.1f %8.2f\n", n, t_mpi[0], t_mpi[iters / 2],
             t_cma[0], t_cma[iters / 2], t_mpi[iters / 2] / t_cma[iters / 2]);
    }
    free(send);
    free(recv);
  }
  if (!me && !bad)
    printf("verified: every result of both ways equals the expected bytes\n");
  free(pid);
  free(addr);
  free(reqs);
  free(statuses);
  free(t_mpi);
  free(t_cma);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return bad;
}

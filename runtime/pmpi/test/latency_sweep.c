/* OSU-style latency of MPI_Alltoall, MPI_Alltoallv, MPI_Allgatherv,
 * MPI_Allreduce (a sum of ints, the message BYTES / 4 of them) or MPI_Bcast
 * (from rank 0) over a range of block (message) sizes, the way osu_alltoall and its siblings measure it:
 * per size, a few untimed warm-up calls, then ITERS calls each timed alone
 * and followed by a barrier; the latency is the mean over calls, averaged
 * over ranks. The v-collectives use uniform counts, as OSU does. Every size
 * is validated afterwards (OSU's -c): one more call on fresh data, compared
 * byte for byte with PMPI's own collective, so that a preloaded library
 * that is fast and wrong fails here.
 *   latency_sweep alltoall|alltoallv|allgatherv|allreduce|bcast MIN_BYTES MAX_BYTES ITERS
 * Prints "SIZE LATENCY_US" per size on rank 0; exits 1 on a wrong result. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALLTOALL, ALLTOALLV, ALLGATHERV, ALLREDUCE, BCAST };

typedef struct args {
  int op, size, rank;
  int *counts, *displs; /* uniform: `bytes` per peer */
} args_t;

static int call(const args_t *a, int bytes, const void *send, void *recv, int pmpi) {
  switch (a->op) {
  case ALLTOALL:
    return pmpi ? PMPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD)
                : MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
  case ALLTOALLV:
    return pmpi ? PMPI_Alltoallv(send, a->counts, a->displs, MPI_BYTE, recv, a->counts,
                                 a->displs, MPI_BYTE, MPI_COMM_WORLD)
                : MPI_Alltoallv(send, a->counts, a->displs, MPI_BYTE, recv, a->counts,
                                a->displs, MPI_BYTE, MPI_COMM_WORLD);
  case ALLREDUCE:
    return pmpi ? PMPI_Allreduce(send, recv, bytes / (int)sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                : MPI_Allreduce(send, recv, bytes / (int)sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  case BCAST: /* recv is the buffer: the root's data, every other rank's result */
    return pmpi ? PMPI_Bcast(recv, bytes, MPI_BYTE, 0, MPI_COMM_WORLD)
                : MPI_Bcast(recv, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  default:
    return pmpi ? PMPI_Allgatherv(send, bytes, MPI_BYTE, recv, a->counts, a->displs, MPI_BYTE,
                                  MPI_COMM_WORLD)
                : MPI_Allgatherv(send, bytes, MPI_BYTE, recv, a->counts, a->displs, MPI_BYTE,
                                 MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  args_t a = {0};
  static const char *const ops[] = {"alltoall", "alltoallv", "allgatherv", "allreduce", "bcast"};
  a.op = -1;
  for (int k = 0; argc == 5 && k < 5; ++k)
    if (!strcmp(argv[1], ops[k]))
      a.op = k;
  if (a.op < 0) {
    fprintf(stderr, "usage: latency_sweep alltoall|alltoallv|allgatherv|allreduce|bcast MIN_BYTES MAX_BYTES ITERS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long min = atol(argv[2]), max = atol(argv[3]), iters = atol(argv[4]);
  MPI_Comm_rank(MPI_COMM_WORLD, &a.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a.size);
  a.counts = malloc(2 * sizeof(int) * (size_t)a.size);
  a.displs = a.counts + a.size;
  size_t cap = (size_t)a.size * (size_t)max + 1;
  uint8_t *send = malloc(cap), *recv = malloc(cap), *ref = malloc(cap);
  int errors = 0;
  for (long bytes = min < 1 ? 1 : min; bytes <= max; bytes *= 2) {
    for (int j = 0; j < a.size; ++j) {
      a.counts[j] = (int)bytes;
      a.displs[j] = (int)(j * bytes);
    }
    /* OSU runs fewer iterations of large messages */
    long n = bytes > 8192 ? (iters / 10 > 10 ? iters / 10 : 10) : iters;
    long skip = n / 10 > 2 ? n / 10 : 2;
    memset(send, a.rank + 1, cap);
    double total = 0;
    for (long i = 0; i < n + skip; ++i) {
      double t0 = MPI_Wtime();
      call(&a, (int)bytes, send, recv, 0);
      double t = MPI_Wtime() - t0;
      if (i >= skip)
        total += t;
      MPI_Barrier(MPI_COMM_WORLD);
    }
    double mean = total / (double)n, sum = 0;
    MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    /* validation: fresh bytes, one call, against MPI's own */
    int one_message = a.op == ALLREDUCE || a.op == BCAST;
    size_t in = a.op == ALLGATHERV || one_message ? (size_t)bytes : (size_t)(a.size * bytes);
    for (size_t k = 0; k < in; ++k)
      send[k] = (uint8_t)(a.rank * 131 + k * 7 + bytes);
    if (a.op == ALLREDUCE) /* small ints: MPI's sum does not overflow */
      for (size_t k = 0; k + sizeof(int) <= in; k += sizeof(int)) {
        int v = (int)((a.rank * 131 + k * 7 + bytes) % 100003);
        memcpy(send + k, &v, sizeof v);
      }
    size_t out = one_message ? (size_t)bytes : (size_t)(a.size * bytes);
    memset(recv, 0xee, out);
    memset(ref, 0x11, out);
    if (a.op == BCAST && a.rank == 0) {
      memcpy(recv, send, out);
      memcpy(ref, send, out);
    }
    call(&a, (int)bytes, send, recv, 0);
    call(&a, (int)bytes, send, ref, 1);
    if (memcmp(recv, ref, out)) {
      fprintf(stderr, "latency_sweep: rank %d: %s of %ld B differs from MPI's\n", a.rank, argv[1],
              bytes);
      errors = 1;
    }
    if (a.rank == 0)
      printf("%ld %.2f\n", bytes, sum / a.size * 1e6);
  }
  int any = 0;
  /* PMPI_: the program's own tally, not a call under test (the
   * library serves MPI_Allreduce too) */
  PMPI_Allreduce(&errors, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(send);
  free(recv);
  free(ref);
  free(a.counts);
  MPI_Finalize();
  return any;
}

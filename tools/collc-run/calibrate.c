/* collc-run --calibrate: measures the cost model's alpha, beta and gamma on
 * this machine and prints them as a spec's network: section.
 *
 *   mpiexec -n 2 collc-run --calibrate [--max-bytes N] > network.yaml
 *
 * - alpha (alpha_us, per message) and beta (beta_ns_per_byte): ping-pong
 *   between ranks 0 and 1 at m = 4, 16, 64, ... up to --max-bytes (default
 *   1 MiB); the one-way time t(m) of a size is half the median round trip.
 *   alpha = t(4), the cost of a message that carries (almost) nothing, and
 *   beta is the least-squares slope of t(m) - alpha over m (a line through
 *   (0, alpha)), which the large messages decide, as they should: a fit of
 *   the intercept as well lets the few large sizes move alpha far from what
 *   small messages cost (MPI's eager/rendezvous switch bends the curve).
 * - gamma (copy_ns_per_byte): memcpy on rank 0 between two buffers at 4 KiB
 *   .. 4 MiB, the least-squares slope through the origin.
 * - If ranks 0 and 1 share a node (MPI_COMM_TYPE_SHARED), the ping-pong went
 *   through shared memory: the output says so and repeats the figures as
 *   shm_latency_us and shm_mb_per_s. To measure the network, place ranks 0
 *   and 1 on different nodes.
 *
 * Output on rank 0, stdout: comment lines (the measurements and the fit),
 * then the network: section, to be pasted under a spec's topology:. Ranks
 * beyond 1 wait in a sleeping loop so that they do not take the cores the
 * measurement runs on. */
#include "calibrate.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_SIZES = 32 };

typedef struct sample {
  double bytes, us; /* one message / one copy of `bytes`: median time */
  int reps;
} sample_t;

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, compare_doubles);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Repetitions at a size: many for small messages (noise), few for large. */
static int reps_for(double bytes, double budget_bytes) {
  double r = budget_bytes / (bytes < 1024 ? 1024 : bytes);
  return r < 10 ? 10 : r > 1000 ? 1000 : (int)r;
}

/* The least-squares slope b of t = a + b*m for a given a. */
static double slope(const sample_t *s, int n, double a) {
  double Sxx = 0, Sxy = 0;
  for (int i = 0; i < n; ++i)
    Sxx += s[i].bytes * s[i].bytes, Sxy += s[i].bytes * (s[i].us - a);
  return Sxy / Sxx;
}

/* Ping-pong between ranks 0 and 1 at one size; rank 0 gets the median
 * one-way time in microseconds. */
static double pingpong(char *buf, int bytes, int reps, int rank, double *rtt) {
  const int warmup = 5;
  for (int i = -warmup; i < reps; ++i) {
    double t = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    if (i >= 0)
      rtt[i] = MPI_Wtime() - t;
  }
  return 1e6 * median(rtt, reps) / 2;
}

/* Read after each copy, so that the copy is kept. */
static volatile char copy_sink;

/* memcpy of `bytes` between two buffers: median time in microseconds. */
static double copy_time(char *dst, const char *src, size_t bytes, int reps, double *t) {
  for (int i = -2; i < reps; ++i) {
    double t0 = MPI_Wtime();
    memcpy(dst, src, bytes);
    copy_sink = dst[bytes - 1];
    if (i >= 0)
      t[i] = MPI_Wtime() - t0;
  }
  return 1e6 * median(t, reps);
}

/* Whether world ranks 0 and 1 are on the same node (known on rank 0). */
static int ranks_0_1_share_node(int rank) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int leader; /* the lowest world rank on this node */
  MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  int other = -1;
  if (rank == 1)
    MPI_Send(&leader, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  else if (rank == 0)
    MPI_Recv(&other, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return rank == 0 && other == leader;
}

/* Ranks beyond 1: wait for the others without spinning on a core. */
static void idle_until_done(void) {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  for (int done = 0; !done;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done)
      nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
  }
}

static int parse(int argc, char **argv, int rank, long long *max_bytes) {
  *max_bytes = 1 << 20;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--calibrate"))
      continue;
    if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) {
      char *end;
      *max_bytes = strtoll(argv[++i], &end, 10);
      if (*end || *max_bytes < 64 || *max_bytes > (1 << 30)) {
        if (rank == 0)
          fprintf(stderr, "collc-run: error: --max-bytes is '%s'; give a byte count in [64, 2^30]\n",
                argv[i]);
        return 1;
      }
      continue;
    }
    if (rank == 0)
      fprintf(stderr, "collc-run: error: '%s' does not go with --calibrate "
                      "(usage: mpiexec -n 2 collc-run --calibrate [--max-bytes N])\n",
              argv[i]);
    return 1;
  }
  return 0;
}

static void print_samples(const sample_t *s, int n, double a, double b, const char *what) {
  printf("#   %10s  %12s  %10s  %6s\n", "bytes", what, "fit_us", "reps");
  for (int i = 0; i < n; ++i)
    printf("#   %10.0f  %12.3f  %10.3f  %6d\n", s[i].bytes, s[i].us, a + b * s[i].bytes, s[i].reps);
}

int calibrate_main(int argc, char **argv) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long long max_bytes;
  if (parse(argc, argv, rank, &max_bytes))
    return 2; /* every rank parsed the same arguments */
  if (size < 2) {
    if (rank == 0)
      fprintf(stderr, "collc-run: error: --calibrate needs 2 ranks or more (a ping-pong between "
                      "ranks 0 and 1); run it under mpiexec -n 2\n");
    return 2;
  }
  int shared = ranks_0_1_share_node(rank);
  if (rank > 1) {
    idle_until_done();
    return 0;
  }

  /* alpha, beta: ping-pong */
  sample_t net[MAX_SIZES];
  int nnet = 0;
  char *buf = calloc((size_t)max_bytes, 1);
  double *t = malloc(1000 * sizeof *t);
  for (long long m = 4; m <= max_bytes && nnet < MAX_SIZES; m *= 4) {
    int reps = reps_for((double)m, 16 << 20);
    net[nnet++] = (sample_t){(double)m, pingpong(buf, (int)m, reps, rank, t), reps};
  }
  free(buf);

  /* gamma: memcpy on rank 0, while rank 1 sleeps */
  if (rank == 1) {
    free(t);
    idle_until_done();
    return 0;
  }
  sample_t copy[MAX_SIZES];
  int ncopy = 0;
  {
    size_t most = 4 << 20;
    char *src = malloc(most), *dst = malloc(most);
    memset(src, 1, most), memset(dst, 2, most);
    for (size_t m = 4096; m <= most; m *= 4) {
      int reps = reps_for((double)m, 64 << 20);
      copy[ncopy++] = (sample_t){(double)m, copy_time(dst, src, m, reps, t), reps};
    }
    free(src);
    free(dst);
  }
  free(t);
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req); /* releases ranks 1.. */
  MPI_Wait(&req, MPI_STATUS_IGNORE);

  double alpha = net[0].us, beta = slope(net, nnet, alpha), gamma = slope(copy, ncopy, 0);
  if (!(alpha > 0)) /* a spec's alpha_us must be > 0: below the clock's resolution */
    alpha = 1e-3;
  if (!(beta > 0))
    beta = net[nnet - 1].us / net[nnet - 1].bytes;
  if (!(gamma > 0))
    gamma = copy[ncopy - 1].us / copy[ncopy - 1].bytes;
  beta *= 1e3, gamma *= 1e3; /* us per byte -> ns per byte */

  printf("# collc-run --calibrate on %d ranks: ping-pong between ranks 0 and 1, which %s\n", size,
         shared ? "share a node" : "are on different nodes: alpha and beta are the network's");
  if (shared)
    printf("# (MPI_COMM_TYPE_SHARED): alpha and beta are shared-memory figures, repeated as\n"
           "# shm_latency_us and shm_mb_per_s; for the network's, place ranks 0 and 1 on two nodes\n");
  printf("# one-way time = half the median round trip; alpha = the 4-byte time, beta = the "
         "least-squares slope of t - alpha\n");
  print_samples(net, nnet, alpha, beta / 1e3, "one_way_us");
  printf("# memcpy on rank 0, median per size; copy_ns_per_byte = the least-squares slope\n");
  print_samples(copy, ncopy, 0, gamma / 1e3, "copy_us");
  printf("# paste under topology: in a spec\n");
  printf("network:\n");
  printf("  alpha_us: %.4g\n", alpha);
  printf("  beta_ns_per_byte: %.4g\n", beta);
  printf("  copy_ns_per_byte: %.4g\n", gamma);
  if (shared) {
    printf("  shm_latency_us: %.4g\n", alpha);
    printf("  shm_mb_per_s: %.0f\n", 1e3 / beta);
  }
  return 0;
}

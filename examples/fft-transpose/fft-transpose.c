/* fft-transpose: a distributed 2D FFT of an N x N complex array whose two
 * transposes are alltoalls run by an embedded collc plan (or, with --native,
 * by MPI_Alltoall). Local 1D FFTs come from serial FFTW.
 *
 *   mpiexec -n P fft-transpose [--n N] [--iters K] [--native] [--tol T]
 *
 * Layout: rank r holds rows [r*n, (r+1)*n) of the array, n = N/P (P must
 * divide N). One 2D FFT is
 *   1. a 1D FFT of each local row,
 *   2. a transpose: rank r now holds rows [r*n, (r+1)*n) of the transpose,
 *   3. a 1D FFT of each local row (the original columns),
 *   4. a transpose back, so the result is in the input's row slabs.
 * A transpose packs the n x n sub-block bound for rank d, transposed, into
 * block d of the send buffer (one alltoall of n*n complex numbers per peer)
 * and copies each received block's rows into place.
 *
 * The result is gathered on rank 0 and compared with FFTW's serial 2D FFT
 * of the whole array: error = max |X - X_ref| / max |X_ref|; exit 1 if it is
 * above --tol (default 1e-10).
 *
 * Times are the median over --iters runs (default 5, after one untimed run)
 * of the maximum over ranks: the whole 2D FFT and the part of it spent in the
 * two exchanges (start+wait of the plan, or MPI_Alltoall). */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collc/collrt.h>
/* after complex.h: fftw_complex is then double complex */
#include <fftw3.h>

extern const unsigned char transpose_plan[];
extern const unsigned long transpose_plan_size;

typedef struct options {
  int n, iters, native;
  double tol;
} options_t;

/* The exchange of a transpose: the embedded plan bound to send/recv, or
 * MPI_Alltoall on the same buffers. */
typedef struct exchange {
  collrt_coll_t *coll; /* NULL: native */
  fftw_complex *send, *recv;
  int block; /* complex numbers per peer */
  double seconds;
} exchange_t;

static int parse(int argc, char **argv, options_t *o) {
  *o = (options_t){.n = 256, .iters = 5, .native = 0, .tol = 1e-10};
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--native")) {
      o->native = 1;
    } else if (!strcmp(a, "--n") && v) {
      o->n = atoi(v), ++i;
    } else if (!strcmp(a, "--iters") && v) {
      o->iters = atoi(v), ++i;
    } else if (!strcmp(a, "--tol") && v) {
      o->tol = atof(v), ++i;
    } else {
      fprintf(stderr, "fft-transpose: unknown or incomplete option '%s'\n"
                      "usage: mpiexec -n P fft-transpose [--n N] [--iters K] [--native] [--tol T]\n",
              a);
      return 1;
    }
  }
  if (o->n < 1 || o->iters < 1 || !(o->tol > 0)) {
    fprintf(stderr, "fft-transpose: --n and --iters must be at least 1 and --tol above 0\n");
    return 1;
  }
  return 0;
}

/* The input: a fixed pseudo-random value in [-1, 1)^2 per global element. */
static double complex input(int64_t row, int64_t col, int64_t N) {
  uint64_t z = (uint64_t)(row * N + col) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  double re = (double)(z >> 40) / (double)(1 << 23) - 1;
  double im = (double)(z & 0xFFFFFF) / (double)(1 << 23) - 1;
  return re + im * I;
}

static int run_exchange(exchange_t *x, collrt_diag_t *diag) {
  double t = MPI_Wtime();
  if (x->coll) {
    if (collrt_start(x->coll, diag) || collrt_wait(x->coll, diag))
      return 1;
  } else {
    MPI_Alltoall(x->send, 2 * x->block, MPI_DOUBLE, x->recv, 2 * x->block, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  }
  x->seconds += MPI_Wtime() - t;
  return 0;
}

/* b (n x N) = rows [r*n, (r+1)*n) of the transpose of the N x N array whose
 * rows [r*n, (r+1)*n) are a (n x N). */
static int transpose(const fftw_complex *a, fftw_complex *b, int n, int P, exchange_t *x,
                     collrt_diag_t *diag) {
  int N = n * P;
  for (int d = 0; d < P; ++d) /* block d: a's columns [d*n, (d+1)*n), transposed */
    for (int c = 0; c < n; ++c)
      for (int i = 0; i < n; ++i)
        x->send[((size_t)d * n + c) * n + i] = a[(size_t)i * N + d * n + c];
  if (run_exchange(x, diag))
    return 1;
  for (int c = 0; c < n; ++c) /* block s, row c = b's row c, columns [s*n, (s+1)*n) */
    for (int s = 0; s < P; ++s)
      memcpy(&b[(size_t)c * N + s * n], &x->recv[((size_t)s * n + c) * n],
             (size_t)n * sizeof(fftw_complex));
  return 0;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median over iterations of the maximum over ranks (rank 0's result). */
static double median_of_max(double *t, int iters) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(rank ? t : MPI_IN_PLACE, t, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  qsort(t, (size_t)iters, sizeof *t, compare_doubles);
  return iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;
}

/* Gathers the distributed result on rank 0 and compares it with FFTW's 2D
 * FFT of the whole input; returns the relative error there (0 elsewhere). */
static double check(const fftw_complex *x, int n, int P, int rank) {
  int N = n * P;
  size_t all = (size_t)N * N;
  fftw_complex *got = rank ? NULL : fftw_malloc(all * sizeof(fftw_complex));
  fftw_complex *ref = rank ? NULL : fftw_malloc(all * sizeof(fftw_complex));
  MPI_Gather(x, 2 * n * N, MPI_DOUBLE, got, 2 * n * N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank)
    return 0;
  fftw_plan p = fftw_plan_dft_2d(N, N, ref, ref, FFTW_FORWARD, FFTW_ESTIMATE);
  for (int64_t g = 0; g < N; ++g)
    for (int64_t j = 0; j < N; ++j)
      ref[g * N + j] = input(g, j, N);
  fftw_execute(p);
  double err = 0, scale = 0;
  for (size_t k = 0; k < all; ++k) {
    err = fmax(err, cabs(got[k] - ref[k]));
    scale = fmax(scale, cabs(ref[k]));
  }
  fftw_destroy_plan(p);
  fftw_free(got);
  fftw_free(ref);
  return scale > 0 ? err / scale : err;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  options_t o;
  if (parse(argc, argv, &o)) {
    MPI_Finalize();
    return 2;
  }
  if (o.n % P) {
    if (!rank)
      fprintf(stderr, "fft-transpose: N = %d is not a multiple of the %d ranks; pass --n with a multiple\n",
              o.n, P);
    MPI_Finalize();
    return 2;
  }
  int N = o.n, n = N / P;
  size_t slab = (size_t)n * N;
  fftw_complex *a = fftw_malloc(slab * sizeof *a), *b = fftw_malloc(slab * sizeof *b);
  exchange_t x = {.send = fftw_malloc(slab * sizeof *a), .recv = fftw_malloc(slab * sizeof *a),
                  .block = n * n};
  double *t_fft = calloc((size_t)o.iters, sizeof *t_fft),
         *t_exchange = calloc((size_t)o.iters, sizeof *t_exchange);

  /* n in-place FFTs of length N over contiguous rows, for a and for b */
  fftw_plan rows_a = fftw_plan_many_dft(1, &N, n, a, NULL, 1, N, a, NULL, 1, N, FFTW_FORWARD,
                                        FFTW_ESTIMATE);
  fftw_plan rows_b = fftw_plan_many_dft(1, &N, n, b, NULL, 1, N, b, NULL, 1, N, FFTW_FORWARD,
                                        FFTW_ESTIMATE);

  collrt_plan_t *plan = NULL;
  collrt_diag_t diag;
  if (!o.native &&
      (collrt_plan_load(transpose_plan, transpose_plan_size, &plan, &diag) ||
       collrt_bind_alltoall(plan, MPI_COMM_WORLD, x.send, x.recv, 2 * x.block, MPI_DOUBLE, 0,
                            &x.coll, &diag))) {
    fprintf(stderr, "fft-transpose: rank %d: %s\n", rank, diag.message);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  for (int it = -1; it < o.iters; ++it) { /* iteration -1: warm-up, untimed */
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < N; ++j)
        a[(size_t)i * N + j] = input((int64_t)rank * n + i, j, N);
    MPI_Barrier(MPI_COMM_WORLD);
    x.seconds = 0;
    double t = MPI_Wtime();
    fftw_execute(rows_a);
    int failed = transpose(a, b, n, P, &x, &diag);
    fftw_execute(rows_b);
    failed = failed || transpose(b, a, n, P, &x, &diag);
    t = MPI_Wtime() - t;
    if (failed) {
      fprintf(stderr, "fft-transpose: rank %d: %s\n", rank, diag.message);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (it >= 0)
      t_fft[it] = t, t_exchange[it] = x.seconds;
  }

  double fft_ms = 1e3 * median_of_max(t_fft, o.iters);
  double exchange_ms = 1e3 * median_of_max(t_exchange, o.iters);
  double err = check(a, n, P, rank);
  int bad = !rank && !(err <= o.tol);
  if (!rank) {
    printf("fft-transpose: N=%d P=%d transposes=%s block_bytes=%zu iters=%d\n", N, P,
           o.native ? "MPI_Alltoall" : "collc-plan", (size_t)x.block * sizeof(fftw_complex),
           o.iters);
    printf("fft-transpose: fft_ms=%.3f transposes_ms=%.3f (median over iterations of the max "
           "over ranks)\n",
           fft_ms, exchange_ms);
    printf("fft-transpose: max_rel_error=%.3g tolerance=%.3g %s\n", err, o.tol,
           bad ? "FAILED" : "ok");
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);

  collrt_coll_free(x.coll);
  collrt_plan_free(plan);
  fftw_destroy_plan(rows_a);
  fftw_destroy_plan(rows_b);
  fftw_free(a);
  fftw_free(b);
  fftw_free(x.send);
  fftw_free(x.recv);
  free(t_fft);
  free(t_exchange);
  MPI_Finalize();
  return bad;
}

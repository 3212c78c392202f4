/* An ordinary MPI program for libcollc_pmpi's MPI_Allreduce and MPI_Bcast:
 * blocking, in place and not, nonblocking (MPI_Iallreduce, MPI_Ibcast
 * completed in opposite orders on even and odd ranks beside an
 * MPI_Ialltoall), persistent (MPI_Allreduce_init, MPI_Bcast_init started
 * several times), on the world, its halves (MPI_Comm_split) and the world
 * reversed. Every result is compared with the MPI library's own collective
 * on the same input (PMPI_*): integers byte for byte; doubles bitwise equal
 * on every rank of the communicator, and within 2 (P - 1) eps sum_i |x_i|
 * of MPI's result (the bound of any two summation orders). With
 * --serial-double BYTES, a double sum of at most BYTES (the plan set's band)
 * must also be bitwise the serial sum ((x_0 + x_1) + x_2) + ... in rank
 * order: what the plan set's linear allreduce computes, in every run.
 *
 *   reduce_check [--serial-double BYTES] [--no-persistent]
 *
 * What the plan set (runtime/pmpi/test/plans) cannot serve, the library
 * must send to MPI, explained: a user-defined operation (commutative and
 * not), a complex type, a sum on long (no such plan), a double sum past
 * the plan's band. Bcasts from root 1 and from the last rank are served:
 * the plan runs relabeled, one bound collective per root. Rank 0 prints
 * the summary line
 * libcollc_pmpi should print at MPI_Finalize (COLLC_VERBOSE):
 *   pmpi_check: expect: collc_pmpi: rank 0: ...
 * Exit status 1 on any mismatch. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_compat.h"
#include "seen_keys.h"

typedef struct expect {
  long served, hits, binds, no_match, rtype, rop, root, persistent, starts, nonblocking;
} expect_t;

static expect_t g_expect;
static int g_failures, g_world_rank;
static long g_serial_double = -1; /* --serial-double: bytes, or -1 */

static void expect_served(seen_t *seen, const char *key) {
  g_expect.served++;
  if (seen_before(seen, key))
    g_expect.hits++;
  else
    g_expect.binds++;
}

static void fail(const char *what, const char *why, int count) {
  fprintf(stderr, "reduce_check: rank %d: %s (count %d): %s\n", g_world_rank, what, count, why);
  g_failures++;
}

/* Contributions: comm rank r's element i, the same function on every rank
 * (so each can compute the serial sum) and a new one every repetition. */
static int ival(int r, int i, int rep) { return (r * 7919 + i * 31 + rep * 101) % 20011 - 10005; }
static double dval(int r, int i, int rep) {
  return sin(0.37 * r + 0.011 * i + rep) * pow(10.0, (r + i) % 7 - 3);
}

static void fill_int(int *p, int n, int r, int rep) {
  for (int i = 0; i < n; ++i)
    p[i] = ival(r, i, rep);
}
static void fill_double(double *p, int n, int r, int rep) {
  for (int i = 0; i < n; ++i)
    p[i] = dval(r, i, rep);
}

/* An int result against MPI's on the same input, byte for byte. */
static void check_int(const char *what, const int *got, int n, MPI_Op op, int rank, int rep,
                      MPI_Comm comm) {
  int *mine = calloc((size_t)n + 1, sizeof *mine), *ref = calloc((size_t)n + 1, sizeof *ref);
  fill_int(mine, n, rank, rep);
  PMPI_Allreduce(mine, ref, n, MPI_INT, op, comm);
  if (n && memcmp(got, ref, (size_t)n * sizeof *ref))
    fail(what, "differs from MPI's", n);
  free(mine);
  free(ref);
}

/* A double sum: bitwise equal on every rank, within the bound of MPI's,
 * and (served, in the band) bitwise the serial sum in rank order. */
static void check_double(const char *what, const double *got, int n, int rank, int size, int rep,
                         MPI_Comm comm) {
  double *mine = calloc((size_t)n + 1, sizeof *mine), *ref = calloc((size_t)n + 1, sizeof *ref);
  double *abs_in = malloc((size_t)n * sizeof *abs_in + 1), *abs_sum = malloc((size_t)n * sizeof *abs_sum + 1);
  double *root = malloc((size_t)n * sizeof *root + 1);
  fill_double(mine, n, rank, rep);
  for (int i = 0; i < n; ++i)
    abs_in[i] = fabs(mine[i]);
  PMPI_Allreduce(mine, ref, n, MPI_DOUBLE, MPI_SUM, comm);
  PMPI_Allreduce(abs_in, abs_sum, n, MPI_DOUBLE, MPI_SUM, comm);
  memcpy(root, got, (size_t)n * sizeof *root);
  PMPI_Bcast(root, n, MPI_DOUBLE, 0, comm);
  int differs = n && memcmp(root, got, (size_t)n * sizeof *root), far = 0, unserial = 0;
  for (int i = 0; i < n; ++i) {
    if (fabs(got[i] - ref[i]) > 2.0 * (size - 1) * DBL_EPSILON * abs_sum[i])
      far = 1;
    if (g_serial_double >= 0 && (long)n * (long)sizeof(double) <= g_serial_double) {
      double serial = dval(0, i, rep);
      for (int r = 1; r < size; ++r)
        serial += dval(r, i, rep);
      unserial |= memcmp(&serial, &got[i], sizeof serial) != 0;
    }
  }
  if (differs)
    fail(what, "not bitwise equal to rank 0's", n);
  if (far)
    fail(what, "further from MPI's than 2 (P - 1) eps sum |x|", n);
  if (unserial)
    fail(what, "not bitwise the serial sum in rank order", n);
  free(mine), free(ref), free(abs_in), free(abs_sum), free(root);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i)
    ((int *)inout)[i] += ((int *)in)[i];
}
/* non-commutative and associative: the left operand wins */
static void user_first(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i)
    ((int *)inout)[i] = ((int *)in)[i];
}

/* Blocking allreduces: int sum, double sum, int max, in place and not,
 * and the calls that fall back. */
static void allreduces(MPI_Comm comm, seen_t *seen, int rep) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static const int counts[] = {0, 1, 1000, 3000};
  for (size_t k = 0; k < sizeof counts / sizeof *counts; ++k) {
    int n = counts[k];
    int *s = malloc((size_t)n * sizeof *s + 1), *r = malloc((size_t)n * sizeof *r + 1);
    char key[64];
    snprintf(key, sizeof key, "allreduce/sum/int/%d", n);
    fill_int(s, n, rank, rep);
    MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm);
    expect_served(seen, key);
    check_int("MPI_Allreduce sum int", r, n, MPI_SUM, rank, rep, comm);
    fill_int(r, n, rank, rep);
    MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, comm);
    expect_served(seen, key);
    check_int("MPI_Allreduce sum int in place", r, n, MPI_SUM, rank, rep, comm);
    free(s), free(r);
  }
  static const int dcounts[] = {1, 1000, 3000};
  for (size_t k = 0; k < sizeof dcounts / sizeof *dcounts; ++k) {
    int n = dcounts[k], in_band = g_serial_double < 0 || (long)n * 8 <= g_serial_double;
    double *s = malloc((size_t)n * sizeof *s + 1), *r = malloc((size_t)n * sizeof *r + 1);
    char key[64];
    snprintf(key, sizeof key, "allreduce/sum/double/%d", n);
    fill_double(s, n, rank, rep);
    MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm);
    if (in_band)
      expect_served(seen, key);
    else
      g_expect.no_match++;
    check_double("MPI_Allreduce sum double", r, n, rank, size, rep, comm);
    fill_double(r, n, rank, rep);
    MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_DOUBLE, MPI_SUM, comm);
    if (in_band)
      expect_served(seen, key);
    else
      g_expect.no_match++;
    check_double("MPI_Allreduce sum double in place", r, n, rank, size, rep, comm);
    free(s), free(r);
  }
  static const int mcounts[] = {7, 1000};
  for (size_t k = 0; k < sizeof mcounts / sizeof *mcounts; ++k) {
    int n = mcounts[k], s[1000], r[1000];
    char key[64];
    snprintf(key, sizeof key, "allreduce/max/int/%d", n);
    fill_int(s, n, rank, rep);
    MPI_Allreduce(s, r, n, MPI_INT, MPI_MAX, comm);
    expect_served(seen, key);
    check_int("MPI_Allreduce max int", r, n, MPI_MAX, rank, rep, comm);
  }
  /* user-defined operations, commutative and not: MPI's own */
  {
    int s[16], r[16], ref[16];
    MPI_Op sum, first;
    MPI_Op_create(user_sum, 1, &sum);
    MPI_Op_create(user_first, 0, &first);
    fill_int(s, 16, rank, rep);
    MPI_Allreduce(s, r, 16, MPI_INT, sum, comm);
    PMPI_Allreduce(s, ref, 16, MPI_INT, sum, comm);
    if (memcmp(r, ref, sizeof r))
      fail("MPI_Allreduce user-defined commutative", "differs from MPI's", 16);
    MPI_Allreduce(s, r, 16, MPI_INT, first, comm);
    PMPI_Allreduce(s, ref, 16, MPI_INT, first, comm);
    if (memcmp(r, ref, sizeof r))
      fail("MPI_Allreduce user-defined non-commutative", "differs from MPI's", 16);
    g_expect.rop += 2;
    MPI_Op_free(&sum);
    MPI_Op_free(&first);
  }
  /* a type no plan reduces, and a sum on long, which no plan combines */
  {
    double _Complex s[8], r[8], ref[8];
    long ls[8], lr[8], lref[8];
    for (int i = 0; i < 8; ++i) {
      s[i] = ival(rank, i, rep) + ival(rank, i + 8, rep) * I;
      ls[i] = ival(rank, i, rep);
    }
    MPI_Allreduce(s, r, 8, MPI_C_DOUBLE_COMPLEX, MPI_SUM, comm);
    PMPI_Allreduce(s, ref, 8, MPI_C_DOUBLE_COMPLEX, MPI_SUM, comm);
    if (memcmp(r, ref, sizeof r))
      fail("MPI_Allreduce complex", "differs from MPI's", 8);
    MPI_Allreduce(ls, lr, 8, MPI_LONG, MPI_SUM, comm);
    PMPI_Allreduce(ls, lref, 8, MPI_LONG, MPI_SUM, comm);
    if (memcmp(lr, lref, sizeof lr))
      fail("MPI_Allreduce sum long", "differs from MPI's", 8);
    g_expect.rtype++;
    g_expect.no_match++;
  }
}

/* A bcast's result against MPI's own from the same root and input. */
static void bcast_one(MPI_Comm comm, seen_t *seen, int count, MPI_Datatype type, int root,
                      int rep, const char *what) {
  int rank, tsize = 0;
  MPI_Aint lb, extent;
  MPI_Comm_rank(comm, &rank);
  MPI_Type_size(type, &tsize);
  MPI_Type_get_extent(type, &lb, &extent);
  size_t bytes = (size_t)count * (size_t)extent + 1;
  uint8_t *b = malloc(bytes), *ref = malloc(bytes);
  for (size_t i = 0; i < bytes; ++i)
    b[i] = ref[i] = (uint8_t)(rank == root ? i * 13 + (size_t)rep * 7 + 1 : (size_t)(0xA5 ^ rank));
  MPI_Bcast(b, count, type, root, comm);
  PMPI_Bcast(ref, count, type, root, comm);
  if (memcmp(b, ref, bytes)) /* gaps included: the same as MPI leaves them */
    fail(what, "differs from MPI's", count);
  /* any root: the plan runs relabeled, one bound collective per root */
  char key[64];
  snprintf(key, sizeof key, "bcast/%lld/root%d", (long long)count * tsize, root);
  expect_served(seen, key);
  free(b), free(ref);
}

static void bcasts(MPI_Comm comm, seen_t *seen, int rep) {
  int size;
  MPI_Comm_size(comm, &size);
  MPI_Datatype vec; /* 3 ints with gaps: packed */
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  bcast_one(comm, seen, 1, MPI_INT, 0, rep, "MPI_Bcast int");
  bcast_one(comm, seen, 1000, MPI_INT, 0, rep, "MPI_Bcast int");
  bcast_one(comm, seen, 1000, MPI_DOUBLE, 0, rep, "MPI_Bcast double");
  bcast_one(comm, seen, 4, vec, 0, rep, "MPI_Bcast vector");
  if (size > 1)
    bcast_one(comm, seen, 1000, MPI_INT, 1, rep, "MPI_Bcast root 1");
  if (size > 2)
    bcast_one(comm, seen, 777, MPI_DOUBLE, size - 1, rep, "MPI_Bcast last root");
  MPI_Type_free(&vec);
}

/* Nonblocking: an allreduce of ints and of doubles, a bcast and an
 * alltoall, started in one order and completed in opposite orders on even
 * and odd ranks, then again completed by MPI_Waitall. */
static void nonblocking(MPI_Comm comm, seen_t *seen, int rep) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { N = 1000, A2A = 4 };
  for (int round = 0; round < 2; ++round) {
    int is[N], ir[N], bc[N], bref[N];
    double ds[N], dr[N];
    int *as = malloc((size_t)size * A2A * sizeof *as), *ar = malloc((size_t)size * A2A * sizeof *ar),
        *aref = malloc((size_t)size * A2A * sizeof *aref);
    fill_int(is, N, rank, rep + round);
    fill_double(ds, N, rank, rep + round);
    for (int i = 0; i < N; ++i)
      bc[i] = bref[i] = rank == 0 ? ival(0, i, rep + 7 * round) : -1;
    for (int i = 0; i < size * A2A; ++i)
      as[i] = rank * 1000 + i + round;
    MPI_Request req[4];
    MPI_Iallreduce(is, ir, N, MPI_INT, MPI_SUM, comm, &req[0]);
    MPI_Iallreduce(ds, dr, N, MPI_DOUBLE, MPI_SUM, comm, &req[1]);
    MPI_Ibcast(bc, N, MPI_INT, 0, comm, &req[2]);
    MPI_Ialltoall(as, A2A, MPI_INT, ar, A2A, MPI_INT, comm, &req[3]);
    if (round == 0) {
      for (int k = 0; k < 4; ++k)
        MPI_Wait(&req[rank % 2 ? 3 - k : k], MPI_STATUS_IGNORE);
    } else {
      MPI_Status st[4];
      MPI_Waitall(4, req, st);
    }
    char key[64];
    snprintf(key, sizeof key, "allreduce/sum/int/%d", N);
    expect_served(seen, key);
    int in_band = g_serial_double < 0 || (long)N * 8 <= g_serial_double;
    snprintf(key, sizeof key, "allreduce/sum/double/%d", N);
    if (in_band)
      expect_served(seen, key);
    else
      g_expect.no_match++;
    snprintf(key, sizeof key, "bcast/%d/root0", (int)(N * sizeof(int)));
    expect_served(seen, key);
    snprintf(key, sizeof key, "alltoall/%d", (int)(A2A * sizeof(int)));
    expect_served(seen, key);
    g_expect.nonblocking += 3 + in_band;
    check_int("MPI_Iallreduce sum int", ir, N, MPI_SUM, rank, rep + round, comm);
    check_double("MPI_Iallreduce sum double", dr, N, rank, size, rep + round, comm);
    PMPI_Bcast(bref, N, MPI_INT, 0, comm);
    if (memcmp(bc, bref, sizeof bc))
      fail("MPI_Ibcast", "differs from MPI's", N);
    PMPI_Alltoall(as, A2A, MPI_INT, aref, A2A, MPI_INT, comm);
    if (memcmp(ar, aref, (size_t)size * A2A * sizeof *ar))
      fail("MPI_Ialltoall", "differs from MPI's", A2A);
    free(as), free(ar), free(aref);
  }
}

/* Persistent: bound once, started several times with new data. */
static void persistent(MPI_Comm comm, int rep) {
#if COLLC_HAVE_PERSISTENT_COLL
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { N = 100, STARTS = 4 };
  int is[N], ir[N], bc[N], bref[N];
  double dr[N];
  MPI_Request req[3];
  MPI_Allreduce_init(is, ir, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req[0]);
  MPI_Allreduce_init(MPI_IN_PLACE, dr, N, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &req[1]);
  MPI_Bcast_init(bc, N, MPI_INT, 0, comm, MPI_INFO_NULL, &req[2]);
  int in_band = g_serial_double < 0 || N * 8 <= g_serial_double;
  g_expect.persistent += 2 + in_band;
  g_expect.no_match += !in_band;
  for (int start = 0; start < STARTS; ++start) {
    int r = rep * 10 + start;
    fill_int(is, N, rank, r);
    fill_double(dr, N, rank, r);
    for (int i = 0; i < N; ++i)
      bc[i] = bref[i] = rank == 0 ? ival(0, i, r + 3) : -2;
    MPI_Startall(3, req);
    MPI_Status st[3];
    MPI_Waitall(3, req, st);
    g_expect.starts += 2 + in_band;
    check_int("MPI_Allreduce_init sum int", ir, N, MPI_SUM, rank, r, comm);
    check_double("MPI_Allreduce_init sum double in place", dr, N, rank, size, r, comm);
    PMPI_Bcast(bref, N, MPI_INT, 0, comm);
    if (memcmp(bc, bref, sizeof bc))
      fail("MPI_Bcast_init", "differs from MPI's", N);
  }
  for (int k = 0; k < 3; ++k)
    MPI_Request_free(&req[k]);
#else
  (void)comm, (void)rep;
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int use_persistent = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--serial-double") && i + 1 < argc)
      g_serial_double = atol(argv[++i]);
    else if (!strcmp(argv[i], "--no-persistent"))
      use_persistent = 0;
  }
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comms[3];
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, g_world_rank, &comms[1]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - g_world_rank, &comms[2]);
  static seen_t seen[3];
  for (int rep = 0; rep < 2; ++rep)
    for (int c = 0; c < 3; ++c) {
      allreduces(comms[c], &seen[c], rep);
      bcasts(comms[c], &seen[c], rep);
      nonblocking(comms[c], &seen[c], rep);
      if (use_persistent)
        persistent(comms[c], rep);
    }
  MPI_Comm_free(&comms[1]);
  MPI_Comm_free(&comms[2]);
  int failures = 0;
  PMPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_world_rank == 0) {
    const expect_t *e = &g_expect;
    long fell = e->no_match + e->rtype + e->rop + e->root;
    char reasons[256] = "", more[192] = "";
    size_t at = 0;
    const char *names[] = {"no matching plan", "reduction type", "reduction operation", "root"};
    long counts[] = {e->no_match, e->rtype, e->rop, e->root};
    for (int k = 0; k < 4; ++k)
      if (counts[k])
        at += (size_t)snprintf(reasons + at, sizeof reasons - at, "%s%s: %ld", at ? ", " : " (",
                               names[k], counts[k]);
    if (at)
      snprintf(reasons + at, sizeof reasons - at, ")");
    if (e->persistent)
      snprintf(more, sizeof more, "; %ld persistent requests started %ld times", e->persistent,
               e->starts);
    if (e->nonblocking)
      snprintf(more + strlen(more), sizeof more - strlen(more),
               "; %ld of the served calls nonblocking", e->nonblocking);
    printf("pmpi_check: expect: collc_pmpi: rank 0: %ld calls served (%ld cache hits, %ld binds), %ld fell back to MPI%s%s\n",
           e->served, e->hits, e->binds, fell, reasons, more);
    if (failures)
      printf("reduce_check: FAILED (%d mismatches)\n", failures);
    else
      printf("reduce_check: ok (%d ranks)\n", size);
    fflush(stdout);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}

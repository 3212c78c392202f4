/* collc-run: runs a plan under mpiexec, checks it byte for byte against the
 * MPI library's own collective, and times it.
 *
 *   mpiexec -n P collc-run PLAN [--bytes N] [--iters N] [--warmup N] [--check]
 *       [--counts regular|bcast|spike|half|linear|geometric|random] [--seed S]
 *       [--comm world|split|reordered] [--native] [--trace FILE]
 *       [--verify-counts] [--native-only] [--digest] [--shared-bufs]
 *   mpiexec -n 2 collc-run --calibrate [--max-bytes N]   (calibrate.c)
 *
 * --bytes N: alltoall: bytes per (sender, receiver) block; alltoallv and
 * allgatherv: the base / largest size of the count distribution. With
 * m(i) the distribution over an index i in [0, P):
 *   regular    m = N everywhere
 *   bcast      m(0) = N, others 0
 *   spike      m(P/2) = N, others 1
 *   half       m(i) = N for even i, 0 for odd i
 *   linear     m(i) = floor(N * (i + 1) / P)      (N at i = P-1)
 *   geometric  m(i) = floor(N / 2^i)              (0 once shifted out)
 *   random     0 with probability 1/4, else uniform in [1, N], from splitmix64
 *              seeded with --seed and the index
 * allgatherv: rank i contributes m(i) bytes. alltoallv: rank s sends
 * m((s + d) mod P) bytes to rank d, except bcast and spike, where the
 * sender's index decides (m(s): rank 0 resp. rank P/2 sends N to everyone).
 *
 * Buffers are MPI_BYTE. v-collective displacements are laid out in reverse
 * rank order with gaps of 1..3 bytes, so displacement bugs show, and --check
 * compares whole receive buffers (gaps included) with the native collective.
 *
 * Output (rank 0 of MPI_COMM_WORLD), one line per measurement:
 *   op=... alg=... impl=collc P=... bytes=... iters=... median_us=... min_us=...
 *   op=... alg=... impl=mpi   P=... ... ratio=<collc median / mpi median>
 * where each iteration is MPI_Barrier; start+wait (or the native call), its
 * time is the maximum over ranks, and median/min are over iterations. With
 * --native the two alternate iteration by iteration.
 *
 * For comparisons with other implementations (bench/smpi/run):
 *   --native-only  run and time only the MPI library's collective (no plan is
 *                  bound; the plan still names the op), printed as impl=mpi
 *   --digest       time on the data of --check's first run, then print
 *                  "digest=<16 hex digits>": a hash of every rank's whole
 *                  receive buffer after the last timed run. Equal digests
 *                  from the plan and from --native-only mean byte-identical
 *                  results.
 *   --shared-bufs  (SMPI build only) allocate the buffers with
 *                  SMPI_SHARED_MALLOC, which folds every rank's buffers onto
 *                  the same memory: timing only, so not with --check or
 *                  --digest. The plan's scratch folds too
 *                  (COLLRT_SMPI_SHARED_SCRATCH, runtime/src/bind.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "collc/collrt.h"
#include "workload.h"

/* Under SimGrid SMPI, buffers may be folded across simulated ranks so that
 * runs too large for the host's memory can still be timed. */
#if COLLRT_SMPI
#define BUF_ALLOC(shared, n) ((shared) ? SMPI_SHARED_MALLOC(n) : malloc(n))
#define BUF_FREE(shared, p) ((shared) ? SMPI_SHARED_FREE(p) : free(p))
#else
#define BUF_ALLOC(shared, n) malloc(n)
#define BUF_FREE(shared, p) free(p)
#endif

typedef struct options {
  const char *plan;
  long long bytes;
  int iters, warmup, check, native, verify_counts, native_only, digest, shared;
  wl_dist_t dist;
  unsigned long long seed;
  const char *comm, *trace;
} options_t;

/* The counts and layout (tools/common/workload.h) and this rank's buffers. */
typedef struct bufs {
  wl_t w;
  uint8_t *send, *recv, *ref;
} bufs_t;

/* splitmix64 (Steele, Lea, Flood 2014), for the digest */
static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* allreduce: the operation and element type every REDUCE of the plan
 * uses, as MPI's own, so --check can compare with MPI_Allreduce: sum, prod,
 * min, max and the logical and bitwise operations on the C integer types
 * of the plan's table (compared byte for byte), and sum, prod, min and max
 * on float and double (bitwise equal on every rank; min and max equal to
 * MPI's, sum and prod within a relative 1e-12 (double) or 1e-5 (float) of
 * MPI's, which may combine in another order). WL_EKIND if the plan reduces
 * anything else (long double, the loc pairs, two pairs in one plan) or
 * --bytes is not a whole number of elements. */
#define WL_EKIND 3
/* The checks below compare integers byte for byte and float and double
 * within rounding; the loc pairs (the only operations the pair types take)
 * and long double have no such check. */
static int checkable(unsigned rop, unsigned rtype) {
  return rop != COLLRT_ROP_MINLOC && rop != COLLRT_ROP_MAXLOC && rtype != COLLRT_RTYPE_LONG_DOUBLE;
}
static int allreduce_kind(const collrt_plan_desc_t *d, wl_t *w) {
  unsigned rop = 0, rtype = 0;
  for (unsigned i = 0; i < d->nstmts; ++i)
    if (d->stmts[i].kind == COLLRT_STMT_REDUCE) {
      if (rop && (rop != d->stmts[i].rop || rtype != d->stmts[i].rtype))
        return WL_EKIND;
      rop = d->stmts[i].rop;
      rtype = d->stmts[i].rtype;
    }
  /* MPI's handles from the REDUCE table's own mapping (reduce_mpi.c) */
  w->mpi_op = collrt_reduce_op_to_mpi(rop);
  w->mpi_type = collrt_reduce_type_to_mpi(rtype);
  if (!rop || !checkable(rop, rtype) || w->mpi_op == MPI_OP_NULL ||
      w->mpi_type == MPI_DATATYPE_NULL)
    return WL_EKIND;
  w->esize = (int)collrt_reduce_type_size(rtype);
  w->is_double = rtype == COLLRT_RTYPE_DOUBLE;
  w->is_float = rtype == COLLRT_RTYPE_FLOAT;
  return w->count % w->esize ? WL_EKIND : 0;
}

/* 0, -1 (out of memory), WL_ERANGE (sizes past int) or WL_EKIND. */
static int setup(const options_t *o, const collrt_plan_desc_t *d, MPI_Comm comm, bufs_t *b) {
  memset(b, 0, sizeof *b);
  int st = wl_init(&b->w, d->op, comm, o->bytes, o->dist, o->seed);
  if (!st && d->op == COLLRT_OP_ALLREDUCE)
    st = allreduce_kind(d, &b->w);
  if (st)
    return st;
#if COLLRT_SMPI
  /* the plan's scratch folds with the buffers (runtime/src/bind.c); every
   * rank sets the same value in the one process */
  if (o->shared)
    setenv("COLLRT_SMPI_SHARED_SCRATCH", "1", 1);
#endif
  b->send = BUF_ALLOC(o->shared, b->w.send_len + 1);
  b->recv = BUF_ALLOC(o->shared, b->w.recv_len + 1);
  /* --native-only: the native collective writes straight into recv */
  b->ref = o->native_only ? b->recv : BUF_ALLOC(o->shared, b->w.recv_len + 1);
  if (!b->send || !b->recv || !b->ref)
    return -1;
  if (o->shared)
    return 0; /* contents are meaningless once folded */
  wl_fill_send(&b->w, b->send, 0);
  memset(b->recv, 0xA5, b->w.recv_len);
  return 0;
}

static void fill(bufs_t *b, int iter) {
  wl_fill_send(&b->w, b->send, iter);
  /* identical, position-dependent pre-fill: untouched gaps must stay equal */
  wl_prefill_recv(&b->w, b->recv, iter);
  wl_prefill_recv(&b->w, b->ref, iter);
  /* bcast: the root's message is in the one buffer the plan is bound to */
  if (b->w.op == COLLRT_OP_BCAST && b->w.rank == 0)
    memcpy(b->recv, b->send, b->w.recv_len);
}

static int native(const bufs_t *b, uint8_t *out, MPI_Comm comm) {
  return wl_native(&b->w, b->send, out, comm);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void usage(void) {
  fprintf(stderr,
          "usage: collc-run PLAN [--bytes N] [--iters N] [--warmup N] [--check]\n"
          "         [--counts regular|bcast|spike|half|linear|geometric|random] [--seed S]\n"
          "         [--comm world|split|reordered] [--native] [--trace FILE] [--verify-counts]\n"
          "         [--native-only] [--digest] [--shared-bufs]\n"
          "       collc-run --calibrate [--max-bytes N]\n"
          "       collc-run --help\n");
}

/* --help: stdout, exit 0, without MPI (works outside mpiexec). */
static void help(void) {
  printf("collc-run: runs a collc plan under mpiexec, checks it byte for byte against the MPI\n"
         "library's own collective, and times it.\n\n"
         "usage: mpiexec -n P collc-run PLAN [options]\n\n"
         "  PLAN                  a .collplan file (collc SPEC.yaml -o PLAN)\n"
         "  --bytes N             alltoall: bytes per (sender, receiver) block; alltoallv and\n"
         "                        allgatherv: the base / largest size of --counts (default 1024)\n"
         "  --counts DIST         v-collective counts: regular|bcast|spike|half|linear|\n"
         "                        geometric|random (default regular)\n"
         "  --seed S              seed of --counts random (default 1)\n"
         "  --iters N             timed runs (default 20)\n"
         "  --warmup N            untimed runs first (default 3)\n"
         "  --check               compare every byte of the result with MPI's collective\n"
         "  --native              also time MPI's collective, and print the ratio\n"
         "  --native-only         time MPI's collective only\n"
         "  --comm world|split|reordered\n"
         "                        run on MPI_COMM_WORLD, two halves, or reversed ranks\n"
         "  --trace FILE          Chrome/Perfetto trace of the last run (every rank's steps)\n"
         "  --verify-counts       bind with the collective counts check\n"
         "  --digest              print a hash of every rank's receive buffer\n"
         "  --shared-bufs         SMPI build only: shared buffers for large simulations\n"
         "  --help, --version     this text; the version\n\n"
         "Output: one line per measurement on rank 0 of MPI_COMM_WORLD:\n"
         "  op=... alg=... impl=collc P=... bytes=... iters=... median_us=... min_us=...\n\n"
         "usage: mpiexec -n 2 collc-run --calibrate [--max-bytes N] > network.yaml\n\n"
         "  measures alpha and beta (ping-pong between ranks 0 and 1, 4 B to --max-bytes,\n"
         "  default 1 MiB) and gamma (memcpy), and prints a network: section for a spec's\n"
         "  topology: (shared-memory figures when ranks 0 and 1 share a node)\n");
}

/* Why --bytes stops at INT_MAX: said whenever a size is refused. */
#define WHY_INT_COUNTS                                                                     \
  "counts and displacements are int in the MPI-3 interface collc-run uses (MPI_Alltoall(v), " \
  "MPI_Allgatherv and collrt_bind_* take int arrays; collc-run builds no derived datatypes " \
  "for larger blocks)"

/* The value of numeric option `opt`, in [lo, hi]; -1 (with the reason,
 * `why_hi` for values above hi, printed by world rank 0) otherwise. */
static int number_arg(const char *opt, const char *v, long long lo, long long hi,
                      const char *why_hi, int loud, long long *out) {
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || errno == ERANGE || x < lo || x > hi) {
    if (!loud)
      return -1;
    if (*v && !*end && (errno == ERANGE || x > hi) && v[0] != '-' && why_hi)
      fprintf(stderr, "collc-run: error: %s %s is more than %lld%s: %s\n", opt, v, hi,
              hi == INT_MAX ? " (INT_MAX)" : "", why_hi);
    else
      fprintf(stderr, "collc-run: error: %s '%s' is not an integer in [%lld, %lld]\n", opt, v, lo,
              hi);
    return -1;
  }
  *out = x;
  return 0;
}

static int parse(int argc, char **argv, options_t *o, int loud) {
  memset(o, 0, sizeof *o);
  o->bytes = 1024;
  o->iters = 20;
  o->warmup = 3;
  o->seed = 1;
  o->comm = "world";
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    long long n = 0;
    if (!strcmp(a, "--bytes") && v) {
      if (number_arg(a, v, 0, INT_MAX, WHY_INT_COUNTS, loud, &n))
        return -1;
      o->bytes = n;
    } else if (!strcmp(a, "--iters") && v) {
      if (number_arg(a, v, 1, 100000000, "the most timed runs collc-run keeps (it holds every timing)", loud, &n))
        return -1;
      o->iters = (int)n;
    } else if (!strcmp(a, "--warmup") && v) {
      if (number_arg(a, v, 0, 100000000, NULL, loud, &n))
        return -1;
      o->warmup = (int)n;
    } else if (!strcmp(a, "--seed") && v) {
      char *end = NULL;
      errno = 0;
      o->seed = strtoull(v, &end, 0);
      if (!*v || *end || errno == ERANGE || v[0] == '-') {
        if (loud)
          fprintf(stderr, "collc-run: error: --seed '%s' is not an unsigned 64-bit integer\n", v);
        return -1;
      }
    } else if (!strcmp(a, "--comm") && v) o->comm = v;
    else if (!strcmp(a, "--trace") && v) o->trace = v;
    else if (!strcmp(a, "--counts") && v) {
      if (wl_dist_parse(v, &o->dist)) {
        if (loud)
          fprintf(stderr, "collc-run: error: unknown --counts '%s' (regular, bcast, spike, half, "
                          "linear, geometric or random)\n", v);
        return -1;
      }
    } else {
      takes = 0;
      if (!strcmp(a, "--check")) o->check = 1;
      else if (!strcmp(a, "--native")) o->native = 1;
      else if (!strcmp(a, "--verify-counts")) o->verify_counts = 1;
      else if (!strcmp(a, "--native-only")) o->native_only = 1;
      else if (!strcmp(a, "--digest")) o->digest = 1;
      else if (!strcmp(a, "--shared-bufs")) o->shared = 1;
      else if (a[0] != '-' && !o->plan) o->plan = a;
      else {
        if (loud)
          fprintf(stderr, "collc-run: error: unknown or incomplete option '%s'\n", a);
        return -1;
      }
    }
    i += takes;
  }
  if (strcmp(o->comm, "world") && strcmp(o->comm, "split") && strcmp(o->comm, "reordered")) {
    if (loud)
      fprintf(stderr, "collc-run: error: --comm '%s' is not world, split or reordered\n", o->comm);
    return -1;
  }
  if (!o->plan) {
    if (loud) {
      fprintf(stderr, "collc-run: error: no PLAN given\n");
      usage();
    }
    return -1;
  }
  if (o->native_only && (o->check || o->native || o->trace || o->verify_counts)) {
    if (loud)
      fprintf(stderr, "collc-run: error: --native-only runs no plan, so it takes no --check, "
                      "--native, --trace or --verify-counts\n");
    return -1;
  }
  if (o->shared && (o->check || o->digest)) {
    if (loud)
      fprintf(stderr, "collc-run: error: --shared-bufs folds every rank's buffers together, so "
                      "results cannot be checked: drop --check and --digest\n");
    return -1;
  }
#if !COLLRT_SMPI
  if (o->shared) {
    if (loud)
      fprintf(stderr, "collc-run: error: --shared-bufs needs the SMPI build of collc-run "
                      "(build/smpi/bin/collc-run)\n");
    return -1;
  }
#endif
  return 0;
}

/* FNV-1a over a buffer. */
static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t k = 0; k < n; ++k)
    h = (h ^ p[k]) * 0x100000001B3ull;
  return h;
}

/* The digest of the last timed run, which ran on the data of --check's first
 * run: every rank's whole receive buffer hashed with its rank, combined by
 * XOR (world rank 0 prints). */
static void print_digest(int native_only, const bufs_t *b, MPI_Comm comm, int wrank) {
  const uint8_t *out = native_only ? b->ref : b->recv;
  unsigned long long h = splitmix64(fnv1a(out, b->w.recv_len) ^ (uint64_t)b->w.rank), all = 0;
  MPI_Reduce(&h, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, 0, comm);
  if (wrank == 0)
    printf("digest=%016llx\n", all);
}

/* What the transport did, summed over the ranks (world rank 0 prints):
 * with `chunks` (COLLRT_VERBOSE), who copied the chunks of on-node messages
 * (the receivers, or the senders into the receivers' buffers); with
 * `folded` (--shared-bufs), how many gathered messages went as contiguous
 * bytes of the folded scratch (coll_internal.h, collrt_gathered_folds),
 * which bench/smpi/run records and scripts/test checks. A rank whose query
 * fails still joins the reduce (with zeros), so no rank is left waiting. */
static void say_transport(const collrt_coll_t *c, int chunks, int folded, MPI_Comm comm,
                          int wrank) {
  if (!chunks && !folded)
    return;
  collrt_transport_info_t t;
  unsigned long long mine[3] = {0, 0, 0}, all[3] = {0, 0, 0};
  if (!collrt_coll_transport(c, &t, NULL)) {
    mine[0] = t.shm_chunks_pulled;
    mine[1] = t.shm_chunks_pushed;
    mine[2] = t.folded_steps;
  }
  MPI_Reduce(mine, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
  if (wrank != 0)
    return;
  if (chunks)
    printf("shared memory: receivers copied %llu chunks, senders %llu\n", all[0], all[1]);
  if (folded)
    printf("folded_messages=%llu\n", all[2]);
}

/* One timed run of the plan (c != NULL) or of the native collective: the
 * maximum over ranks of Barrier-separated start+wait, in microseconds. */
static double timed_run(collrt_coll_t *c, const bufs_t *b, uint8_t *native_out,
                        MPI_Comm comm) {
  collrt_diag_t diag;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  collrt_status_t st = COLLRT_OK;
  if (c) {
    st = collrt_start(c, &diag);
    if (!st)
      st = collrt_wait(c, &diag);
  } else if (native(b, native_out, comm) != MPI_SUCCESS) {
    st = COLLRT_ERR_MPI;
    snprintf(diag.message, sizeof diag.message, "native collective failed");
  }
  double t = MPI_Wtime() - t0, tmax;
  if (st) {
    fprintf(stderr, "collc-run: error: %s: %s\n", collrt_strerror(st), diag.message);
    MPI_Abort(MPI_COMM_WORLD, 1); /* only this rank may have failed */
  }
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  return tmax * 1e6;
}

/* Times `iters` runs after `warmup`. With --native the plan and the native
 * collective alternate run by run, so drift in the machine's state (noise,
 * clock, caches) hits both alike and the ratio is fair; and both write the
 * same receive buffer (unless the plan's result must survive for --digest),
 * because where a buffer lies changes the copy speed: on AMD EPYC a copy
 * whose destination is a few bytes past its source modulo 4 KiB runs up to
 * 20x slower, in MPI's copies as in the plan's (runtime/src/copy.c). */
static void time_runs(collrt_coll_t *c, int with_native, const bufs_t *b, uint8_t *native_out,
                      MPI_Comm comm, int iters, int warmup, double *tc, double *tn) {
  for (int it = -warmup; it < iters; ++it) {
    double t = timed_run(c, b, native_out, comm);
    if (it >= 0)
      tc[it] = t;
    if (!with_native)
      continue;
    t = timed_run(NULL, b, native_out, comm);
    if (it >= 0)
      tn[it] = t;
  }
}

static int finish(int code) {
  MPI_Finalize();
  return code;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      printf("collc-run %d.%d (plan format %d)\n", COLLC_VERSION_MAJOR, COLLC_VERSION_MINOR,
             COLLRT_PLAN_FORMAT_VERSION);
      return 0;
    }
  }
  MPI_Init(&argc, &argv);
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--calibrate"))
      return finish(calibrate_main(argc, argv));
  options_t o;
  if (parse(argc, argv, &o, wrank == 0))
    return finish(2);

  collrt_diag_t diag = {{0}};
  collrt_plan_t *plan = NULL;
  collrt_status_t st = collrt_plan_load_file(o.plan, &plan, &diag);
  if (st) {
    if (wrank == 0)
      fprintf(stderr, "collc-run: error: %s: %s\n", collrt_strerror(st), diag.message);
    return finish(1); /* every rank read the same file */
  }
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  int op = d->op;
  const char *opname = collrt_op_name((unsigned)op);
  const char *alg = collrt_algorithm_name(d->algorithm);

  MPI_Comm comm = MPI_COMM_WORLD;
  int color = 0;
  if (!strcmp(o.comm, "split")) {
    color = wrank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &comm);
  } else if (!strcmp(o.comm, "reordered")) {
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, &comm);
  }
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);

  bufs_t b;
  int bad = setup(&o, d, comm, &b), any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (any_bad) {
    if (any_bad == WL_ERANGE && wrank == 0)
      fprintf(stderr, "collc-run: error: --bytes %lld with --counts %s on %d ranks puts a buffer "
                      "displacement past INT_MAX (%d): %s\n",
              o.bytes, wl_dist_name(o.dist), P, INT_MAX, WHY_INT_COUNTS);
    else if (any_bad == WL_EKIND && wrank == 0)
      fprintf(stderr, "collc-run: error: this allreduce plan cannot be checked: collc-run runs plans whose REDUCE steps all use one MPI built-in operation other than minloc and maxloc on one C integer type, float or double, with --bytes a whole number of elements\n");
    else if (bad && bad != WL_ERANGE && bad != WL_EKIND)
      fprintf(stderr, "collc-run: error: out of memory: rank %d cannot allocate its buffers\n", wrank);
    return finish(1);
  }

  unsigned flags = (o.check || o.verify_counts ? COLLRT_BIND_CHECK_COUNTS : 0) |
                   (o.trace ? COLLRT_BIND_TRACE : 0);
  collrt_coll_t *coll = NULL;
  if (o.native_only)
    st = COLLRT_OK;
  else if (op == COLLRT_OP_ALLREDUCE)
    st = collrt_bind_allreduce(plan, comm, b.send, b.recv, b.w.count / b.w.esize, b.w.mpi_type, flags,
                               &coll, &diag);
  else if (op == COLLRT_OP_BCAST) /* one buffer: fill() puts rank 0's message in it */
    st = collrt_bind_bcast(plan, comm, b.recv, b.w.count, MPI_BYTE, 0, flags, &coll, &diag);
  else if (op == COLLRT_OP_ALLTOALL)
    st = collrt_bind_alltoall(plan, comm, b.send, b.recv, b.w.count, MPI_BYTE, flags, &coll, &diag);
  else if (op == COLLRT_OP_ALLTOALLV)
    st = collrt_bind_alltoallv(plan, comm, b.send, b.w.sc, b.w.sd, b.recv, b.w.rc, b.w.rd, MPI_BYTE,
                               flags, &coll, &diag);
  else
    st = collrt_bind_allgatherv(plan, comm, b.send, b.w.count, b.recv, b.w.rc, b.w.rd, MPI_BYTE,
                                flags, &coll, &diag);
  /* Bind errors are collective within `comm`. Print the first rank that has
   * its own diagnostic, and world rank 0 (which may only know who failed). */
  int follower = st && !strncmp(diag.message, "rank ", 5) && strstr(diag.message, "failed to bind");
  int own = st && !follower ? wrank : INT_MAX, first_own = INT_MAX, worst = 0;
  MPI_Allreduce(&own, &first_own, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (worst) {
    if (st && (wrank == first_own || wrank == 0))
      fprintf(stderr, "collc-run: error: %s: %s\n", collrt_strerror(st), diag.message);
    collrt_coll_free(coll);
    collrt_plan_free(plan);
    return finish(1);
  }

  int failed = 0;
  if (o.check) {
    /* several runs of the same binding: persistence and fresh data each time */
    int runs = o.iters < 3 ? o.iters : 3, diff = 0;
    for (int it = 0; it < runs && !diff; ++it) {
      fill(&b, it + 1);
      st = collrt_start(coll, &diag);
      if (!st)
        st = collrt_wait(coll, &diag);
      if (st) {
        fprintf(stderr, "collc-run: error: %s: %s\n", collrt_strerror(st), diag.message);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      if (native(&b, b.ref, comm) != MPI_SUCCESS) {
        fprintf(stderr, "collc-run: error: native collective failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      if (b.w.is_double || b.w.is_float) {
        /* the plan fixes the order: every rank holds the same bits; MPI
         * may combine in another order, so its sums and products agree
         * within rounding, its min and max exactly */
        uint8_t *root = malloc(b.w.recv_len + 1);
        memcpy(root, b.recv, b.w.recv_len);
        MPI_Bcast(root, (int)b.w.recv_len, MPI_BYTE, 0, comm);
        size_t es = (size_t)b.w.esize;
        int exact = b.w.mpi_op == MPI_MIN || b.w.mpi_op == MPI_MAX;
        double tol = exact ? 0 : b.w.is_double ? 1e-12 : 1e-5;
        for (size_t k = 0; k + es <= b.w.recv_len && !diff; k += es) {
          double got, want, first;
          if (b.w.is_double) {
            memcpy(&got, b.recv + k, sizeof got);
            memcpy(&want, b.ref + k, sizeof want);
            memcpy(&first, root + k, sizeof first);
          } else {
            float g, w, f;
            memcpy(&g, b.recv + k, sizeof g);
            memcpy(&w, b.ref + k, sizeof w);
            memcpy(&f, root + k, sizeof f);
            got = g, want = w, first = f;
          }
          if (memcmp(b.recv + k, root + k, es) || fabs(got - want) > tol * (fabs(want) + 1.0)) {
            fprintf(stderr, "collc-run: check FAILED: rank %d (world %d) iteration %d: element %zu is %.17g, rank 0 has %.17g, MPI gives %.17g\n",
                    rank, wrank, it + 1, k / es, got, first, want);
            diff = 1;
          }
        }
        free(root);
      }
      for (size_t k = 0; k < b.w.recv_len && !b.w.is_double && !b.w.is_float; ++k)
        if (b.recv[k] != b.ref[k]) {
          fprintf(stderr, "collc-run: check FAILED: rank %d (world %d) iteration %d: receive buffer offset %zu holds 0x%02x, MPI gives 0x%02x\n",
                  rank, wrank, it + 1, k, b.recv[k], b.ref[k]);
          diff = 1;
          break;
        }
      int any = 0;
      MPI_Allreduce(&diff, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      diff = any;
    }
    if (diff) {
      collrt_coll_free(coll);
      collrt_plan_free(plan);
      return finish(1);
    }
    if (wrank == 0)
      printf("check ok: op=%s alg=%s P=%d bytes=%lld counts=%s comm=%s runs=%d\n", opname, alg,
             P, o.bytes, wl_dist_name(o.dist), o.comm, runs);
  }

  double *tc = malloc((size_t)o.iters * sizeof *tc), *tn = malloc((size_t)o.iters * sizeof *tn);
  if (!tc || !tn) {
    fprintf(stderr, "collc-run: error: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (!o.shared)
    fill(&b, o.digest ? 1 : 0); /* --digest: the data of --check's first run */
  if (o.native_only)
    time_runs(NULL, 0, &b, b.ref, comm, o.iters, o.warmup, tn, NULL);
  else
    time_runs(coll, o.native, &b, o.digest ? b.ref : b.recv, comm, o.iters, o.warmup, tc, tn);
  if (o.trace) {
    char path[4096];
    if (!strcmp(o.comm, "split"))
      snprintf(path, sizeof path, "%s.%s", o.trace, color ? "odd" : "even");
    else
      snprintf(path, sizeof path, "%s", o.trace);
    st = collrt_trace_write(coll, path, &diag);
    if (st && rank == 0)
      fprintf(stderr, "collc-run: error: %s: %s\n", collrt_strerror(st), diag.message);
    failed |= st != 0;
  }
  if (wrank == 0 && o.native_only) {
    qsort(tn, (size_t)o.iters, sizeof *tn, cmp_double);
    printf("op=%s alg=native impl=mpi P=%d bytes=%lld counts=%s iters=%d median_us=%.2f min_us=%.2f\n",
           opname, P, o.bytes, wl_dist_name(o.dist), o.iters, tn[o.iters / 2], tn[0]);
  } else if (wrank == 0) {
    qsort(tc, (size_t)o.iters, sizeof *tc, cmp_double);
    double mc = tc[o.iters / 2];
    printf("op=%s alg=%s impl=collc P=%d bytes=%lld counts=%s iters=%d median_us=%.2f min_us=%.2f\n",
           opname, alg, P, o.bytes, wl_dist_name(o.dist), o.iters, mc, tc[0]);
    if (o.native) {
      qsort(tn, (size_t)o.iters, sizeof *tn, cmp_double);
      double mn = tn[o.iters / 2];
      printf("op=%s alg=%s impl=mpi P=%d bytes=%lld counts=%s iters=%d median_us=%.2f min_us=%.2f ratio=%.3f\n",
             opname, alg, P, o.bytes, wl_dist_name(o.dist), o.iters, mn, tn[0], mn > 0 ? mc / mn : 0.0);
    }
  }
  if (o.digest)
    print_digest(o.native_only, &b, comm, wrank);
  if (!o.native_only) {
    const char *v = getenv("COLLRT_VERBOSE");
    say_transport(coll, v && *v && strcmp(v, "0"), o.shared, comm, wrank);
  }
  free(tc);
  free(tn);
  collrt_coll_free(coll);
  collrt_plan_free(plan);
  BUF_FREE(o.shared, b.send);
  BUF_FREE(o.shared, b.recv);
  if (!o.native_only)
    BUF_FREE(o.shared, b.ref);
  wl_free(&b.w);
  if (comm != MPI_COMM_WORLD)
    MPI_Comm_free(&comm);
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return finish(any_failed ? 1 : 0);
}

/* collc-twin: a plan run by the runtime against the same schedule written by
 * hand in MPI, in the same process and the same run.
 *
 *   mpiexec -n P collc-twin PLAN [--bytes N] [--counts DIST] [--seed S]
 *       [--iters N] [--warmup N] [--verify N] [--corrupt runtime|twin]
 *
 * Data and counts are collc-run's (tools/common/workload.h): the same
 * --bytes/--counts/--seed give the same messages.
 *
 * The twin is the honest reference for the runtime's interpreter overhead:
 * MPI's own collective runs a different algorithm, the twin does not. It
 * takes this rank's steps from collrt_expand (plan.h) with the byte counts
 * collrt_bind_* derives, and executes them directly with the rules of
 * plan_format.h: per FIFO an injection queue (SEND, COPY) and a reception
 * queue (RECV), each in program order with head-of-line blocking; a step is
 * issued once every step it depends on completed and its queue's window
 * (send_depth, recv_depth; 0 = unlimited) has room; one MPI_Comm_dup per
 * FIFO; MPI_Isend / MPI_Irecv (a gathered message through an hindexed
 * datatype built once, as plan_format.h prescribes), memcpy for COPY (after
 * posting what the queues allow), and MPI_Waitsome when nothing can be
 * issued. It shares no code with the runtime's engine, FIFO queue or region
 * walk. Its idle policy is MPI's blocking wait: MPICH polls and calls
 * sched_yield every MPIR_CVAR_POLLS_BEFORE_YIELD (default 1000) polls, which
 * matters when comparing COLLRT_WAIT policies on a shared core.
 *
 * Verification: --verify N runs (default 2) with fresh data each, then the
 * last timed run, compare the receive buffers of runtime, twin and MPI's
 * collective byte for byte (gaps included). Any difference prints MISMATCH
 * with rank, offset and bytes, and the exit status is 1. --corrupt flips a
 * received byte of one implementation after each of its runs: the test hook
 * that shows a difference is caught.
 *
 * Timing: each iteration runs runtime, twin and MPI's collective in turn,
 * each as MPI_Barrier; run; maximum over ranks, so the three see the same
 * machine state. Output on rank 0:
 *   verified: op=... alg=... P=... bytes=... counts=... runs=N runtime == twin == mpi
 *   op=... alg=... P=... bytes=... counts=... wait=POLICY iters=N steps=S sends=.. recvs=..
 *     copies=.. runtime_med_us=.. runtime_min_us=.. twin_med_us=.. twin_min_us=..
 *     mpi_med_us=.. mpi_min_us=.. rt_twin=.. overhead_us_per_step=..
 *     rt_mpi=.. twin_mpi=..
 * wait is the runtime's idle policy (COLLRT_WAIT, wait_policy.h) on rank 0.
 * steps counts SEND + RECV + COPY steps of the busiest rank (the collective
 * ends with its slowest rank); overhead_us_per_step =
 * (runtime median - twin median) / steps; ratios are of medians. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collc/collrt.h"
#include "workload.h"

typedef struct options {
  const char *plan;
  long long bytes;
  wl_dist_t dist;
  unsigned long long seed;
  int iters, warmup, verify;
  int corrupt; /* 0, IMPL_RUNTIME or IMPL_TWIN */
} options_t;

enum { IMPL_RUNTIME = 1, IMPL_TWIN = 2, IMPL_MPI = 3 };

/* ---- the hand-coded twin ---- */

enum { MAXQ = 2 * COLLRT_MAX_FIFOS };

typedef struct twin {
  const collrt_steps_t *ss;          /* steps, their dependency and segment lists */
  const collrt_step_t *steps;
  size_t nsteps;
  int nqueues;                       /* queue 2f: SEND+COPY, 2f+1: RECV */
  MPI_Comm comm[COLLRT_MAX_FIFOS];   /* private per FIFO, as the plan requires */
  uint8_t *buf[COLLRT_BUF_COUNT_];
  uint32_t depth[MAXQ];              /* window, 0 = unlimited */
  uint32_t *order;                   /* step indices queue by queue */
  size_t first[MAXQ + 1];            /* queue q is order[first[q] .. first[q+1]) */
  size_t head[MAXQ];
  uint32_t inflight[MAXQ];
  uint8_t *done;                     /* per step */
  size_t ndone;
  MPI_Request *reqs;                 /* in flight, compact */
  uint32_t *req_step;
  uint32_t *copies;                  /* issued COPY steps not yet done */
  int ncopies;
  int *idx;
  MPI_Status *statuses; /* not read; GCC 12 flags MPI_STATUSES_IGNORE here */
  MPI_Datatype *types;  /* per step: a gathered message's datatype, else NULL */
  int nactive;
} twin_t;

static int queue_of(const collrt_step_t *s) { return 2 * s->fifo + (s->kind == COLLRT_STEP_RECV); }

/* The message of a gathered SEND/RECV as one datatype over absolute
 * addresses (sent from MPI_BOTTOM): no pack copy. */
static int gather_type(const twin_t *t, const collrt_step_t *s, MPI_Datatype *out) {
  int *lens = malloc(s->nsrc * sizeof *lens);
  MPI_Aint *at = malloc(s->nsrc * sizeof *at);
  int rc = !lens || !at;
  for (uint32_t k = 0; !rc && k < s->nsrc; ++k) {
    const collrt_seg_t *g = &t->ss->segs[s->seg_begin + k];
    lens[k] = (int)g->len;
    rc = MPI_Get_address(t->buf[g->buf] + g->off, &at[k]) != MPI_SUCCESS;
  }
  if (!rc)
    rc = MPI_Type_create_hindexed((int)s->nsrc, lens, at, MPI_BYTE, out) != MPI_SUCCESS ||
         MPI_Type_commit(out) != MPI_SUCCESS;
  free(lens);
  free(at);
  return rc ? -1 : 0;
}

static int ready(const twin_t *t, const collrt_step_t *s) {
  for (uint32_t k = 0; k < s->ndeps; ++k)
    if (!t->done[t->ss->deps[s->dep_begin + k]])
      return 0;
  return 1;
}

/* A COPY whose sides may be gathered: both segment lists walked in step,
 * one memcpy per piece where neither side's segment ends. */
static void twin_copy(const twin_t *t, const collrt_step_t *s) {
  const collrt_seg_t *g = t->ss->segs + s->seg_begin;
  collrt_seg_t ws = {s->off, s->len, s->buf}, wd = {s->dst_off, s->len, s->dst_buf};
  const collrt_seg_t *src = s->nsrc ? g : &ws, *dst = s->ndst ? g + s->nsrc : &wd;
  uint32_t ns = s->nsrc ? s->nsrc : 1, nd = s->ndst ? s->ndst : 1, i = 0, j = 0;
  int64_t a = 0, b = 0; /* bytes done of src[i], dst[j] */
  while (i < ns && j < nd) {
    int64_t n = src[i].len - a < dst[j].len - b ? src[i].len - a : dst[j].len - b;
    memcpy(t->buf[dst[j].buf] + dst[j].off + b, t->buf[src[i].buf] + src[i].off + a, (size_t)n);
    a += n;
    b += n;
    if (a == src[i].len) {
      ++i;
      a = 0;
    }
    if (b == dst[j].len) {
      ++j;
      b = 0;
    }
  }
}

static int twin_init(twin_t *t, const collrt_plan_desc_t *d, const collrt_steps_t *st,
                     uint8_t *send, uint8_t *recv, MPI_Comm comm) {
  memset(t, 0, sizeof *t);
  for (int f = 0; f < COLLRT_MAX_FIFOS; ++f)
    t->comm[f] = MPI_COMM_NULL;
  t->ss = st;
  t->steps = st->steps;
  t->nsteps = st->count;
  t->nqueues = 2 * d->nfifos;
  size_t n = t->nsteps + 1;
  t->buf[COLLRT_BUF_SEND] = send;
  t->buf[COLLRT_BUF_RECV] = recv;
  t->buf[COLLRT_BUF_SCRATCH] = malloc(st->scratch_bytes ? (size_t)st->scratch_bytes : 1);
  t->order = malloc(n * sizeof *t->order);
  t->done = malloc(n);
  t->reqs = malloc(n * sizeof *t->reqs);
  t->req_step = malloc(n * sizeof *t->req_step);
  t->idx = malloc(n * sizeof *t->idx);
  t->copies = malloc(n * sizeof *t->copies);
  t->statuses = malloc(n * sizeof *t->statuses);
  t->types = malloc(n * sizeof *t->types);
  if (!t->buf[COLLRT_BUF_SCRATCH] || !t->order || !t->done || !t->reqs || !t->req_step || !t->idx ||
      !t->statuses || !t->copies || !t->types)
    return -1;
  for (size_t i = 0; i < t->nsteps; ++i)
    t->types[i] = MPI_DATATYPE_NULL;
  for (size_t i = 0; i < t->nsteps; ++i)
    if (t->steps[i].kind != COLLRT_STEP_COPY && t->steps[i].nsrc && gather_type(t, &t->steps[i], &t->types[i]))
      return -1;
  for (int f = 0; f < d->nfifos; ++f) {
    t->depth[2 * f] = d->fifos[f].send_depth;
    t->depth[2 * f + 1] = d->fifos[f].recv_depth;
    if (MPI_Comm_dup(comm, &t->comm[f]) != MPI_SUCCESS)
      return -1;
  }
  size_t at = 0;
  for (int q = 0; q < t->nqueues; ++q) {
    t->first[q] = at;
    for (size_t i = 0; i < t->nsteps; ++i)
      if (queue_of(&t->steps[i]) == q)
        t->order[at++] = (uint32_t)i;
  }
  t->first[t->nqueues] = at;
  return 0;
}

static void twin_free(twin_t *t) {
  for (int f = 0; f < COLLRT_MAX_FIFOS; ++f)
    if (t->comm[f] != MPI_COMM_NULL)
      MPI_Comm_free(&t->comm[f]);
  free(t->buf[COLLRT_BUF_SCRATCH]);
  free(t->order);
  free(t->done);
  free(t->reqs);
  free(t->req_step);
  free(t->idx);
  free(t->statuses);
  free(t->copies);
  for (size_t i = 0; t->types && i < t->nsteps; ++i)
    if (t->types[i] != MPI_DATATYPE_NULL)
      MPI_Type_free(&t->types[i]);
  free(t->types);
}

/* Issues every queue head that may go. A COPY is only queued here: like
 * the runtime's, it leaves its queue when issued, so the transfers behind it
 * are posted before the memcpy runs (twin_run does the copies). */
static int twin_issue(twin_t *t) {
  for (int q = 0; q < t->nqueues; ++q) {
    while (t->head[q] < t->first[q + 1]) {
      uint32_t i = t->order[t->head[q]];
      const collrt_step_t *s = &t->steps[i];
      if (!ready(t, s))
        break;
      if (s->kind == COLLRT_STEP_COPY) {
        t->copies[t->ncopies++] = i;
      } else {
        if (t->depth[q] && t->inflight[q] >= t->depth[q])
          break;
        MPI_Datatype type = t->types[i];
        void *p = type != MPI_DATATYPE_NULL ? MPI_BOTTOM : t->buf[s->buf] + s->off;
        int count = type != MPI_DATATYPE_NULL ? 1 : (int)s->len;
        if (type == MPI_DATATYPE_NULL)
          type = MPI_BYTE;
        int rc = s->kind == COLLRT_STEP_SEND
                     ? MPI_Isend(p, count, type, s->peer, s->tag, t->comm[s->fifo], &t->reqs[t->nactive])
                     : MPI_Irecv(p, count, type, s->peer, s->tag, t->comm[s->fifo], &t->reqs[t->nactive]);
        if (rc != MPI_SUCCESS)
          return rc;
        t->req_step[t->nactive++] = i;
        ++t->inflight[q];
      }
      ++t->head[q];
    }
  }
  return MPI_SUCCESS;
}

/* One execution of the schedule; an MPI error code, or -1 if nothing is in
 * flight and nothing may be issued (impossible for a plan that passed
 * collc's verifier with these counts). */
static int twin_run(twin_t *t) {
  for (int q = 0; q < t->nqueues; ++q) {
    t->head[q] = t->first[q];
    t->inflight[q] = 0;
  }
  memset(t->done, 0, t->nsteps);
  t->ndone = 0;
  t->nactive = 0;
  for (;;) {
    int rc = twin_issue(t);
    if (rc != MPI_SUCCESS)
      return rc;
    if (t->ncopies) { /* completed copies may release queue heads: issue again */
      for (int k = 0; k < t->ncopies; ++k) {
        twin_copy(t, &t->steps[t->copies[k]]);
        t->done[t->copies[k]] = 1;
      }
      t->ndone += (size_t)t->ncopies;
      t->ncopies = 0;
      continue;
    }
    if (t->ndone == t->nsteps)
      return MPI_SUCCESS;
    if (t->nactive == 0)
      return -1;
    int n = 0;
    rc = MPI_Waitsome(t->nactive, t->reqs, &n, t->idx, t->statuses);
    if (rc != MPI_SUCCESS)
      return rc;
    for (int k = 0; k < n; ++k) {
      uint32_t i = t->req_step[t->idx[k]];
      t->done[i] = 1;
      ++t->ndone;
      --t->inflight[queue_of(&t->steps[i])];
    }
    /* Waitsome set the completed handles to MPI_REQUEST_NULL */
    int j = 0;
    for (int k = 0; k < t->nactive; ++k)
      if (t->reqs[k] != MPI_REQUEST_NULL) {
        t->reqs[j] = t->reqs[k];
        t->req_step[j++] = t->req_step[k];
      }
    t->nactive = j;
  }
}

/* The byte-level expansion input collrt_bind_* derives from the same MPI
 * arguments (extents: the furthest byte a non-empty block touches). */
static void expand_input(const wl_t *w, int64_t *arr, collrt_expand_input_t *in) {
  int P = w->P;
  memset(in, 0, sizeof *in);
  in->size = P;
  in->rank = w->rank;
  in->scounts = arr;
  in->sdispls = arr + P;
  in->rcounts = arr + 2 * P;
  in->rdispls = arr + 3 * P;
  for (int j = 0; j < P; ++j) {
    int allg = w->op == COLLRT_OP_ALLGATHERV;
    arr[j] = allg ? w->count : w->sc[j];
    arr[P + j] = allg ? 0 : w->sd[j];
    arr[2 * P + j] = w->rc[j];
    arr[3 * P + j] = w->rd[j];
    if (arr[j] && arr[P + j] + arr[j] > in->send_bytes)
      in->send_bytes = arr[P + j] + arr[j];
    if (w->rc[j] && (int64_t)w->rd[j] + w->rc[j] > in->recv_bytes)
      in->recv_bytes = (int64_t)w->rd[j] + w->rc[j];
  }
}

/* ---- driver ---- */

typedef struct bench {
  wl_t w;
  MPI_Comm comm;
  uint8_t *send, *recv[4]; /* indexed by IMPL_* */
  collrt_coll_t *coll;
  twin_t twin;
  int64_t corrupt_at;      /* a receive-buffer byte this rank's steps write, or -1 */
} bench_t;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "collc-twin: error: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  MPI_Abort(MPI_COMM_WORLD, 1); /* only this rank may have failed */
}

static void run_once(bench_t *b, const options_t *o, int impl) {
  collrt_diag_t diag = {{0}};
  if (impl == IMPL_RUNTIME) {
    collrt_status_t st = collrt_start(b->coll, &diag);
    if (!st)
      st = collrt_wait(b->coll, &diag);
    if (st)
      die("runtime: %s: %s", collrt_strerror(st), diag.message);
  } else if (impl == IMPL_TWIN) {
    int rc = twin_run(&b->twin);
    if (rc == -1)
      die("twin: steps remain but none may be issued and none is in flight");
    if (rc != MPI_SUCCESS)
      die("twin: an MPI call failed (rc %d)", rc);
  } else if (wl_native(&b->w, b->send, b->recv[IMPL_MPI], b->comm) != MPI_SUCCESS) {
    die("MPI's collective failed");
  }
  if (impl == o->corrupt && b->corrupt_at >= 0)
    b->recv[impl][b->corrupt_at] ^= 0xFF;
}

static double timed(bench_t *b, const options_t *o, int impl) {
  MPI_Barrier(b->comm);
  double t0 = MPI_Wtime();
  run_once(b, o, impl);
  double t = MPI_Wtime() - t0, tmax;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, b->comm);
  return tmax * 1e6;
}

static const char *impl_name(int impl) {
  return impl == IMPL_RUNTIME ? "runtime" : impl == IMPL_TWIN ? "twin" : "mpi";
}

/* Compares runtime and MPI against the twin; returns 1 on every rank if any
 * rank differs. */
static int compare(const bench_t *b, const char *when) {
  int bad = 0;
  static const int others[] = {IMPL_RUNTIME, IMPL_MPI};
  for (int n = 0; n < 2 && !bad; ++n) {
    int impl = others[n];
    for (size_t k = 0; k < b->w.recv_len; ++k)
      if (b->recv[impl][k] != b->recv[IMPL_TWIN][k]) {
        fprintf(stderr, "collc-twin: MISMATCH (%s): rank %d receive offset %zu: %s has 0x%02x, twin 0x%02x\n",
                when, b->w.rank, k, impl_name(impl), b->recv[impl][k], b->recv[IMPL_TWIN][k]);
        bad = 1;
        break;
      }
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, b->comm);
  return any;
}

static void prefill(bench_t *b, int iter) {
  wl_fill_send(&b->w, b->send, iter);
  for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl)
    wl_prefill_recv(&b->w, b->recv[impl], iter);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void usage(void) {
  fprintf(stderr, "usage: collc-twin PLAN [--bytes N] [--counts regular|bcast|spike|half|linear|geometric|random]\n"
                  "         [--seed S] [--iters N] [--warmup N] [--verify N] [--corrupt runtime|twin]\n");
}

/* Every rank parses the same arguments; only `loud` (rank 0) says why not. */
static int parse(int argc, char **argv, options_t *o, int loud) {
  memset(o, 0, sizeof *o);
  o->bytes = 1024;
  o->seed = 1;
  o->iters = 30;
  o->warmup = 3;
  o->verify = 2;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (a[0] != '-') {
      if (o->plan) {
        if (loud)
          fprintf(stderr, "collc-twin: error: two plans given ('%s', '%s')\n", o->plan, a);
        return -1;
      }
      o->plan = a;
      continue;
    }
    if (!v) {
      if (loud)
        fprintf(stderr, "collc-twin: error: option '%s' needs a value\n", a);
      return -1;
    }
    ++i;
    if (!strcmp(a, "--counts")) {
      if (wl_dist_parse(v, &o->dist)) {
        if (loud)
          fprintf(stderr, "collc-twin: error: unknown --counts '%s'\n", v);
        return -1;
      }
      continue;
    }
    if (!strcmp(a, "--corrupt")) {
      o->corrupt = !strcmp(v, "runtime") ? IMPL_RUNTIME : !strcmp(v, "twin") ? IMPL_TWIN : -1;
      if (o->corrupt < 0) {
        if (loud)
          fprintf(stderr, "collc-twin: error: --corrupt takes runtime or twin, not '%s'\n", v);
        return -1;
      }
      continue;
    }
    long long x = strtoll(v, &end, 0);
    if (!*v || *end || x < 0) {
      if (loud)
        fprintf(stderr, "collc-twin: error: option '%s' needs a non-negative integer, not '%s'\n", a, v);
      return -1;
    }
    if (!strcmp(a, "--bytes") && x <= INT_MAX) o->bytes = x;
    else if (!strcmp(a, "--seed")) o->seed = (unsigned long long)x;
    else if (!strcmp(a, "--iters") && x >= 1 && x <= 1000000) o->iters = (int)x;
    else if (!strcmp(a, "--warmup") && x <= 1000000) o->warmup = (int)x;
    else if (!strcmp(a, "--verify") && x <= 1000) o->verify = (int)x;
    else {
      if (loud)
        fprintf(stderr, "collc-twin: error: unknown option '%s' or value '%s' out of range\n", a, v);
      return -1;
    }
  }
  if (!o->plan) {
    if (loud)
      usage();
    return -1;
  }
  return 0;
}

static int finish(int code) {
  MPI_Finalize();
  return code;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  options_t o;
  if (parse(argc, argv, &o, wrank == 0))
    return finish(2);

  collrt_diag_t diag = {{0}};
  collrt_plan_t *plan = NULL;
  collrt_status_t st = collrt_plan_load_file(o.plan, &plan, &diag);
  if (st) {
    if (wrank == 0)
      fprintf(stderr, "collc-twin: error: %s: %s\n", collrt_strerror(st), diag.message);
    return finish(1);
  }
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  const char *opname = d->op == COLLRT_OP_ALLTOALL ? "alltoall" : d->op == COLLRT_OP_ALLTOALLV ? "alltoallv" : "allgatherv";
  const char *alg = collrt_algorithm_name(d->algorithm);

  bench_t b;
  memset(&b, 0, sizeof b);
  b.comm = MPI_COMM_WORLD;
  if (wl_init(&b.w, d->op, b.comm, o.bytes, o.dist, o.seed))
    die("out of memory for the count arrays");
  b.send = malloc(b.w.send_len + 1);
  for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl)
    b.recv[impl] = malloc(b.w.recv_len + 1);
  if (!b.send || !b.recv[IMPL_RUNTIME] || !b.recv[IMPL_TWIN] || !b.recv[IMPL_MPI])
    die("out of memory for the buffers");

  /* Bind is collective and reports its errors on every rank. */
  const wl_t *w = &b.w;
  uint8_t *rrt = b.recv[IMPL_RUNTIME];
  unsigned flags = COLLRT_BIND_CHECK_COUNTS;
  if (d->op == COLLRT_OP_ALLTOALL)
    st = collrt_bind_alltoall(plan, b.comm, b.send, rrt, w->count, MPI_BYTE, flags, &b.coll, &diag);
  else if (d->op == COLLRT_OP_ALLTOALLV)
    st = collrt_bind_alltoallv(plan, b.comm, b.send, w->sc, w->sd, rrt, w->rc, w->rd, MPI_BYTE,
                               flags, &b.coll, &diag);
  else
    st = collrt_bind_allgatherv(plan, b.comm, b.send, w->count, rrt, w->rc, w->rd, MPI_BYTE,
                                flags, &b.coll, &diag);
  if (st) {
    if (wrank == 0)
      fprintf(stderr, "collc-twin: error: bind: %s: %s\n", collrt_strerror(st), diag.message);
    return finish(1);
  }

  int64_t *arr = malloc(4 * (size_t)w->P * sizeof *arr);
  collrt_expand_input_t in;
  collrt_steps_t steps = {0};
  if (!arr)
    die("out of memory for the expansion input");
  expand_input(w, arr, &in);
  st = collrt_expand(plan, &in, &steps, &diag);
  if (st) /* bind expanded the same input without error */
    die("expand: %s: %s", collrt_strerror(st), diag.message);
  /* the twin writes MPI point-to-point and memcpy by hand; a node arena
   * (shared memory, counters across ranks) is the runtime's alone */
  if (steps.has_arena)
    die("the plan uses the node arena (ARENA, NOTIFY, AWAIT), which the twin does not implement");
  if (twin_init(&b.twin, d, &steps, b.send, b.recv[IMPL_TWIN], b.comm))
    die("cannot set up the twin (memory or MPI_Comm_dup)");

  long long kinds[3] = {0, 0, 0}; /* SEND, RECV, COPY */
  b.corrupt_at = -1;
  for (size_t i = 0; i < steps.count; ++i) {
    const collrt_step_t *s = &steps.steps[i];
    ++kinds[s->kind - 1];
    /* the first byte this step writes: its destination's first segment */
    const collrt_seg_t *g = steps.segs + s->seg_begin;
    collrt_seg_t first = s->kind == COLLRT_STEP_RECV
                             ? (s->nsrc ? g[0] : (collrt_seg_t){s->off, s->len, s->buf})
                             : (s->ndst ? g[s->nsrc] : (collrt_seg_t){s->dst_off, s->len, s->dst_buf});
    if (s->kind != COLLRT_STEP_SEND && first.buf == COLLRT_BUF_RECV && b.corrupt_at < 0)
      b.corrupt_at = first.off;
  }
  /* the busiest rank's step counts (steps < COLLRT_MAX_STEPS fit an int) */
  struct { int steps, rank; } mine = {(int)steps.count, w->rank}, busiest;
  MPI_Allreduce(&mine, &busiest, 1, MPI_2INT, MPI_MAXLOC, b.comm);
  MPI_Bcast(kinds, 3, MPI_LONG_LONG, busiest.rank, b.comm);
  long long steps_max = busiest.steps;

  char what[256];
  snprintf(what, sizeof what, "op=%s alg=%s P=%d bytes=%lld counts=%s", opname, alg, w->P, o.bytes,
           wl_dist_name(o.dist));
  int failed = 0;
  for (int it = 1; it <= o.verify && !failed; ++it) {
    prefill(&b, it);
    for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl)
      run_once(&b, &o, impl);
    char when[64];
    snprintf(when, sizeof when, "verification run %d", it);
    failed = compare(&b, when);
  }

  double *t[4] = {NULL, NULL, NULL, NULL};
  for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl)
    if (!(t[impl] = malloc((size_t)o.iters * sizeof(double))))
      die("out of memory for the timings");
  if (!failed) {
    /* every timed run writes the same result into a fresh pre-fill's place:
     * the last one is compared too */
    prefill(&b, 0);
    for (int it = -o.warmup; it < o.iters; ++it)
      for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl) {
        double us = timed(&b, &o, impl);
        if (it >= 0)
          t[impl][it] = us;
      }
    failed = compare(&b, "last timed run");
  }

  if (wrank == 0 && !failed) {
    printf("verified: %s runs=%d runtime == twin == mpi\n", what, o.verify + 1);
    double med[4], mn[4];
    for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl) {
      qsort(t[impl], (size_t)o.iters, sizeof(double), cmp_double);
      med[impl] = t[impl][o.iters / 2];
      mn[impl] = t[impl][0];
    }
    double ovh = steps_max ? (med[IMPL_RUNTIME] - med[IMPL_TWIN]) / (double)steps_max : 0.0;
    printf("%s wait=%s iters=%d steps=%lld sends=%lld recvs=%lld copies=%lld"
           " runtime_med_us=%.2f runtime_min_us=%.2f twin_med_us=%.2f twin_min_us=%.2f"
           " mpi_med_us=%.2f mpi_min_us=%.2f rt_twin=%.3f overhead_us_per_step=%.3f"
           " rt_mpi=%.3f twin_mpi=%.3f\n",
           what, collrt_wait_policy_name(collrt_coll_wait_policy(b.coll)), o.iters, steps_max, kinds[0], kinds[1], kinds[2], med[IMPL_RUNTIME],
           mn[IMPL_RUNTIME], med[IMPL_TWIN], mn[IMPL_TWIN], med[IMPL_MPI], mn[IMPL_MPI],
           med[IMPL_TWIN] > 0 ? med[IMPL_RUNTIME] / med[IMPL_TWIN] : 0.0, ovh,
           med[IMPL_MPI] > 0 ? med[IMPL_RUNTIME] / med[IMPL_MPI] : 0.0,
           med[IMPL_MPI] > 0 ? med[IMPL_TWIN] / med[IMPL_MPI] : 0.0);
  } else if (wrank == 0) {
    fprintf(stderr, "collc-twin: %s: results differ (see MISMATCH above)\n", what);
  }
  for (int impl = IMPL_RUNTIME; impl <= IMPL_MPI; ++impl) {
    free(t[impl]);
    free(b.recv[impl]);
  }
  twin_free(&b.twin);
  collrt_steps_free(&steps);
  collrt_coll_free(b.coll);
  collrt_plan_free(plan);
  free(arr);
  free(b.send);
  wl_free(&b.w);
  return finish(failed ? 1 : 0);
}

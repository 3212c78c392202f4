/* Binding a plan to a communicator and buffers: argument checks, the
 * collective counts check, expansion for the calling rank, and agreement so
 * that every rank returns an error if any rank failed. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "coll_internal.h"
#include "diag.h"
#include "env.h"
#include "plan_internal.h"

/* The build's one seam for SimGrid SMPI (see collc/wait_policy.h). */
#ifndef COLLRT_SMPI
#define COLLRT_SMPI 0
#endif
#if COLLRT_SMPI
#include <smpi/smpi.h>
#endif

/* Scratch for simulations at scale: under SMPI with
 * COLLRT_SMPI_SHARED_SCRATCH=1 (collc-run --shared-bufs sets it, beside
 * folding the user's buffers) every rank's scratch folds onto one
 * SMPI_SHARED_MALLOC allocation. Timing is unchanged, results are garbage,
 * exactly as for the folded user buffers; plans that stage P·m bytes per
 * rank (dim-rings, two-phase) would otherwise need P times that of host
 * memory. Everywhere else: malloc. */
static void *scratch_alloc(size_t n, int *shared) {
  *shared = 0;
#if COLLRT_SMPI
  const char *fold = getenv("COLLRT_SMPI_SHARED_SCRATCH");
  if (fold && !strcmp(fold, "1")) {
    *shared = 1;
    return SMPI_SHARED_MALLOC(n);
  }
#endif
  return malloc(n);
}

static void scratch_free(void *p, int shared) {
#if COLLRT_SMPI
  if (shared) {
    SMPI_SHARED_FREE(p);
    return;
  }
#endif
  (void)shared;
  free(p);
}

/* Byte-level view of the user's arguments, the input of expansion. */
typedef struct bind_args {
  const collrt_plan_t *plan;
  MPI_Comm comm;
  int rank, size;
  unsigned flags;
  const void *sendbuf;
  void *recvbuf;
  int64_t *arrays; /* scounts, sdispls, rcounts, rdispls (bytes), 4 * size */
  int *ints;       /* 5 * size ints for the counts check */
  collrt_expand_input_t in;
  collrt_comm_ctx_t *ctx; /* the communicator's state (finish) */
  int map_node;           /* the bind needs the node map (agree_on_plan) */
  int op;                 /* COLLRT_OP_* of the call */
  int root;               /* the relabeling of collrt_bind_one_message; 0: none */
} bind_args_t;

collrt_status_t collrt_mpi_error(collrt_diag_t *diag, int rc, const char *what) {
  char msg[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(rc, msg, &n);
  collrt_diag_set(diag, "%s failed: %s", what, msg);
  return COLLRT_ERR_MPI;
}

/* Checks that can fail without a valid communicator return at once: they
 * fail on every rank alike when the caller passes them alike. */
static collrt_status_t begin(bind_args_t *a, const collrt_plan_t *plan,
                             MPI_Comm comm, const void *sendbuf, void *recvbuf,
                             unsigned flags, collrt_coll_t **out,
                             collrt_diag_t *diag) {
  memset(a, 0, sizeof *a);
  a->flags = flags;
  a->sendbuf = sendbuf;
  a->recvbuf = recvbuf;
  if (!plan || !out || comm == MPI_COMM_NULL) {
    collrt_diag_set(diag, "collrt_bind: %s", !plan ? "plan is NULL" : !out ? "out_coll is NULL"
                                                                          : "comm is MPI_COMM_NULL");
    return COLLRT_ERR_ARG;
  }
  *out = NULL;
  int inter = 0, rc;
  if ((rc = MPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS)
    return collrt_mpi_error(diag, rc, "MPI_Comm_test_inter");
  if (inter) {
    collrt_diag_set(diag, "collrt_bind: comm is an intercommunicator; plans run on intracommunicators");
    return COLLRT_ERR_ARG;
  }
  MPI_Comm_size(comm, &a->size);
  MPI_Comm_rank(comm, &a->rank);
  a->plan = plan;
  a->comm = comm;
  a->arrays = calloc(4 * (size_t)a->size, sizeof *a->arrays);
  a->ints = calloc(5 * (size_t)a->size, sizeof *a->ints);
  if (!a->arrays || !a->ints) {
    free(a->arrays);
    free(a->ints);
    collrt_diag_set(diag, "cannot allocate count arrays for %d ranks", a->size);
    return COLLRT_ERR_NOMEM;
  }
  a->in.size = a->size;
  a->in.rank = a->rank;
  a->in.scounts = a->arrays;
  a->in.sdispls = a->arrays + a->size;
  a->in.rcounts = a->arrays + 2 * a->size;
  a->in.rdispls = a->arrays + 3 * a->size;
  return COLLRT_OK;
}

/* An alltoall is an alltoallv with uniform counts, so an alltoallv plan may
 * be bound as alltoall; otherwise the plan's op must match the call. */
static collrt_status_t check_op(const collrt_plan_t *plan, int op, collrt_diag_t *diag) {
  int have = collrt_plan_desc(plan)->op;
  if (have == op || (op == COLLRT_OP_ALLTOALL && have == COLLRT_OP_ALLTOALLV))
    return COLLRT_OK;
  collrt_diag_set(diag, "the plan implements %s but was bound with collrt_bind_%s", collrt_op_name(have), collrt_op_name(op));
  return COLLRT_ERR_ARG;
}

static collrt_status_t type_size(MPI_Datatype type, int64_t *out,
                                 collrt_diag_t *diag) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  if (type == MPI_DATATYPE_NULL) {
    collrt_diag_set(diag, "collrt_bind: datatype is MPI_DATATYPE_NULL");
    return COLLRT_ERR_ARG;
  }
  MPI_Type_size(type, &size);
  MPI_Type_get_extent(type, &lb, &extent);
  if (lb != 0 || (MPI_Aint)size != extent || size <= 0) {
    collrt_diag_set(diag, "collrt_bind: datatype has size %d but extent %ld (lb %ld); collrt needs contiguous types (size == extent > 0, lb 0)",
                    size, (long)extent, (long)lb);
    return COLLRT_ERR_ARG;
  }
  *out = size;
  return COLLRT_OK;
}

/* Converts element counts/displacements to bytes and derives the buffer
 * extents the steps may touch. */
static collrt_status_t to_bytes(bind_args_t *a, const int *counts, const int *displs,
                                int64_t tsize, int64_t *out_counts, int64_t *out_displs,
                                int64_t *extent, const char *what, collrt_diag_t *diag) {
  int64_t ext = 0;
  for (int j = 0; j < a->size; ++j) {
    if (counts[j] < 0 || displs[j] < 0) {
      collrt_diag_set(diag, "collrt_bind on rank %d: %s%s[%d] = %d is negative", a->rank, what,
                      counts[j] < 0 ? "counts" : "displs", j, counts[j] < 0 ? counts[j] : displs[j]);
      return COLLRT_ERR_ARG;
    }
    out_counts[j] = counts[j] * tsize;
    out_displs[j] = displs[j] * tsize;
    if (out_counts[j] && out_displs[j] + out_counts[j] > ext)
      ext = out_displs[j] + out_counts[j];
  }
  *extent = ext;
  return COLLRT_OK;
}

/* CPUs this process may run on (its affinity mask), or 0 if unknown. */
static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 && n < INT_MAX ? (int)n : 0;
}

/* The idle policy of collc/wait_policy.h, from the ranks that share this
 * node's CPUs (node_map.c counts them). */
static collrt_status_t choose_wait_policy(int node_ranks, collrt_wait_policy_t *out,
                                          collrt_diag_t *diag) {
  collrt_wait_policy_t p = COLLRT_WAIT_AUTO;
  collrt_status_t st = collrt_choose_wait_policy(getenv("COLLRT_WAIT"), node_ranks, usable_cpus(),
                                                 COLLRT_SMPI, &p, diag);
  if (!st && out)
    *out = p;
  return st;
}

/* COLLRT_VERBOSE=1: rank 0 says once per bind how its messages move. */
static void say_transport(const collrt_coll_t *c) {
  const char *v = getenv("COLLRT_VERBOSE");
  if (!v || !*v || !strcmp(v, "0") || c->rank != 0)
    return;
  collrt_transport_info_t t;
  if (collrt_coll_transport(c, &t, NULL))
    return;
  static const char *const how[] = {"MPI point-to-point", "shared memory, one copy (memcpy in one address space)",
                                    "shared memory, one copy (process_vm_readv/writev: both ends copy)"};
  fprintf(stderr, "collrt: rank 0's node has %d rank%s; on-node messages%s go through %s%s%s; rank 0 moves %zu of its %zu transfers that way\n",
          t.node_ranks, t.node_ranks == 1 ? "" : "s",
          t.shm && t.shm_min_bytes ? " of at least a threshold" : "", how[t.shm],
          t.why ? ": " : "", t.why ? t.why : "", t.shm_steps, t.steps);
  if (c->arena.done)
    fprintf(stderr, "collrt: rank 0's node arena: %lld bytes and %lld counters in shared memory, shared by %d rank%s\n",
            (long long)c->steps.arena_bytes, (long long)c->steps.arena_counters, c->arena.size,
            c->arena.size == 1 ? "" : "s");
  if (t.shm && t.shm_min_bytes)
    fprintf(stderr, "collrt: shared-memory threshold %lld bytes (COLLRT_SHM_MIN); %zu shorter transfers go eager, through the sender's shared window%s\n",
            (long long)t.shm_min_bytes, t.shm_eager_steps,
            t.shm_eager_steps ? "" : " (or over MPI with COLLRT_SHM_EAGER=0)");
}

/* A gathered SEND or RECV moves its segments as one message: an hindexed
 * datatype over absolute addresses (segments may lie in different buffers),
 * used with MPI_BOTTOM. Built once here, so no start pays for it. */
collrt_status_t collrt_gathered_type(const collrt_coll_t *c, size_t i, int *lens,
                                     MPI_Aint *displs, MPI_Datatype *out,
                                     collrt_diag_t *diag) {
  const collrt_step_t *s = &c->steps.steps[i];
  for (uint32_t k = 0; k < s->nsrc; ++k) {
    const collrt_seg_t *g = &c->steps.segs[s->seg_begin + k];
    lens[k] = (int)g->len;
    MPI_Get_address(c->buf[g->buf] + g->off, &displs[k]);
  }
  int rc = MPI_Type_create_hindexed((int)s->nsrc, lens, displs, MPI_BYTE, out);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_commit(out);
  if (rc != MPI_SUCCESS) {
    *out = MPI_DATATYPE_NULL;
    char what[96];
    snprintf(what, sizeof what, "MPI_Type_create_hindexed (gathered transfer of step %zu)", i);
    return collrt_mpi_error(diag, rc, what);
  }
  return COLLRT_OK;
}

/* A gathered message (not a COPY, which walks its segments) that does not
 * go contiguous under folding. */
static int needs_datatype(const collrt_coll_t *c, const collrt_step_t *s) {
  return s->kind != COLLRT_STEP_COPY && s->nsrc && !collrt_gathered_folds(c, s);
}

static collrt_status_t build_datatypes(collrt_coll_t *c, collrt_diag_t *diag) {
  size_t n = c->steps.count, most = 0, any = 0;
  for (size_t i = 0; i < n; ++i)
    if (needs_datatype(c, &c->steps.steps[i])) {
      any = 1;
      if (c->steps.steps[i].nsrc > most)
        most = c->steps.steps[i].nsrc;
    }
  if (!any)
    return COLLRT_OK;
  c->dtype = malloc(n * sizeof *c->dtype);
  int *lens = malloc(most * sizeof *lens);
  MPI_Aint *displs = malloc(most * sizeof *displs);
  collrt_status_t st = COLLRT_OK;
  if (!c->dtype || !lens || !displs) {
    collrt_diag_set(diag, "cannot allocate datatypes for %zu steps", n);
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  for (size_t i = 0; i < n; ++i)
    c->dtype[i] = MPI_DATATYPE_NULL;
  for (size_t i = 0; i < n && !st; ++i) {
    const collrt_step_t *s = &c->steps.steps[i];
    if (needs_datatype(c, s))
      st = collrt_gathered_type(c, i, lens, displs, &c->dtype[i], diag);
  }
out:
  free(lens);
  free(displs);
  return st;
}

/* The bind-time exchange (plan_format.h): every rank's PUTs delivered once,
 * by one MPI_Alltoall of record counts, one MPI_Allreduce that lets every
 * rank skip the data exchange if any rank failed (its first pass, or room
 * for what it would receive), and then the 24-byte records point to point,
 * one message per pair that has records, on a private duplicate of the
 * communicator. Not an MPI_Alltoallv: schedules PUT to few peers (a
 * virtual-mesh rank to its row), and an alltoallv with mostly zero counts
 * still costs P messages per rank in some MPI libraries (SimGrid's: at 512
 * simulated ranks, minutes of wall time). Collective: a rank whose status
 * is already an error takes part with no records. On success *tables holds
 * the sorted entries (free entries). */
static collrt_status_t send_records(bind_args_t *a, const int64_t *out, const int *scount,
                                    const int *sdispl, int64_t *in, const int *rcount,
                                    const int *rdispl, collrt_diag_t *diag) {
  int P = a->size, rc, nreq = 0;
  MPI_Comm xc = MPI_COMM_NULL;
  MPI_Datatype rec = MPI_DATATYPE_NULL;
  MPI_Request *reqs = malloc(2 * (size_t)P * sizeof *reqs);
  /* (MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow) */
  MPI_Status *statuses = malloc(2 * (size_t)P * sizeof *statuses);
  if (!reqs || !statuses) {
    free(reqs);
    free(statuses);
    collrt_diag_set(diag, "cannot allocate %d requests for the bind-time exchange", 2 * P);
    return COLLRT_ERR_NOMEM;
  }
  collrt_status_t st = COLLRT_OK;
  /* channel 0 of the communicator's duplicate: no plan message uses it */
  xc = a->ctx->dup;
  MPI_Type_contiguous(3, MPI_INT64_T, &rec);
  MPI_Type_commit(&rec);
  for (int j = 0; j < P && !st; ++j)
    if (rcount[j] &&
        (rc = MPI_Irecv(in + 3 * (size_t)rdispl[j], rcount[j], rec, j, 0, xc, &reqs[nreq++])))
      st = collrt_mpi_error(diag, rc, "MPI_Irecv (bind-time exchange records)");
  /* Sends in shift order from this rank, so no rank is everyone's first,
   * at most kRecordWindow in flight: a rank may PUT to hundreds of peers
   * (dim-rings' alltoallv: ~200 at 512 ranks), and SimGrid re-solves every
   * flow in flight at each event, so all at once cost tens of minutes of
   * wall time at 512 simulated ranks. Under SMPI synchronous, so that
   * SimGrid does not detach them (engine.c, "eager sends"). */
  enum { kRecordWindow = 8 };
  MPI_Request *window = reqs + nreq;
  int inflight = 0;
  for (int k = 1; k <= P && !st; ++k) {
    int j = (a->rank + k) % P;
    if (!scount[j])
      continue;
    int slot = inflight;
    if (inflight == kRecordWindow) {
      rc = MPI_Waitany(kRecordWindow, window, &slot, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        st = collrt_mpi_error(diag, rc, "MPI_Waitany (bind-time exchange records)");
        break;
      }
    } else {
      ++inflight;
    }
    if ((rc = (COLLRT_SMPI ? MPI_Issend : MPI_Isend)(out + 3 * (size_t)sdispl[j], scount[j], rec,
                                                     j, 0, xc, &window[slot]))) {
      window[slot] = MPI_REQUEST_NULL;
      st = collrt_mpi_error(diag, rc, "MPI_Isend (bind-time exchange records)");
    }
  }
  nreq += inflight;
  rc = MPI_Waitall(nreq, reqs, statuses);
  if (rc != MPI_SUCCESS && !st)
    st = collrt_mpi_error(diag, rc, "MPI_Waitall (bind-time exchange records)");
  MPI_Type_free(&rec);
  free(reqs);
  free(statuses);
  return st;
}

static collrt_status_t exchange(bind_args_t *a, collrt_status_t st, collrt_table_entry_t **entries,
                                collrt_tables_t *tables, collrt_diag_t *diag) {
  int P = a->size, rc;
  collrt_put_t *puts = NULL;
  size_t n = 0;
  int64_t *out = NULL, *in = NULL;
  int *cnt = a->ints; /* 5 P ints from begin(); the counts check is done with them */
  memset(cnt, 0, 4 * (size_t)P * sizeof *cnt);
  int *scount = cnt, *sdispl = cnt + P, *rcount = cnt + 2 * P, *rdispl = cnt + 3 * P;
  *entries = NULL;
  if (!st)
    st = collrt_exchange_puts(a->plan, &a->in, &puts, &n, diag);
  if (!st && n > INT_MAX / 3) {
    collrt_diag_set(diag, "rank %d PUTs %zu exchange records, more than one bind can carry", a->rank, n);
    st = COLLRT_ERR_BOUNDS;
  }
  /* records grouped by peer, in program order within a peer */
  if (!st && n && !(out = malloc(3 * n * sizeof *out))) {
    collrt_diag_set(diag, "cannot allocate %zu exchange records", n);
    st = COLLRT_ERR_NOMEM;
  }
  if (!st) {
    for (size_t k = 0; k < n; ++k)
      ++scount[puts[k].peer];
    for (int j = 1; j < P; ++j)
      sdispl[j] = sdispl[j - 1] + scount[j - 1];
    int *fill = rdispl; /* scratch until the counts arrive */
    memcpy(fill, sdispl, (size_t)P * sizeof *fill);
    for (size_t k = 0; k < n; ++k) {
      int64_t *r = out + 3 * (size_t)fill[puts[k].peer]++;
      r[0] = puts[k].table;
      r[1] = puts[k].index;
      r[2] = puts[k].value;
    }
  } else {
    memset(scount, 0, (size_t)P * sizeof *scount);
  }
  rc = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, a->comm);
  if (rc != MPI_SUCCESS && !st)
    st = collrt_mpi_error(diag, rc, "MPI_Alltoall (bind-time exchange counts)");
  int64_t total = 0;
  if (!st) {
    for (int j = 0; j < P; ++j) {
      rdispl[j] = (int)total;
      total += rcount[j];
    }
    if (total > INT_MAX / 3) {
      collrt_diag_set(diag, "rank %d would receive %lld exchange records, more than one bind can carry",
                      a->rank, (long long)total);
      st = COLLRT_ERR_BOUNDS;
    } else if (!(in = malloc((3 * (size_t)total + 1) * sizeof *in)) ||
               !(*entries = malloc(((size_t)total + 1) * sizeof **entries))) {
      collrt_diag_set(diag, "cannot allocate %lld received exchange records", (long long)total);
      st = COLLRT_ERR_NOMEM;
    }
  }
  int ok = st == COLLRT_OK, all_ok = 0;
  rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, a->comm);
  if (rc != MPI_SUCCESS && !st)
    st = collrt_mpi_error(diag, rc, "MPI_Allreduce (bind-time exchange)");
  if (!st && !all_ok) {
    collrt_diag_set(diag, "another rank failed its part of the bind-time exchange; see its diagnostic");
    st = COLLRT_ERR_COUNTS;
  }
  if (!st)
    st = send_records(a, out, scount, sdispl, in, rcount, rdispl, diag);
  if (!st) {
    for (int j = 0; j < P; ++j)
      for (int k = rdispl[j]; k < rdispl[j] + rcount[j]; ++k) {
        const int64_t *r = in + 3 * (size_t)k;
        collrt_table_entry_t *e = &(*entries)[k];
        e->from = j;
        e->table = (uint8_t)r[0];
        e->index = r[1];
        e->value = r[2];
      }
    st = collrt_tables_sort(*entries, (size_t)total, a->rank, diag);
    tables->entries = *entries;
    tables->count = (size_t)total;
  }
  free(puts);
  free(out);
  free(in);
  return st;
}

/* Every rank learns whether some rank failed to set up `what` (its own
 * status, else the lowest failing one, naming that rank). */
static collrt_status_t agree(MPI_Comm comm, int rank, collrt_status_t st, const char *what,
                             collrt_diag_t *diag) {
  struct { int status, rank; } mine = {st, rank}, worst;
  int rc = MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MINLOC, comm);
  if (rc != MPI_SUCCESS) {
    char op[96];
    snprintf(op, sizeof op, "MPI_Allreduce (agreement on %s)", what);
    return collrt_mpi_error(diag, rc, op);
  }
  if (worst.status != COLLRT_OK && st == COLLRT_OK) {
    st = (collrt_status_t)worst.status;
    collrt_diag_set(diag, "rank %d failed to set up %s (%s); see its diagnostic", worst.rank, what,
                    collrt_strerror(st));
  }
  return st;
}

/* Expands (if the local checks passed), agrees on the outcome with every
 * rank, and builds the handle. */
/* The engine's state for the expanded steps: buffers, scratch, request and
 * copy arrays sized by what can be in flight, datatypes (unless the plan
 * has an arena: those wait for its mapping), FIFO queues. Shared by bind
 * and recount. */
static collrt_status_t build_engine(collrt_coll_t *c, const bind_args_t *a, collrt_diag_t *diag) {
  collrt_status_t st = COLLRT_OK;
  {
    const collrt_plan_desc_t *d = collrt_plan_desc(a->plan);
    size_t n = c->steps.count;
    c->buf[COLLRT_BUF_SEND] = (uint8_t *)(uintptr_t)a->sendbuf;
    c->buf[COLLRT_BUF_RECV] = a->recvbuf;
    c->buf[COLLRT_BUF_SCRATCH] = scratch_alloc(
        c->steps.scratch_bytes ? (size_t)c->steps.scratch_bytes : 1, &c->scratch_shared);
    /* Requests in flight never exceed the FIFO windows (unless a window is
     * unbounded), nor copies under way the copy steps: size the engine's
     * arrays by that, not by every step. */
    size_t nreq = 0, ncopy = 0;
    for (int f = 0; f < d->nfifos; ++f)
      nreq += d->fifos[f].recv_depth ? (size_t)d->fifos[f].send_depth + d->fifos[f].recv_depth : n;
    if (nreq > n)
      nreq = n;
    for (size_t i = 0; i < n; ++i)
      ncopy += c->steps.steps[i].kind == COLLRT_STEP_COPY;
    c->reqs = malloc((nreq + 1) * sizeof *c->reqs);
    c->req_step = malloc((nreq + 1) * sizeof *c->req_step);
    c->indices = malloc((nreq + 1) * sizeof *c->indices);
    c->statuses = malloc((nreq + 1) * sizeof *c->statuses);
    c->copy_step = malloc((ncopy + 1) * sizeof *c->copy_step);
    c->copy_done = malloc((ncopy + 1) * sizeof *c->copy_done);
    if (a->flags & COLLRT_BIND_TRACE) {
      c->t_issue = calloc(n + 1, sizeof *c->t_issue);
      c->t_done = calloc(n + 1, sizeof *c->t_done);
    }
    if (!c->buf[COLLRT_BUF_SCRATCH] || !c->reqs || !c->req_step || !c->indices || !c->statuses ||
        !c->copy_step || !c->copy_done ||
        ((a->flags & COLLRT_BIND_TRACE) && (!c->t_issue || !c->t_done))) {
      collrt_diag_set(diag, "cannot allocate %lld scratch bytes and state for %zu steps",
                      (long long)c->steps.scratch_bytes, n);
      return COLLRT_ERR_NOMEM;
    }
    /* gathered messages address buffers absolutely: a plan with an arena
     * builds them once the arena is mapped (bind) */
    if (!c->steps.has_arena && (st = build_datatypes(c, diag)))
      return st;
    if ((st = collrt_fq_init(&c->fq, &c->steps, d->fifos, d->nfifos))) {
      collrt_diag_set(diag, "cannot allocate FIFO queues for %zu steps", n);
      return st;
    }
    c->fq_ready = 1;
  }
  return st;
}

/* Frees what build_engine made (and the steps). */
static void free_engine(collrt_coll_t *c) {
  if (c->fq_ready)
    collrt_fq_free(&c->fq);
  c->fq_ready = 0;
  if (c->dtype)
    for (size_t i = 0; i < c->steps.count; ++i)
      if (c->dtype[i] != MPI_DATATYPE_NULL)
        MPI_Type_free(&c->dtype[i]);
  free(c->dtype);
  c->dtype = NULL;
  collrt_steps_free(&c->steps);
  scratch_free(c->buf[COLLRT_BUF_SCRATCH], c->scratch_shared);
  c->buf[COLLRT_BUF_SCRATCH] = NULL;
  free(c->reqs);
  free(c->req_step);
  free(c->indices);
  free(c->statuses);
  free(c->copy_step);
  free(c->copy_done);
  free(c->t_issue);
  free(c->t_done);
  c->reqs = NULL;
  c->req_step = NULL;
  c->indices = NULL;
  c->statuses = NULL;
  c->copy_step = NULL;
  c->copy_done = NULL;
  c->t_issue = c->t_done = NULL;
}

/* The communicator's state (its first bind makes it, collectively), and
 * one agreement before anything the plan decides is collective: that the
 * state exists on every rank and every rank binds the same plan. Ranks
 * that bind different plans would otherwise enter different collectives
 * (one an arena's, another none) and hang. On failure every rank returns
 * the same status, having made no other collective call. */
static collrt_status_t agree_on_plan(bind_args_t *a, collrt_diag_t *diag) {
  collrt_diag_t cdiag = {{0}};
  collrt_status_t cst = collrt_comm_ctx_get(a->comm, &a->ctx, &cdiag);
  size_t len = 0;
  const uint8_t *bytes = collrt_plan_bytes(a->plan, &len);
  int64_t digest = bytes ? (int64_t)collrt_crc32(bytes, len) : -1;
  /* LOCAL_COUNTS decides which collectives the bind makes (no node map, no
   * shared memory): agreed like the plan. So is whether the node map is
   * needed only for the idle policy (a rank that has seen no node yet). */
  int64_t local = (a->flags & COLLRT_BIND_LOCAL_COUNTS) ? 1 : 0;
  int64_t unknown_node = cst || collrt_comm_ctx_known_hw_size() ? 0 : 1;
  int64_t mine[7] = {digest, -digest, cst ? ((int64_t)1 << 32) | (uint32_t)a->rank : 0,
                     cst ? -(int64_t)cst : 0, local, -local, unknown_node},
          all[7];
  int rc = MPI_Allreduce(mine, all, 7, MPI_INT64_T, MPI_MAX, a->comm);
  if (rc != MPI_SUCCESS)
    return collrt_mpi_error(diag, rc, "MPI_Allreduce (agreement on the plan)");
  if (all[2]) {
    if (cst) {
      if (diag)
        *diag = cdiag;
      return cst;
    }
    collrt_diag_set(diag, "rank %d could not set up the communicator's runtime state; see its diagnostic",
                    (int)(all[2] & 0xffffffff));
    return (collrt_status_t)-all[3];
  }
  if (all[0] != -all[1]) {
    collrt_diag_set(diag, "the ranks bind different plans (rank %d's plan has digest %08llx, others range over %08llx..%08llx); every rank must bind the same plan",
                    a->rank, (unsigned long long)digest, (unsigned long long)-all[1],
                    (unsigned long long)all[0]);
    return COLLRT_ERR_COMM_MISMATCH;
  }
  if (all[4] != -all[5]) {
    collrt_diag_set(diag, "the ranks bind with different flags (rank %d %s COLLRT_BIND_LOCAL_COUNTS, some other rank %s); every rank must pass the same flags",
                    a->rank, local ? "passes" : "does not pass", local ? "does not" : "does");
    return COLLRT_ERR_ARG;
  }
  /* The node map: for a plan that places ranks on nodes (ranks_per_node >
   * 1), for the shared-memory transport and arenas (not with counts that
   * change per run), and once for the idle policy's count of the node. */
  a->map_node = collrt_plan_desc(a->plan)->ranks_per_node > 1 || !local || all[6];
  return COLLRT_OK;
}

static collrt_status_t finish(bind_args_t *a, collrt_status_t st, collrt_coll_t **out,
                              collrt_diag_t *diag) {
  /* every variable the runtime reads, validated once per bind: a malformed
   * one fails the bind on every rank (agreement below) */
  if (!st)
    st = collrt_env_check_all(diag);
  {
    collrt_status_t pst = agree_on_plan(a, diag);
    if (pst) {
      free(a->arrays);
      free(a->ints);
      return pst;
    }
  }
  /* the plan is the same on every rank: so is this check's outcome */
  if (!st && (a->flags & COLLRT_BIND_LOCAL_COUNTS) &&
      (collrt_plan_has_exchange(a->plan) || a->plan->has_arena)) {
    collrt_diag_set(diag, "COLLRT_BIND_LOCAL_COUNTS: the plan has %s, which every new count pattern would have to set up collectively",
                    collrt_plan_has_exchange(a->plan) ? "a bind-time EXCHANGE" : "a node ARENA");
    st = COLLRT_ERR_ARG;
  }
  /* the bind's tag channels: the same on every rank (binds are collective
   * and take them in order); a rank whose live binds still hold one fails
   * the agreement below */
  int nfifos = (int)collrt_plan_desc(a->plan)->nfifos;
  int tagged = collrt_comm_ctx_tagged(a->ctx, nfifos), channel = 0;
  if (tagged) {
    collrt_diag_t chdiag = {{0}};
    collrt_status_t chst = collrt_comm_ctx_channels(a->ctx, nfifos, &channel, &chdiag);
    if (chst && !st) {
      st = chst;
      if (diag)
        *diag = chdiag;
    }
  }
  /* collrt_expand checks that the communicator fits the plan. */
  collrt_coll_t *c = calloc(1, sizeof *c);
  if (c) {
    for (int f = 0; f < COLLRT_MAX_FIFOS; ++f)
      c->fifo_comm[f] = MPI_COMM_NULL;
    c->node.comm = MPI_COMM_NULL;
    c->node.win = MPI_WIN_NULL;
    c->arena.comm = MPI_COMM_NULL;
    c->arena.win = MPI_WIN_NULL;
  }
  if (!st && !c) {
    collrt_diag_set(diag, "cannot allocate the collective handle");
    st = COLLRT_ERR_NOMEM;
  }
  /* the exchange, if the plan has one, is collective: every rank joins it */
  collrt_table_entry_t *entries = NULL;
  collrt_tables_t tables = {NULL, 0};
  if (collrt_plan_has_exchange(a->plan)) {
    st = exchange(a, st, &entries, &tables, diag);
    a->in.tables = &tables;
  }
  if (!st)
    st = collrt_expand(a->plan, &a->in, &c->steps, diag);
  /* a relabeled program's peers, back to the communicator's ranks */
  if (!st && a->root)
    for (size_t i = 0; i < c->steps.count; ++i)
      if (collrt_step_is_message(c->steps.steps[i].kind))
        c->steps.steps[i].peer = (int32_t)((c->steps.steps[i].peer + a->root) % a->size);
  free(entries); /* expansion consumed the tables */
  a->in.tables = NULL;
  if (!st)
    st = build_engine(c, a, diag);

  {
    /* every rank takes part in the node map, whatever its status */
    collrt_node_t node;
    collrt_diag_t ndiag = {{0}};
    collrt_status_t nst = a->map_node ? collrt_comm_ctx_node(a->ctx, a->comm, &ndiag) : COLLRT_OK;
    collrt_status_t mst = collrt_node_map(a->ctx, a->rank, a->size, a->plan, &node, &ndiag);
    if (!nst)
      nst = mst;
    if (!nst)
      nst = choose_wait_policy(node.hw_size, c ? &c->wait_policy : NULL, &ndiag);
    if (!st && nst) {
      st = nst;
      if (diag)
        *diag = ndiag;
    }
    if (c)
      c->node = node;
    else
      collrt_node_free(&node);
  }
  /* agreement: every rank learns the lowest failing status and its rank */
  struct { int status, rank; } mine = {st, a->rank}, worst;
  int rc = MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MINLOC, a->comm);
  if (rc != MPI_SUCCESS) {
    st = collrt_mpi_error(diag, rc, "MPI_Allreduce (bind agreement)");
    goto fail;
  }
  if (worst.status != COLLRT_OK) {
    if (tagged)
      collrt_comm_ctx_skip(a->ctx, channel, nfifos);
    if (st == COLLRT_OK) {
      st = (collrt_status_t)worst.status;
      collrt_diag_set(diag, "rank %d failed to bind (%s); see its diagnostic",
                      worst.rank, collrt_strerror(st));
    }
    goto fail;
  }
  const collrt_plan_desc_t *d = collrt_plan_desc(a->plan);
  c->comm = a->comm;
  c->plan = a->plan;
  c->op = a->op;
  c->rank = a->rank;
  c->size = a->size;
  c->flags = a->flags;
  c->nfifos = d->nfifos;
  /* Collective from here on: every rank reached this point. */
  c->ctx = a->ctx;
  if (tagged) {
    collrt_comm_ctx_take(a->ctx, channel, d->nfifos);
    c->channel_base = channel;
    for (int f = 0; f < d->nfifos; ++f) {
      c->fifo_comm[f] = a->ctx->dup;
      c->fifo_tag[f] = collrt_comm_ctx_tag(channel + f, 0);
    }
  } else {
    /* MPI_TAG_UB leaves no room for channels: a duplicate per FIFO */
    a->ctx->refs++;
    c->owns_fifo_comms = 1;
    for (int f = 0; f < d->nfifos; ++f) {
      if ((rc = MPI_Comm_dup(a->comm, &c->fifo_comm[f])) != MPI_SUCCESS) {
        st = collrt_mpi_error(diag, rc, "MPI_Comm_dup");
        goto fail;
      }
      MPI_Comm_set_errhandler(c->fifo_comm[f], MPI_ERRORS_RETURN);
    }
  }
  /* the node's shared-memory transport, and one more agreement: a rank
   * whose receives found no matching send must not leave its peers waiting */
  collrt_engine_set_gamma(c, d->gamma_ps_per_byte);
  if (c->node.comm != MPI_COMM_NULL)
    MPI_Comm_set_errhandler(c->node.comm, MPI_ERRORS_RETURN);
  /* the node arena first: the transport publishes its address too (plans
   * without one skip its agreement: the plan is the same everywhere) */
  if (c->steps.has_arena) {
    st = collrt_arena_bind(c, (int)d->ranks_per_node, diag);
    if (!st)
      st = build_datatypes(c, diag);
    if ((st = agree(a->comm, a->rank, st, "its node arena", diag)))
      goto fail;
  }
  st = collrt_shm_bind(c, diag);
  /* without a node map every rank goes over MPI (agreed), and nothing can fail */
  if (a->map_node && (st = agree(a->comm, a->rank, st, "the shared-memory transport", diag)))
    goto fail;
  say_transport(c);
  free(a->arrays);
  free(a->ints);
  *out = c;
  return COLLRT_OK;
fail:
  free(a->arrays);
  free(a->ints);
  collrt_coll_free(c);
  return st;
}

collrt_status_t collrt_bind_alltoall(const collrt_plan_t *plan, MPI_Comm comm,
                                     const void *sendbuf, void *recvbuf,
                                     int count, MPI_Datatype type,
                                     unsigned flags, collrt_coll_t **out,
                                     collrt_diag_t *diag) {
  bind_args_t a;
  collrt_status_t st = begin(&a, plan, comm, sendbuf, recvbuf, flags, out, diag);
  if (st)
    return st;
  int64_t tsize = 0;
  a.op = COLLRT_OP_ALLTOALL;
  st = check_op(plan, COLLRT_OP_ALLTOALL, diag);
  if (!st)
    st = type_size(type, &tsize, diag);
  if (!st && count < 0) {
    collrt_diag_set(diag, "collrt_bind_alltoall on rank %d: count %d is negative", a.rank, count);
    st = COLLRT_ERR_ARG;
  }
  if (!st && (sendbuf == MPI_IN_PLACE || (count && (!sendbuf || !recvbuf)))) {
    collrt_diag_set(diag, "collrt_bind_alltoall on rank %d: buffers must be distinct and non-NULL (MPI_IN_PLACE is not supported)", a.rank);
    st = COLLRT_ERR_ARG;
  }
  if (!st) {
    int64_t block = count * tsize;
    for (int j = 0; j < a.size; ++j) {
      a.arrays[j] = a.arrays[2 * a.size + j] = block;
      a.arrays[a.size + j] = a.arrays[3 * a.size + j] = j * block;
    }
    a.in.send_bytes = a.in.recv_bytes = a.size * block;
  }
  if (flags & COLLRT_BIND_CHECK_COUNTS) {
    int mm[2] = {-count, count}, g[2];
    MPI_Allreduce(mm, g, 2, MPI_INT, MPI_MAX, comm);
    if (!st && (-g[0] != count || g[1] != count)) {
      collrt_diag_set(diag, "collrt_bind_alltoall: rank %d passes count %d but counts range over [%d, %d]",
                      a.rank, count, -g[0], g[1]);
      st = COLLRT_ERR_COUNTS;
    }
  }
  return finish(&a, st, out, diag);
}

/* The datatype an allreduce binds with must be the MPI type of the element
 * type the plan's REDUCE steps combine (reduce_mpi.c): the kernels read the
 * buffers as that C type, and a buffer of another type of the same size
 * (float for int) would be combined as the wrong numbers. */
static collrt_status_t check_reduce_type(const collrt_plan_t *plan, MPI_Datatype type,
                                         collrt_diag_t *diag) {
  unsigned rop = 0, rtype = 0;
  int kinds = plan ? collrt_plan_reduce_kind(plan, &rop, &rtype) : 0;
  if (kinds == 0)
    return COLLRT_OK; /* no REDUCE step: the bytes are only moved */
  if (kinds < 0) {
    collrt_diag_set(diag, "collrt_bind_allreduce: the plan's REDUCE steps combine more than one (operation, type) pair; one MPI datatype cannot describe its buffers");
    return COLLRT_ERR_ARG;
  }
  if (type == MPI_DATATYPE_NULL || collrt_reduce_type_of_mpi(type) == rtype)
    return COLLRT_OK; /* (a null type: type_size says so) */
  char name[MPI_MAX_OBJECT_NAME] = "";
  int len = 0;
  MPI_Type_get_name(type, name, &len);
  collrt_diag_set(diag, "collrt_bind_allreduce: the plan's REDUCE steps combine %s (%s) but the datatype is %s; bind it with the MPI type of the plan's element type",
                  collrt_reduce_type_name(rtype), collrt_reduce_op_name(rop),
                  len ? name : "a derived datatype");
  return COLLRT_ERR_ARG;
}

collrt_status_t collrt_bind_one_message(const collrt_plan_t *plan, MPI_Comm comm, int op,
                                        const void *sendbuf, void *recvbuf, int count,
                                        MPI_Datatype type, int root, unsigned flags,
                                        collrt_status_t st, collrt_coll_t **out,
                                        collrt_diag_t *diag) {
  bind_args_t a;
  collrt_status_t bst = begin(&a, plan, comm, sendbuf, recvbuf, flags, out, diag);
  if (bst)
    return bst;
  if (root > 0 && root < a.size) {
    a.root = root;
    a.in.rank = (a.rank - root + a.size) % a.size;
  }
  const char *name = collrt_op_name((unsigned)op);
  int64_t tsize = 0;
  a.op = op;
  if (!st)
    st = check_op(plan, op, diag);
  if (!st)
    st = type_size(type, &tsize, diag);
  if (!st && count < 0) {
    collrt_diag_set(diag, "collrt_bind_%s on rank %d: count %d is negative", name, a.rank, count);
    st = COLLRT_ERR_ARG;
  }
  if (!st && (sendbuf == MPI_IN_PLACE || (count && (!sendbuf || !recvbuf)))) {
    collrt_diag_set(diag, "collrt_bind_%s on rank %d: a buffer is NULL or MPI_IN_PLACE", name, a.rank);
    st = COLLRT_ERR_ARG;
  }
  if (!st) {
    /* one message: every count expression reads its bytes, at offset 0 */
    int64_t bytes = count * tsize;
    for (int j = 0; j < a.size; ++j) {
      a.arrays[j] = a.arrays[2 * a.size + j] = bytes;
      a.arrays[a.size + j] = a.arrays[3 * a.size + j] = 0;
    }
    a.in.send_bytes = a.in.recv_bytes = bytes;
  }
  if (flags & COLLRT_BIND_CHECK_COUNTS) {
    int mm[2] = {-count, count}, g[2];
    MPI_Allreduce(mm, g, 2, MPI_INT, MPI_MAX, comm);
    if (!st && (-g[0] != count || g[1] != count)) {
      collrt_diag_set(diag, "collrt_bind_%s: rank %d passes count %d but counts range over [%d, %d]",
                      name, a.rank, count, -g[0], g[1]);
      st = COLLRT_ERR_COUNTS;
    }
  }
  return finish(&a, st, out, diag);
}

collrt_status_t collrt_bind_allreduce(const collrt_plan_t *plan, MPI_Comm comm,
                                      const void *sendbuf, void *recvbuf,
                                      int count, MPI_Datatype type,
                                      unsigned flags, collrt_coll_t **out,
                                      collrt_diag_t *diag) {
  collrt_status_t st = check_reduce_type(plan, type, diag);
  /* MPI_IN_PLACE: the plan may read its send buffer after it wrote the
   * receive buffer (a contribution travels on while the result arrives),
   * so the send side is a copy of the receive buffer that every start
   * makes (engine.c) */
  uint8_t *copy = NULL;
  int64_t bytes = 0;
  if (sendbuf == MPI_IN_PLACE) {
    int tsize = 0;
    if (type != MPI_DATATYPE_NULL)
      MPI_Type_size(type, &tsize);
    bytes = count > 0 && tsize > 0 ? (int64_t)count * tsize : 0;
    if (!(copy = malloc((size_t)bytes + 1)) && !st) {
      collrt_diag_set(diag, "collrt_bind_allreduce: cannot allocate %lld bytes for MPI_IN_PLACE",
                      (long long)bytes);
      st = COLLRT_ERR_NOMEM;
    }
    sendbuf = copy;
  }
  st = collrt_bind_one_message(plan, comm, COLLRT_OP_ALLREDUCE, sendbuf, recvbuf, count, type,
                               0, flags, st, out, diag);
  if (st) {
    free(copy);
  } else if (copy) {
    (*out)->in_place = copy;
    (*out)->in_place_bytes = bytes;
  }
  return st;
}

collrt_status_t collrt_bind_alltoallv(
    const collrt_plan_t *plan, MPI_Comm comm, const void *sendbuf,
    const int sendcounts[], const int sdispls[], void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype type,
    unsigned flags, collrt_coll_t **out, collrt_diag_t *diag) {
  bind_args_t a;
  collrt_status_t st = begin(&a, plan, comm, sendbuf, recvbuf, flags, out, diag);
  if (st)
    return st;
  int P = a.size;
  int64_t tsize = 0;
  if (!sendcounts || !sdispls || !recvcounts || !rdispls || sendbuf == MPI_IN_PLACE) {
    collrt_diag_set(diag, "collrt_bind_alltoallv on rank %d: a count or displacement array is NULL, or MPI_IN_PLACE (not supported)", a.rank);
    st = COLLRT_ERR_ARG;
  }
  a.op = COLLRT_OP_ALLTOALLV;
  if (!st)
    st = check_op(plan, COLLRT_OP_ALLTOALLV, diag);
  if (!st)
    st = type_size(type, &tsize, diag);
  if (!st)
    st = to_bytes(&a, sendcounts, sdispls, tsize, a.arrays, a.arrays + P, &a.in.send_bytes, "send", diag);
  if (!st)
    st = to_bytes(&a, recvcounts, rdispls, tsize, a.arrays + 2 * P, a.arrays + 3 * P,
                  &a.in.recv_bytes, "recv", diag);
  if (flags & COLLRT_BIND_CHECK_COUNTS) {
    /* got[j] = what rank j sends to this rank; always exchanged, so that a
     * rank with bad arguments still takes part in the collective */
    int *got = a.ints, *mine = a.ints + P;
    if (sendcounts)
      memcpy(mine, sendcounts, (size_t)P * sizeof *mine);
    int rc = MPI_Alltoall(mine, 1, MPI_INT, got, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS && !st)
      st = collrt_mpi_error(diag, rc, "MPI_Alltoall (counts check)");
    for (int j = 0; !st && j < P; ++j)
      if (got[j] != recvcounts[j]) {
        collrt_diag_set(diag, "inconsistent alltoallv counts: rank %d sends %d elements to rank %d but rank %d expects %d (recvcounts[%d])",
                        j, got[j], a.rank, a.rank, recvcounts[j], j);
        st = COLLRT_ERR_COUNTS;
      }
  }
  return finish(&a, st, out, diag);
}

collrt_status_t collrt_bind_allgatherv(
    const collrt_plan_t *plan, MPI_Comm comm, const void *sendbuf,
    int sendcount, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype type, unsigned flags, collrt_coll_t **out,
    collrt_diag_t *diag) {
  bind_args_t a;
  collrt_status_t st = begin(&a, plan, comm, sendbuf, recvbuf, flags, out, diag);
  if (st)
    return st;
  int P = a.size;
  int64_t tsize = 0;
  if (!recvcounts || !displs || sendbuf == MPI_IN_PLACE || sendcount < 0) {
    collrt_diag_set(diag, "collrt_bind_allgatherv on rank %d: %s", a.rank,
                    sendcount < 0 ? "sendcount is negative"
                                  : "recvcounts or displs is NULL, or MPI_IN_PLACE (not supported)");
    st = COLLRT_ERR_ARG;
  }
  a.op = COLLRT_OP_ALLGATHERV;
  if (!st)
    st = check_op(plan, COLLRT_OP_ALLGATHERV, diag);
  if (!st)
    st = type_size(type, &tsize, diag);
  if (!st)
    st = to_bytes(&a, recvcounts, displs, tsize, a.arrays + 2 * P, a.arrays + 3 * P,
                  &a.in.recv_bytes, "recv", diag);
  if (!st) {
    for (int j = 0; j < P; ++j)
      a.arrays[j] = sendcount * tsize;
    a.in.send_bytes = sendcount * tsize;
  }
  if (flags & COLLRT_BIND_CHECK_COUNTS) {
    /* sendcount of every rank, and the range of every recvcounts entry */
    int *got = a.ints, *range = a.ints + P, *mine = a.ints + 3 * P;
    for (int j = 0; j < P; ++j) {
      int v = recvcounts ? recvcounts[j] : 0;
      mine[j] = -v; /* MAX of -v = -MIN of v */
      mine[P + j] = v;
    }
    int rc = MPI_Allgather(&sendcount, 1, MPI_INT, got, 1, MPI_INT, comm);
    if (rc == MPI_SUCCESS)
      rc = MPI_Allreduce(mine, range, 2 * P, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS && !st)
      st = collrt_mpi_error(diag, rc, "MPI_Allgather/MPI_Allreduce (counts check)");
    for (int j = 0; !st && j < P; ++j) {
      if (-range[j] != recvcounts[j] || range[P + j] != recvcounts[j]) {
        collrt_diag_set(diag, "inconsistent allgatherv counts: rank %d passes recvcounts[%d] = %d but the ranks pass values in [%d, %d]",
                        a.rank, j, recvcounts[j], -range[j], range[P + j]);
        st = COLLRT_ERR_COUNTS;
      } else if (got[j] != recvcounts[j]) {
        collrt_diag_set(diag, "inconsistent allgatherv counts: rank %d sends %d elements but recvcounts[%d] = %d",
                        j, got[j], j, recvcounts[j]);
        st = COLLRT_ERR_COUNTS;
      }
    }
  }
  return finish(&a, st, out, diag);
}

void collrt_coll_free(collrt_coll_t *c) {
  if (!c)
    return;
  collrt_engine_forget(c);
  if (c->reqs)
    collrt_engine_abandon(c);
  collrt_arena_free(&c->arena);
  collrt_node_free(&c->node);
  if (c->owns_fifo_comms)
    for (int f = 0; f < COLLRT_MAX_FIFOS; ++f)
      if (c->fifo_comm[f] != MPI_COMM_NULL)
        MPI_Comm_free(&c->fifo_comm[f]);
  free_engine(c);
  free(c->recount_arrays);
  free(c->expanded_counts);
  free(c->in_place);
  free(c->recv_sink);
  /* last: the node's and arena's communicators above are the state's */
  if (c->ctx && c->owns_fifo_comms)
    collrt_comm_ctx_release(c->ctx);
  else if (c->ctx)
    collrt_comm_ctx_give_back(c->ctx, c->channel_base, c->nfifos);
  free(c);
}

/* ---- Local re-count (COLLRT_BIND_LOCAL_COUNTS) ---- */

/* Expands the plan for new counts into a fresh engine state and, only if
 * that succeeded, replaces the collective's: on error it stays as it was. */
static collrt_status_t recount(collrt_coll_t *c, bind_args_t *a, collrt_status_t st,
                               collrt_diag_t *diag) {
  /* A program that repeats its counts (a benchmark, a fixed halo) pays for
   * the expansion once: the same byte-level counts give the same steps, and
   * only the buffer addresses can have changed. */
  size_t n = 4 * (size_t)a->size;
  int64_t *last = c->expanded_counts;
  if (!st && last && !memcmp(last, a->arrays, n * sizeof *last) &&
      last[n] == a->in.send_bytes && last[n + 1] == a->in.recv_bytes)
    return collrt_coll_rebind(c, a->sendbuf, a->recvbuf, diag);
  collrt_coll_t t;
  memset(&t, 0, sizeof t);
  t.node = c->node;
  if (!st)
    st = collrt_expand(a->plan, &a->in, &t.steps, diag);
  if (!st)
    st = build_engine(&t, a, diag);
  if (st) {
    free_engine(&t);
    return st;
  }
  free_engine(c);
  c->steps = t.steps;
  for (int b = 0; b < COLLRT_BUF_COUNT_; ++b)
    if (b == COLLRT_BUF_SEND || b == COLLRT_BUF_RECV || b == COLLRT_BUF_SCRATCH)
      c->buf[b] = t.buf[b];
  c->scratch_shared = t.scratch_shared;
  c->dtype = t.dtype;
  c->fq = t.fq;
  c->fq_ready = t.fq_ready;
  c->reqs = t.reqs;
  c->req_step = t.req_step;
  c->indices = t.indices;
  c->statuses = t.statuses;
  c->copy_step = t.copy_step;
  c->copy_done = t.copy_done;
  c->t_issue = t.t_issue;
  c->t_done = t.t_done;
  if (!last)
    last = c->expanded_counts = malloc((n + 2) * sizeof *last);
  if (last) { /* without it, every recount expands */
    memcpy(last, a->arrays, n * sizeof *last);
    last[n] = a->in.send_bytes;
    last[n + 1] = a->in.recv_bytes;
  }
  return COLLRT_OK;
}

/* The byte-level arguments of a recount, in arrays the collective keeps
 * (allocated by its first recount: no allocation per call but the steps). */
static collrt_status_t recount_begin(collrt_coll_t *c, int op, const void *sendbuf,
                                     void *recvbuf, bind_args_t *a, collrt_diag_t *diag) {
  memset(a, 0, sizeof *a);
  if (!c) {
    collrt_diag_set(diag, "collrt_coll_recount: coll is NULL");
    return COLLRT_ERR_ARG;
  }
  if (!(c->flags & COLLRT_BIND_LOCAL_COUNTS) || c->op != op) {
    collrt_diag_set(diag, "collrt_coll_recount_%s on rank %d: the collective was bound %s",
                    collrt_op_name((unsigned)op), c->rank,
                    c->op != op ? "for another operation" : "without COLLRT_BIND_LOCAL_COUNTS");
    return COLLRT_ERR_ARG;
  }
  if (c->running || c->outcome) {
    collrt_diag_set(diag, "collrt_coll_recount on rank %d: the collective is running; wait for it first",
                    c->rank);
    return COLLRT_ERR_STATE;
  }
  if (!c->recount_arrays &&
      !(c->recount_arrays = malloc(4 * (size_t)c->size * sizeof *c->recount_arrays))) {
    collrt_diag_set(diag, "cannot allocate count arrays for %d ranks", c->size);
    return COLLRT_ERR_NOMEM;
  }
  a->plan = c->plan;
  a->comm = c->comm;
  a->rank = c->rank;
  a->size = c->size;
  a->flags = c->flags;
  a->op = op;
  a->sendbuf = sendbuf;
  a->recvbuf = recvbuf;
  a->arrays = c->recount_arrays;
  a->in.size = a->size;
  a->in.rank = a->rank;
  a->in.scounts = a->arrays;
  a->in.sdispls = a->arrays + a->size;
  a->in.rcounts = a->arrays + 2 * a->size;
  a->in.rdispls = a->arrays + 3 * a->size;
  return COLLRT_OK;
}

collrt_status_t collrt_coll_recount_alltoallv(collrt_coll_t *c, const void *sendbuf,
                                              const int sendcounts[], const int sdispls[],
                                              void *recvbuf, const int recvcounts[],
                                              const int rdispls[], MPI_Datatype type,
                                              collrt_diag_t *diag) {
  bind_args_t a;
  collrt_status_t st = recount_begin(c, COLLRT_OP_ALLTOALLV, sendbuf, recvbuf, &a, diag);
  if (st)
    return st;
  int P = a.size;
  int64_t tsize = 0;
  if (!sendcounts || !sdispls || !recvcounts || !rdispls || sendbuf == MPI_IN_PLACE) {
    collrt_diag_set(diag, "collrt_coll_recount_alltoallv on rank %d: a count or displacement array is NULL, or MPI_IN_PLACE (not supported)", a.rank);
    return COLLRT_ERR_ARG;
  }
  st = type_size(type, &tsize, diag);
  if (!st)
    st = to_bytes(&a, sendcounts, sdispls, tsize, a.arrays, a.arrays + P, &a.in.send_bytes, "send", diag);
  if (!st)
    st = to_bytes(&a, recvcounts, rdispls, tsize, a.arrays + 2 * P, a.arrays + 3 * P,
                  &a.in.recv_bytes, "recv", diag);
  return st ? st : recount(c, &a, st, diag);
}

collrt_status_t collrt_coll_recount_allgatherv(collrt_coll_t *c, const void *sendbuf,
                                               int sendcount, void *recvbuf,
                                               const int recvcounts[], const int displs[],
                                               MPI_Datatype type, collrt_diag_t *diag) {
  bind_args_t a;
  collrt_status_t st = recount_begin(c, COLLRT_OP_ALLGATHERV, sendbuf, recvbuf, &a, diag);
  if (st)
    return st;
  int P = a.size;
  int64_t tsize = 0;
  if (!recvcounts || !displs || sendbuf == MPI_IN_PLACE || sendcount < 0) {
    collrt_diag_set(diag, "collrt_coll_recount_allgatherv on rank %d: %s", a.rank,
                    sendcount < 0 ? "sendcount is negative"
                                  : "recvcounts or displs is NULL, or MPI_IN_PLACE (not supported)");
    return COLLRT_ERR_ARG;
  }
  st = type_size(type, &tsize, diag);
  if (!st)
    st = to_bytes(&a, recvcounts, displs, tsize, a.arrays + 2 * P, a.arrays + 3 * P,
                  &a.in.recv_bytes, "recv", diag);
  if (!st) {
    for (int j = 0; j < P; ++j)
      a.arrays[j] = sendcount * tsize;
    a.in.send_bytes = sendcount * tsize;
  }
  return st ? st : recount(c, &a, st, diag);
}

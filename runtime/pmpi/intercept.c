/* The intercepted MPI functions: each turns its arguments into a call that
 * serve.c runs with a plan, or hands them unchanged to its PMPI_ twin.
 * MPI_Alltoall, MPI_Alltoallv, MPI_Allgatherv, MPI_Allreduce and MPI_Bcast,
 * each blocking, nonblocking (MPI_I*) and persistent (MPI_*_init). */
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

pmpi_state_t g_pmpi;
_Thread_local int pmpi_busy;

static void warn(const char *msg) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if ((g_pmpi.verbose || g_pmpi.strict) && rank == 0)
    fprintf(stderr, "collc_pmpi: %s\n", msg);
}

static int env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : 0;
}

static void named_types_init(void);

static void init(void) {
  g_pmpi.keyval = MPI_KEYVAL_INVALID;
  /* COLLC_TIMEOUT is the runtime's COLLRT_TIMEOUT for preloaded programs */
  const char *timeout = getenv("COLLC_TIMEOUT");
  if (timeout && *timeout && !getenv("COLLRT_TIMEOUT"))
    setenv("COLLRT_TIMEOUT", timeout, 0);
  g_pmpi.verbose = env_flag("COLLC_VERBOSE");
  g_pmpi.strict = env_flag("COLLC_STRICT");
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  g_pmpi.multiple = level == MPI_THREAD_MULTIPLE;
  named_types_init();
  pmpi_plans_load(&g_pmpi.plans, getenv("COLLC_PLANS"), warn);
  g_pmpi.world_plans_agree = -1; /* until MPI_Init agrees it (below) */
  g_pmpi.ready = 1;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

void pmpi_init_once(void) {
  /* threads of an MPI_THREAD_MULTIPLE program may race to the first call */
  pthread_once(&init_once, init);
}

/* Under MPI_THREAD_MULTIPLE nothing is served: the plan cache, the runs in
 * flight and the runtime's per-communicator state are not shared safely
 * between threads yet. Said once per process (rank 0 of MPI_COMM_WORLD,
 * with COLLC_VERBOSE), counted per call. */
static atomic_int multiple_said;

static int threads_pass_through(const char *what) {
  if (!g_pmpi.multiple)
    return 0;
  __atomic_fetch_add(&g_pmpi.stats.fallback[PMPI_R_THREADS], 1, __ATOMIC_RELAXED);
  if (!atomic_exchange(&multiple_said, 1)) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (g_pmpi.strict || (g_pmpi.verbose && rank == 0))
      fprintf(stderr, "collc_pmpi: %s and every collective after it go to MPI: the program runs under MPI_THREAD_MULTIPLE, and plans are served only to programs that call MPI from one thread at a time\n",
              what);
  }
  return 1;
}

/* Named types and contiguous runs (or duplicates) of them: their bytes
 * are the data in order, so moving bytes is what MPI would do. A vector
 * whose stride equals its block would qualify too but is rare enough to
 * leave to MPI. */
static int plain_layout(MPI_Datatype t) {
  int ni = 0, na = 0, nd = 0, combiner = 0;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED)
    return 1;
  if ((combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) || ni > 1 ||
      na != 0 || nd != 1)
    return 0;
  int ints[1];
  MPI_Aint addrs[1];
  MPI_Datatype inner;
  PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, &inner);
  int ok = plain_layout(inner);
  PMPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner);
  if (combiner != MPI_COMBINER_NAMED)
    PMPI_Type_free(&inner);
  return ok;
}

/* Sets call->local_reason unless `t` is served: contiguous (size == extent,
 * lb 0) and plain. */
static int64_t check_type(pmpi_call_t *call, MPI_Datatype t, const char *side) {
  if (call->local_reason)
    return 0;
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  if (t == MPI_DATATYPE_NULL) {
    call->local_reason = PMPI_R_TYPE;
    snprintf(call->local_msg, sizeof call->local_msg, "the %s datatype is MPI_DATATYPE_NULL", side);
    return 0;
  }
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, &extent);
  if (size <= 0 || lb != 0 || extent != size || !plain_layout(t)) {
    int rank = 0;
    PMPI_Comm_rank(call->comm, &rank);
    call->local_reason = PMPI_R_TYPE;
    snprintf(call->local_msg, sizeof call->local_msg,
             "rank %d: the %s datatype is not contiguous (size %d, extent %ld, lb %ld%s)", rank,
             side, size, (long)extent, (long)lb,
             size > 0 && lb == 0 && extent == size ? ", built from non-contiguous parts" : "");
  }
  return size;
}

/* Both sides must move the same bytes per element for one type to describe
 * the bind. */
static void check_types(pmpi_call_t *call, MPI_Datatype stype, MPI_Datatype rtype) {
  int64_t ss = check_type(call, stype, "send");
  int64_t rs = check_type(call, rtype, "receive");
  if (!call->local_reason && ss != rs) {
    int rank = 0;
    PMPI_Comm_rank(call->comm, &rank);
    call->local_reason = PMPI_R_TYPE_MISMATCH;
    snprintf(call->local_msg, sizeof call->local_msg,
             "rank %d: the send and receive datatypes differ in size (%lld and %lld bytes)", rank,
             (long long)ss, (long long)rs);
  }
  call->key.tsize = ss;
  call->type = stype;
}

/* The predefined types an application passes most, with their sizes,
 * read once (init): a served call then asks MPI nothing about its types.
 * Handles of predefined types never change; those of derived ones may be
 * reused after MPI_Type_free, so those are always asked. */
enum { NAMED_TYPES = 16 };
static struct { MPI_Datatype type; int size; } named[NAMED_TYPES];
static int nnamed;

static void named_types_init(void) {
  MPI_Datatype list[NAMED_TYPES] = {MPI_BYTE,      MPI_CHAR,   MPI_UNSIGNED_CHAR, MPI_SHORT,
                                    MPI_INT,       MPI_UNSIGNED, MPI_LONG,        MPI_UNSIGNED_LONG,
                                    MPI_LONG_LONG, MPI_FLOAT,  MPI_DOUBLE,        MPI_INT32_T,
                                    MPI_INT64_T,   MPI_UINT64_T, MPI_C_DOUBLE_COMPLEX, MPI_C_FLOAT_COMPLEX};
  for (int k = 0; k < NAMED_TYPES; ++k) {
    named[k].type = list[k];
    PMPI_Type_size(list[k], &named[k].size);
  }
  nnamed = NAMED_TYPES;
}

/* The size of t if it is one of the predefined types above, else -1. */
static int named_size(MPI_Datatype t) {
  for (int k = 0; k < nnamed; ++k)
    if (named[k].type == t)
      return named[k].size;
  return -1;
}

/* Whether the bytes of `count` elements of t are its memory, in order. */
static int moves_as_bytes(MPI_Datatype t) {
  if (named_size(t) > 0)
    return 1;
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, &extent);
  return size > 0 && lb == 0 && extent == size && plain_layout(t);
}

static void begin(pmpi_call_t *call, const char *what, int op, MPI_Comm comm,
                  const void *sendbuf, void *recvbuf) {
  pmpi_init_once();
  memset(call, 0, offsetof(pmpi_call_t, local_msg));
  call->local_msg[0] = 0;
  call->what = what;
  call->comm = comm;
  call->key.op = op;
  call->sendbuf = sendbuf;
  call->recvbuf = recvbuf;
}

/* MPI_IN_PLACE (every rank passes it or none): the call is served as the
 * out-of-place call whose send side is the receive buffer's contents at the
 * start, `bytes` of them from `from` (run.c copies them to scratch before
 * the plan writes the receive buffer; a packed run packs them first). */
static void in_place(pmpi_call_t *call, const void *from, int64_t bytes) {
  call->sendbuf = from;
  call->in_place_bytes = bytes;
}

/* Runs the call with the re-entry guard up. */
static int serve(pmpi_call_t *call, int *fallback) {
  pmpi_busy++;
  int rc = pmpi_serve(call, fallback);
  pmpi_busy--;
  return rc;
}

static int comm_size(MPI_Comm comm);

/* The arguments of each collective as a call (blocking, persistent and
 * nonblocking alike). An alltoall is keyed by its block's bytes only,
 * which MPI makes equal on every rank whatever datatypes each passes; a
 * datatype whose bytes are not its memory in order is packed (run.c). A
 * program whose receive side does not match its send side is erroneous
 * (MPI reports truncation): it gets MPI's own collective and the error. */
static void prepare_alltoall(pmpi_call_t *call, const char *what, const void *sendbuf,
                             int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm) {
  begin(call, what, COLLRT_OP_ALLTOALL, comm, sendbuf, recvbuf);
  int in_place_call = sendbuf == MPI_IN_PLACE;
  if (in_place_call) /* the send side is the receive side */
    sendbuf = recvbuf, sendcount = recvcount, sendtype = recvtype;
  int ss = 0, rs = 0;
  if (sendtype != MPI_DATATYPE_NULL && sendbuf != MPI_IN_PLACE &&
      (ss = named_size(sendtype)) < 0)
    PMPI_Type_size(sendtype, &ss);
  if (recvtype != MPI_DATATYPE_NULL && (rs = named_size(recvtype)) < 0)
    PMPI_Type_size(recvtype, &rs);
  int64_t sbytes = (int64_t)sendcount * ss, rbytes = (int64_t)recvcount * rs;
  call->block = rbytes;
  call->count = (int)rbytes;
  call->key.tsize = 1;
  call->key.part[0] = &call->count;
  call->key.part_len[0] = 1;
  call->key.nparts = 1;
  if (recvtype == MPI_DATATYPE_NULL || sendtype == MPI_DATATYPE_NULL || sbytes != rbytes ||
      rbytes > INT32_MAX) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    call->local_reason = PMPI_R_TYPE_MISMATCH;
    snprintf(call->local_msg, sizeof call->local_msg,
             rbytes > INT32_MAX ? "rank %d: blocks of %lld bytes are past what a plan's int counts address"
                                : "rank %d: the send block has %lld bytes but the receive block %lld (the type signatures must match)",
             rank, (long long)(rbytes > INT32_MAX ? rbytes : sbytes), (long long)rbytes);
    return;
  }
  call->type = MPI_BYTE;
  if (!moves_as_bytes(sendtype) || !moves_as_bytes(recvtype)) {
    call->pack = 1;
    call->stype = sendtype;
    call->rtype = recvtype;
    call->scount = sendcount;
    call->rcount = recvcount;
  }
  if (in_place_call)
    in_place(call, recvbuf, rbytes * comm_size(comm));
}

static int comm_size(MPI_Comm comm) {
  int inter = 0, size = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    PMPI_Comm_remote_size(comm, &size);
  else
    PMPI_Comm_size(comm, &size);
  return size;
}

static void prepare_alltoallv(pmpi_call_t *call, const char *what, const void *sendbuf,
                              const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  begin(call, what, COLLRT_OP_ALLTOALLV, comm, sendbuf, recvbuf);
  int in_place_call = sendbuf == MPI_IN_PLACE;
  if (in_place_call) /* each block goes back where it came from */
    sendbuf = recvbuf, sendcounts = recvcounts, sdispls = rdispls, sendtype = recvtype;
  call->vstype = sendtype;
  call->vrtype = recvtype;
  check_types(call, sendtype, recvtype);
  int size = comm_size(comm);
  const int *arrays[4] = {sendcounts, sdispls, recvcounts, rdispls};
  for (int p = 0; p < 4; ++p) {
    call->key.part[p] = arrays[p];
    call->key.part_len[p] = (size_t)size;
  }
  call->key.nparts = 4;
  call->sc = sendcounts, call->sd = sdispls, call->rc = recvcounts, call->rd = rdispls;
  int64_t span = 0; /* elements of recvbuf the blocks reach */
  for (int j = 0; j < size; ++j) {
    if ((int64_t)sendcounts[j] * call->key.tsize > call->block)
      call->block = (int64_t)sendcounts[j] * call->key.tsize;
    if (recvcounts[j] > 0 && (int64_t)rdispls[j] + recvcounts[j] > span)
      span = (int64_t)rdispls[j] + recvcounts[j];
  }
  if (in_place_call) /* a type that is not its bytes is packed block by block */
    in_place(call, recvbuf, span * call->key.tsize);
}

static void prepare_allgatherv(pmpi_call_t *call, const char *what, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  begin(call, what, COLLRT_OP_ALLGATHERV, comm, sendbuf, recvbuf);
  int in_place_call = sendbuf == MPI_IN_PLACE;
  const char *own = NULL; /* in place: this rank's contribution in recvbuf */
  if (in_place_call) { /* the send type and count are ignored */
    int rank = 0;
    MPI_Aint lb = 0, extent = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Type_get_extent(recvtype, &lb, &extent);
    own = (const char *)recvbuf + (MPI_Aint)displs[rank] * extent;
    sendbuf = own, sendcount = recvcounts[rank], sendtype = recvtype;
  }
  call->vstype = sendtype;
  call->vrtype = recvtype;
  check_types(call, sendtype, recvtype);
  int size = comm_size(comm);
  call->sendcount = sendcount;
  call->key.part[0] = &call->sendcount;
  call->key.part_len[0] = 1;
  call->key.part[1] = recvcounts;
  call->key.part[2] = displs;
  call->key.part_len[1] = call->key.part_len[2] = (size_t)size;
  call->key.nparts = 3;
  call->rc = recvcounts, call->rd = displs;
  for (int j = 0; j < size; ++j)
    if ((int64_t)recvcounts[j] * call->key.tsize > call->block)
      call->block = (int64_t)recvcounts[j] * call->key.tsize;
  if (in_place_call)
    in_place(call, own, (int64_t)sendcount * call->key.tsize);
}

/* An MPI type's name for a message ("MPI_INT"), or what it is if it has
 * none (a derived type). */
static void type_name(MPI_Datatype t, char *out, int len) {
  int n = 0;
  char name[MPI_MAX_OBJECT_NAME] = "";
  if (t != MPI_DATATYPE_NULL)
    PMPI_Type_get_name(t, name, &n);
  snprintf(out, (size_t)len, "%s", n ? name : "a derived datatype");
}

/* MPI_Allreduce: MPI requires the same count, datatype and operation on
 * every rank, so each reason below is the same on every rank. A plan's
 * REDUCE steps name their operation and element type, and only MPI's
 * predefined handles map to them (collrt_reduce_op_of_mpi, expanded from
 * the table in plan_format.h): a user-defined operation (MPI_Op_create,
 * commutative or not: its order of combination is the caller's business,
 * and its function is not a plan's) or a datatype with no kernel goes to
 * MPI. The type binds as itself, so the plan's kernel and the bind's type
 * check see the call's elements. */
static void prepare_allreduce(pmpi_call_t *call, const char *what, const void *sendbuf,
                              void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm) {
  begin(call, what, COLLRT_OP_ALLREDUCE, comm, sendbuf, recvbuf);
  unsigned rop = collrt_reduce_op_of_mpi(op), rtype = collrt_reduce_type_of_mpi(type);
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  if (type != MPI_DATATYPE_NULL && (size = named_size(type)) < 0) {
    PMPI_Type_size(type, &size);
  }
  if (type != MPI_DATATYPE_NULL)
    PMPI_Type_get_extent(type, &lb, &extent);
  call->reduce = PMPI_REDUCE_KIND(rop, rtype);
  call->count = count;
  call->type = type;
  call->key.tsize = size;
  call->key.part[0] = &call->count;
  call->key.part[1] = (const int *)&call->reduce;
  call->key.part_len[0] = call->key.part_len[1] = 1;
  call->key.nparts = 2;
  call->block = (int64_t)count * size;
  char name[64], why[128];
  if (!rop) {
    int commutative = 1;
    if (op != MPI_OP_NULL)
      PMPI_Op_commutative(op, &commutative);
    call->local_reason = PMPI_R_OP;
    snprintf(call->local_msg, sizeof call->local_msg,
             "the operation is not one of MPI's predefined reductions that plans implement (a user-defined operation, %s)",
             commutative ? "commutative" : "non-commutative");
  } else if (!rtype) {
    type_name(type, name, sizeof name);
    call->local_reason = PMPI_R_REDUCE_TYPE;
    snprintf(call->local_msg, sizeof call->local_msg,
             "the datatype, %s, is none of the element types plans reduce (predefined C integer, floating and pair types)",
             name);
  } else if (lb != 0 || extent != size) {
    type_name(type, name, sizeof name);
    call->local_reason = PMPI_R_REDUCE_TYPE;
    snprintf(call->local_msg, sizeof call->local_msg,
             "the datatype, %s, has gaps (size %d, extent %ld), and a plan moves whole elements",
             name, size, (long)extent);
  } else if (!collrt_reduce_valid(rop, rtype, why, sizeof why)) {
    call->local_reason = PMPI_R_OP; /* erroneous: MPI says so */
    snprintf(call->local_msg, sizeof call->local_msg, "%s", why);
  } else if (count < 0 || call->block > INT32_MAX) {
    call->local_reason = PMPI_R_TYPE_MISMATCH;
    snprintf(call->local_msg, sizeof call->local_msg,
             count < 0 ? "count %lld is negative" : "%lld bytes are past what a plan's int counts address",
             (long long)(count < 0 ? count : call->block));
  }
  if (sendbuf == MPI_IN_PLACE) /* the send side is the receive buffer */
    in_place(call, recvbuf, call->block);
}

/* MPI_Bcast: the type signature, root and communicator are the same on
 * every rank (MPI's rule), the datatypes need not be: the plan moves the
 * message's bytes, packed where a type is not its memory in order, so no
 * rank decides differently from its datatype. Plans broadcast from rank 0;
 * another root runs the plan relabeled (collrt_bind_bcast), and is part of
 * the key: a bound collective serves one root. */
static void prepare_bcast(pmpi_call_t *call, const char *what, void *buffer, int count,
                          MPI_Datatype type, int root, MPI_Comm comm) {
  begin(call, what, COLLRT_OP_BCAST, comm, buffer, buffer);
  call->root = root;
  int size = 0;
  if (type != MPI_DATATYPE_NULL && (size = named_size(type)) < 0)
    PMPI_Type_size(type, &size);
  int64_t bytes = (int64_t)count * size;
  call->block = bytes;
  call->count = (int)bytes;
  call->key.tsize = 1;
  call->key.part[0] = &call->count;
  call->key.part_len[0] = 1;
  call->key.part[1] = &call->root; /* a bind runs the plan relabeled for its root */
  call->key.part_len[1] = 1;
  call->key.nparts = 2;
  call->type = MPI_BYTE;
  if (type == MPI_DATATYPE_NULL || count < 0 || bytes > INT32_MAX) {
    call->local_reason = PMPI_R_TYPE_MISMATCH;
    snprintf(call->local_msg, sizeof call->local_msg,
             type == MPI_DATATYPE_NULL ? "the datatype is MPI_DATATYPE_NULL"
             : count < 0              ? "the count is negative"
                                      : "the message is past what a plan's int counts address");
    return;
  }
  if (!moves_as_bytes(type)) {
    call->pack = 1;
    call->stype = call->rtype = type;
    call->scount = call->rcount = count;
  }
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Alltoall"))
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  pmpi_call_t call;
  prepare_alltoall(&call, "MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm);
  int fallback = 1, rc = serve(&call, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
             : rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Alltoallv"))
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  pmpi_call_t call;
  prepare_alltoallv(&call, "MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                    recvcounts, rdispls, recvtype, comm);
  int fallback = 1, rc = serve(&call, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm)
             : rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Allgatherv"))
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  pmpi_call_t call;
  prepare_allgatherv(&call, "MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                     displs, recvtype, comm);
  int fallback = 1, rc = serve(&call, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, comm)
             : rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Allreduce"))
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  pmpi_call_t call;
  prepare_allreduce(&call, "MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm);
  int fallback = 1, rc = serve(&call, &fallback);
  return fallback && rc == MPI_SUCCESS ? PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)
                                       : rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Bcast"))
    return PMPI_Bcast(buffer, count, datatype, root, comm);
  pmpi_call_t call;
  prepare_bcast(&call, "MPI_Bcast", buffer, count, datatype, root, comm);
  int fallback = 1, rc = serve(&call, &fallback);
  return fallback && rc == MPI_SUCCESS ? PMPI_Bcast(buffer, count, datatype, root, comm) : rc;
}

/* MPI-4 persistent collectives. The native persistent request is always
 * created: it is the handle the application holds (and frees), and the
 * collective itself when the call falls back. When a plan serves the call,
 * the bind happens here, once, and MPI_Start runs the plan instead
 * (persist.c). */
static int persistent(pmpi_call_t *call, int native_rc, MPI_Request *request) {
  if (native_rc != MPI_SUCCESS)
    return native_rc;
  call->persistent = 1;
  int fallback = 1, rc = serve(call, &fallback);
  if (rc != MPI_SUCCESS || fallback)
    return rc;
  return pmpi_persistent_add(*request, call->bound, call);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request) {
  int rc = PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, request);
  pmpi_init_once();
  if (pmpi_busy || rc != MPI_SUCCESS || threads_pass_through(__func__))
    return rc;
  pmpi_call_t call;
  prepare_alltoall(&call, "MPI_Alltoall_init", sendbuf, sendcount, sendtype, recvbuf,
                   recvcount, recvtype, comm);
  return persistent(&call, rc, request);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
  int rc = PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm, info, request);
  pmpi_init_once();
  if (pmpi_busy || rc != MPI_SUCCESS || threads_pass_through(__func__))
    return rc;
  pmpi_call_t call;
  prepare_alltoallv(&call, "MPI_Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype,
                    recvbuf, recvcounts, rdispls, recvtype, comm);
  return persistent(&call, rc, request);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
  int rc = PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype, comm, info, request);
  pmpi_init_once();
  if (pmpi_busy || rc != MPI_SUCCESS || threads_pass_through(__func__))
    return rc;
  pmpi_call_t call;
  prepare_allgatherv(&call, "MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                     recvcounts, displs, recvtype, comm);
  return persistent(&call, rc, request);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  int rc = PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request);
  pmpi_init_once();
  if (pmpi_busy || rc != MPI_SUCCESS || threads_pass_through(__func__))
    return rc;
  pmpi_call_t call;
  prepare_allreduce(&call, "MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm);
  return persistent(&call, rc, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request) {
  int rc = PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request);
  pmpi_init_once();
  if (pmpi_busy || rc != MPI_SUCCESS || threads_pass_through(__func__))
    return rc;
  pmpi_call_t call;
  prepare_bcast(&call, "MPI_Bcast_init", buffer, count, datatype, root, comm);
  return persistent(&call, rc, request);
}

/* Nonblocking collectives: served like the blocking call, the run started
 * and handed back as a request that the wait and test family completes
 * (requests.c); a fallback is MPI's own nonblocking collective. */
static int nonblocking(pmpi_call_t *call, MPI_Request *request, int *fallback) {
  call->nonblocking = 1;
  call->request = request;
  return serve(call, fallback);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Ialltoall"))
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  pmpi_call_t call;
  prepare_alltoall(&call, "MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm);
  int fallback = 1, rc = nonblocking(&call, request, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              request)
             : rc;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Ialltoallv"))
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, request);
  pmpi_call_t call;
  prepare_alltoallv(&call, "MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                    recvcounts, rdispls, recvtype, comm);
  int fallback = 1, rc = nonblocking(&call, request, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm, request)
             : rc;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Iallgatherv"))
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm, request);
  pmpi_call_t call;
  prepare_allgatherv(&call, "MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf,
                     recvcounts, displs, recvtype, comm);
  int fallback = 1, rc = nonblocking(&call, request, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype, comm, request)
             : rc;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Iallreduce"))
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  pmpi_call_t call;
  prepare_allreduce(&call, "MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm);
  int fallback = 1, rc = nonblocking(&call, request, &fallback);
  return fallback && rc == MPI_SUCCESS
             ? PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request)
             : rc;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request) {
  pmpi_init_once();
  if (pmpi_busy || threads_pass_through("MPI_Ibcast"))
    return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  pmpi_call_t call;
  prepare_bcast(&call, "MPI_Ibcast", buffer, count, datatype, root, comm);
  int fallback = 1, rc = nonblocking(&call, request, &fallback);
  return fallback && rc == MPI_SUCCESS ? PMPI_Ibcast(buffer, count, datatype, root, comm, request)
                                       : rc;
}

/* After MPI's own initialization, every rank of MPI_COMM_WORLD agrees, in
 * one allreduce, whether all loaded the same plans: a communicator of
 * these processes then needs no agreement of its own (cache.c). */
static void agree_on_plans_in_world(void) {
  pmpi_init_once();
  int64_t fp = g_pmpi.plans.fingerprint, mine[2] = {fp, -fp}, all[2] = {0, 0};
  if (PMPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS)
    g_pmpi.world_plans_agree = all[0] == -all[1];
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    agree_on_plans_in_world();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    agree_on_plans_in_world();
  return rc;
}

int MPI_Finalize(void) {
  if (g_pmpi.ready) {
    pmpi_cache_free_all();
    if (g_pmpi.keyval != MPI_KEYVAL_INVALID)
      PMPI_Comm_free_keyval(&g_pmpi.keyval);
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* COLLC_VERBOSE=1: rank 0's line; 2: every rank's */
    if (g_pmpi.verbose >= 2 || (g_pmpi.verbose && rank == 0))
      pmpi_print_summary(rank);
    pmpi_plans_free(&g_pmpi.plans);
    g_pmpi.ready = 0;
  }
  return PMPI_Finalize();
}

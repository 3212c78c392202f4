/* The intercepted MPI functions: each turns its arguments into a call that
 * serve.c runs with a plan, or hands them unchanged to its PMPI_ twin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

pmpi_state_t g_pmpi;

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

void pmpi_init_once(void) {
  if (g_pmpi.ready)
    return;
  g_pmpi.ready = 1;
  g_pmpi.keyval = MPI_KEYVAL_INVALID;
  g_pmpi.verbose = env_flag("COLLC_VERBOSE");
  g_pmpi.strict = env_flag("COLLC_STRICT");
  pmpi_plans_load(&g_pmpi.plans, getenv("COLLC_PLANS"), warn);
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

static void check_in_place(pmpi_call_t *call, const void *sendbuf) {
  if (sendbuf != MPI_IN_PLACE || call->local_reason)
    return;
  int rank = 0;
  PMPI_Comm_rank(call->comm, &rank);
  call->local_reason = PMPI_R_IN_PLACE;
  snprintf(call->local_msg, sizeof call->local_msg, "rank %d passes MPI_IN_PLACE", rank);
}

static void begin(pmpi_call_t *call, const char *what, int op, MPI_Comm comm,
                  const void *sendbuf, void *recvbuf) {
  pmpi_init_once();
  memset(call, 0, sizeof *call);
  call->what = what;
  call->comm = comm;
  call->key.op = op;
  call->sendbuf = sendbuf;
  call->recvbuf = recvbuf;
  check_in_place(call, sendbuf);
}

/* Runs the call with the re-entry guard up. */
static int serve(pmpi_call_t *call, int *fallback) {
  g_pmpi.busy = 1;
  int rc = pmpi_serve(call, fallback);
  g_pmpi.busy = 0;
  return rc;
}

/* The arguments of each collective as a call (blocking and persistent
 * alike). */
static void prepare_alltoall(pmpi_call_t *call, const char *what, const void *sendbuf,
                             int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm) {
  begin(call, what, COLLRT_OP_ALLTOALL, comm, sendbuf, recvbuf);
  check_types(call, sendtype, recvtype);
  if (!call->local_reason && sendcount != recvcount) {
    call->local_reason = PMPI_R_TYPE_MISMATCH;
    snprintf(call->local_msg, sizeof call->local_msg, "sendcount %d differs from recvcount %d",
             sendcount, recvcount);
  }
  call->count = sendcount;
  call->key.part[0] = &call->count;
  call->key.part_len[0] = 1;
  call->key.nparts = 1;
  call->block = (int64_t)sendcount * call->key.tsize;
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
  check_types(call, sendtype, recvtype);
  int size = comm_size(comm);
  const int *arrays[4] = {sendcounts, sdispls, recvcounts, rdispls};
  for (int p = 0; p < 4; ++p) {
    call->key.part[p] = arrays[p];
    call->key.part_len[p] = (size_t)size;
  }
  call->key.nparts = sendbuf == MPI_IN_PLACE ? 0 : 4;
  call->sc = sendcounts, call->sd = sdispls, call->rc = recvcounts, call->rd = rdispls;
  if (sendbuf != MPI_IN_PLACE)
    for (int j = 0; j < size; ++j)
      if ((int64_t)sendcounts[j] * call->key.tsize > call->block)
        call->block = (int64_t)sendcounts[j] * call->key.tsize;
}

static void prepare_allgatherv(pmpi_call_t *call, const char *what, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  begin(call, what, COLLRT_OP_ALLGATHERV, comm, sendbuf, recvbuf);
  /* with MPI_IN_PLACE the send type is ignored (and may be anything) */
  check_types(call, sendbuf == MPI_IN_PLACE ? recvtype : sendtype, recvtype);
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
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (g_pmpi.busy)
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
  if (g_pmpi.busy)
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
  if (g_pmpi.busy)
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
  return pmpi_persistent_add(*request, call->bound, call->comm, call->what);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request) {
  int rc = PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, request);
  if (g_pmpi.busy || rc != MPI_SUCCESS)
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
  if (g_pmpi.busy || rc != MPI_SUCCESS)
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
  if (g_pmpi.busy || rc != MPI_SUCCESS)
    return rc;
  pmpi_call_t call;
  prepare_allgatherv(&call, "MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                     recvcounts, displs, recvtype, comm);
  return persistent(&call, rc, request);
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

/* Serving one intercepted call: every rank agrees, in one small allreduce,
 * whether it can be served and whether every rank holds the same cached
 * bind; then either a local rebind and a run, a collective bind and a run,
 * or MPI's own collective on every rank. */
#include <stdio.h>
#include <string.h>

#include "pmpi.h"

static int run(pmpi_call_t *call, collrt_coll_t *coll) {
  collrt_diag_t diag = {{0}};
  collrt_status_t st = collrt_start(coll, &diag);
  if (!st)
    st = collrt_wait(coll, &diag);
  if (!st)
    return MPI_SUCCESS;
  /* Part of the data may have moved: too late to fall back. */
  fprintf(stderr, "collc_pmpi: %s: the plan failed while running: %s\n", call->what,
          diag.message);
  PMPI_Comm_call_errhandler(call->comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

static collrt_status_t bind(pmpi_call_t *call, const collrt_plan_t *plan, collrt_coll_t **out,
                            collrt_diag_t *diag) {
  switch (call->key.op) {
  case COLLRT_OP_ALLTOALL:
    return collrt_bind_alltoall(plan, call->comm, call->sendbuf, call->recvbuf, call->count,
                                call->type, 0, out, diag);
  case COLLRT_OP_ALLTOALLV:
    return collrt_bind_alltoallv(plan, call->comm, call->sendbuf, call->sc, call->sd,
                                 call->recvbuf, call->rc, call->rd, call->type, 0, out, diag);
  default:
    return collrt_bind_allgatherv(plan, call->comm, call->sendbuf, call->sendcount,
                                  call->recvbuf, call->rc, call->rd, call->type, 0, out, diag);
  }
}

/* Counts the fallback and explains it; the reporter is the rank that knows
 * why (its own argument), or rank 0 for what every rank sees alike. */
static void fall_back(pmpi_call_t *call, pmpi_cache_t *cache, pmpi_reason_t reason,
                      int reporter, const char *msg) {
  g_pmpi.stats.fallback[reason]++;
  int rank = 0;
  PMPI_Comm_rank(call->comm, &rank);
  if (g_pmpi.strict)
    pmpi_strict_fail(call->comm, reporter, call->what, msg);
  if (rank == reporter)
    pmpi_say_once(cache, call->what, msg);
}

int pmpi_serve(pmpi_call_t *call, int *out_fallback) {
  *out_fallback = 1;
  pmpi_cache_t *cache = pmpi_cache_get(call->comm);
  int inter = 0;
  PMPI_Comm_test_inter(call->comm, &inter);
  if (inter) {
    /* No agreement needed: every rank of both groups sees the same. Rank 0
     * of each group explains. */
    fall_back(call, cache, PMPI_R_INTERCOMM, 0,
              "an intercommunicator (plans run on intracommunicators)");
    return MPI_SUCCESS;
  }
  if (!cache && !call->local_reason) {
    call->local_reason = PMPI_R_BIND;
    snprintf(call->local_msg, sizeof call->local_msg, "out of memory for the plan cache");
  }
  int rank = 0, size = 0;
  PMPI_Comm_rank(call->comm, &rank);
  PMPI_Comm_size(call->comm, &size);
  /* a persistent request owns its bind: it never takes a cached one */
  pmpi_entry_t *hit =
      call->local_reason || call->persistent ? NULL : pmpi_cache_find(cache, &call->key);
  int64_t gen = hit ? hit->gen : -1, fp = g_pmpi.plans.fingerprint;
  /* reason and its rank; bind number (max, -min); largest block; plan set
   * fingerprint (max, -min) */
  int64_t mine[6] = {((int64_t)call->local_reason << 32) | rank, gen, -gen, call->block, fp, -fp};
  int64_t all[6];
  int rc = PMPI_Allreduce(mine, all, 6, MPI_INT64_T, MPI_MAX, call->comm);
  if (rc != MPI_SUCCESS)
    return rc;
  pmpi_reason_t reason = (pmpi_reason_t)(all[0] >> 32);
  if (reason) {
    fall_back(call, cache, reason, (int)(all[0] & 0xffffffff), call->local_msg);
    return MPI_SUCCESS;
  }
  char msg[sizeof(collrt_diag_t) + 512];
  if (all[4] != -all[5]) {
    fall_back(call, cache, PMPI_R_PLANS_DIFFER, 0,
              "the ranks loaded different plans from COLLC_PLANS (every rank must read the same files)");
    return MPI_SUCCESS;
  }
  if (!g_pmpi.plans.count) {
    snprintf(msg, sizeof msg, g_pmpi.plans.source ? "no plan loads from COLLC_PLANS=%s"
                                                  : "COLLC_PLANS is not set%s",
             g_pmpi.plans.source ? g_pmpi.plans.source : "");
    fall_back(call, cache, PMPI_R_NO_PLANS, 0, msg);
    return MPI_SUCCESS;
  }
  collrt_diag_t diag = {{0}};
  if (all[1] >= 0 && all[1] == -all[2]) {
    /* every rank holds an entry of the same bind: local rebind only */
    if (collrt_coll_rebind(hit->coll, call->sendbuf, call->recvbuf, &diag)) {
      fprintf(stderr, "collc_pmpi: %s: %s\n", call->what, diag.message);
      PMPI_Comm_call_errhandler(call->comm, MPI_ERR_OTHER);
      return MPI_ERR_OTHER;
    }
    g_pmpi.stats.hits++;
    *out_fallback = 0;
    return run(call, hit->coll);
  }
  int idx = pmpi_plans_match(&g_pmpi.plans, call->key.op, size, all[3], msg, sizeof msg);
  if (idx < 0) {
    fall_back(call, cache, PMPI_R_NO_MATCH, 0, msg);
    return MPI_SUCCESS;
  }
  const pmpi_plan_t *p = &g_pmpi.plans.plans[idx];
  collrt_coll_t *coll = NULL;
  collrt_status_t st = bind(call, p->plan, &coll, &diag);
  /* every rank counts every bind, failed or not: binds agree on the outcome */
  int64_t g = cache->next_gen++;
  if (st) {
    snprintf(msg, sizeof msg, "plan %s did not bind: %s", p->path, diag.message);
    fall_back(call, cache, PMPI_R_BIND, 0, msg);
    return MPI_SUCCESS;
  }
  if (rank == 0) {
    snprintf(msg, sizeof msg, "served by plan %s", p->path);
    pmpi_say_once(cache, call->what, msg);
  }
  *out_fallback = 0;
  if (call->persistent) {
    g_pmpi.stats.persistent++;
    call->bound = coll;
    return MPI_SUCCESS;
  }
  g_pmpi.stats.binds++;
  rc = run(call, coll);
  /* a cache that cannot hold the entry frees it: the next call binds again */
  pmpi_cache_put(cache, &call->key, coll, g);
  return rc;
}

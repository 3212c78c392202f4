/* Serving one intercepted call.
 *
 * MPI_Alltoall (and its _init and I forms): the standard makes the block's
 * type signature (so its bytes), MPI_IN_PLACE and the communicator the same
 * on every rank, and the decision to serve, the plan and the cache entry
 * are a function of exactly those (the plan set was agreed when the
 * communicator's cache was made). So every rank decides alike without a
 * message: a hit costs no collective, and a miss binds on every rank.
 * Datatypes do not enter the decision: a non-contiguous one is packed into
 * the bytes the plan moves (run.c).
 *
 * MPI_Allreduce and MPI_Bcast are decided alike in the same way: MPI makes
 * their count, datatype (allreduce) or type signature (bcast), operation,
 * root, MPI_IN_PLACE and communicator the same on every rank, and the
 * reasons they fall back for (a user-defined operation, a type with no
 * REDUCE kernel, a root other than the plans') are functions of those.
 *
 * MPI_Alltoallv and MPI_Allgatherv: counts differ between ranks, so the
 * ranks agree, in one small allreduce, whether the call can be served and
 * whether every rank holds the same cached bind; then either a local
 * rebind and a run, a collective bind and a run, or MPI's own collective on
 * every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

static collrt_status_t bind(pmpi_call_t *call, const collrt_plan_t *plan, unsigned flags,
                            collrt_coll_t **out, collrt_diag_t *diag) {
  switch (call->key.op) {
  case COLLRT_OP_ALLTOALL:
    /* in bytes: the block is what every rank agrees on, whatever its types */
    return collrt_bind_alltoall(plan, call->comm, call->sendbuf, call->recvbuf,
                                (int)call->block, MPI_BYTE, flags, out, diag);
  case COLLRT_OP_ALLREDUCE:
    /* the predefined type of the plan's REDUCE steps (intercept.c) */
    return collrt_bind_allreduce(plan, call->comm, call->sendbuf, call->recvbuf, call->count,
                                 call->type, flags, out, diag);
  case COLLRT_OP_BCAST:
    /* in bytes, as alltoall: one buffer, the root's data and the result */
    return collrt_bind_bcast(plan, call->comm, call->recvbuf, (int)call->block, MPI_BYTE,
                             call->root, flags, out, diag);
  case COLLRT_OP_ALLTOALLV:
    return collrt_bind_alltoallv(plan, call->comm, call->sendbuf, call->sc, call->sd,
                                 call->recvbuf, call->rc, call->rd, call->type, flags, out, diag);
  default:
    return collrt_bind_allgatherv(plan, call->comm, call->sendbuf, call->sendcount,
                                  call->recvbuf, call->rc, call->rd, call->type, flags, out, diag);
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
    pmpi_say_once(call->comm, cache, call->what, msg);
}

/* Runs the call on entry e (or, persistent, hands the bind back; or,
 * nonblocking, starts it and hands back a request). */
static int run_on(pmpi_call_t *call, pmpi_entry_t *e, int *out_fallback) {
  *out_fallback = 0;
  if (call->nonblocking) {
    g_pmpi.stats.nonblocking++;
    return pmpi_nonblocking_add(call, e);
  }
  pmpi_run_t r;
  int rc = pmpi_run_init(&r, call, e, NULL);
  if (rc == MPI_SUCCESS)
    rc = pmpi_run_begin(&r);
  if (rc == MPI_SUCCESS)
    rc = pmpi_run_wait(&r);
  pmpi_run_free(&r);
  return rc;
}

/* A collective bind of plan idx; on success the bind is cached in `klass`
 * (or handed back, persistent) and the call runs. */
static int bind_and_run(pmpi_call_t *call, pmpi_cache_t *cache, int klass, int idx,
                        int *out_fallback) {
  char msg[sizeof(collrt_diag_t) + 512];
  const pmpi_plan_t *p = &g_pmpi.plans.plans[idx];
  collrt_coll_t *coll = NULL;
  collrt_diag_t diag = {{0}};
  unsigned flags = klass == PMPI_CLASS_FLEX ? COLLRT_BIND_LOCAL_COUNTS : 0;
  collrt_status_t st = bind(call, p->plan, flags, &coll, &diag);
  /* every rank counts every bind, failed or not: binds agree on the outcome */
  int64_t g = cache->next_gen++;
  if (st) {
    snprintf(msg, sizeof msg, "plan %s did not bind: %s", p->path, diag.message);
    fall_back(call, cache, PMPI_R_BIND, 0, msg);
    return MPI_SUCCESS;
  }
  if (cache->rank == 0) {
    char why[PMPI_PATH_SAY + 160];
    if (call->deferred)
      snprintf(why, sizeof why, "a count pattern met for the first time goes to the most specific plan that recounts; %s binds for one that comes back",
               g_pmpi.plans.plans[call->deferred - 1].path);
    pmpi_plan_served_by(p, call->deferred ? why : NULL, msg, sizeof msg);
    pmpi_say_once(call->comm, cache, call->what, msg);
  }
  *out_fallback = 0;
  if (call->persistent) {
    g_pmpi.stats.persistent++;
    call->bound = coll;
    return MPI_SUCCESS;
  }
  g_pmpi.stats.binds++;
  pmpi_entry_t *e = klass == PMPI_CLASS_FLEX ? pmpi_cache_flex(cache, call->key.op, idx, coll, g)
                                             : pmpi_cache_put(cache, klass, &call->key, coll, g);
  if (!e) {
    fprintf(stderr, "collc_pmpi: %s: out of memory for the plan cache\n", call->what);
    PMPI_Comm_call_errhandler(call->comm, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
  }
  return run_on(call, e, out_fallback);
}

/* The alltoall family: decided alike on every rank, no message. */
static int serve_uniform(pmpi_call_t *call, pmpi_cache_t *cache, int *out_fallback) {
  char msg[512];
  if (!cache->plans_agree) {
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
  /* alltoall: the type signatures do not match (erroneous); allreduce,
   * bcast: an operation, type or root the plans do not serve, the same on
   * every rank */
  if (call->local_reason) {
    fall_back(call, cache, call->local_reason, 0, call->local_msg);
    return MPI_SUCCESS;
  }
  pmpi_entry_t *hit = call->persistent ? NULL
                                       : pmpi_cache_find(cache, PMPI_CLASS_UNIFORM, &call->key);
  if (hit) {
    g_pmpi.stats.hits++;
    return run_on(call, hit, out_fallback);
  }
  int idx = pmpi_plans_match(&g_pmpi.plans, call->key.op, call->reduce, cache->size, cache->machine,
                             call->block, msg, sizeof msg);
  if (idx < 0) {
    fall_back(call, cache, PMPI_R_NO_MATCH, 0, msg);
    return MPI_SUCCESS;
  }
  if (call->key.op == COLLRT_OP_BCAST &&
      !collrt_bcast_takes_root(g_pmpi.plans.plans[idx].plan, call->root)) {
    snprintf(msg, sizeof msg, "root %d: plan %s shares a node arena among its nodes' ranks, so it broadcasts from rank 0 only",
             call->root, g_pmpi.plans.plans[idx].path);
    fall_back(call, cache, PMPI_R_ROOT, 0, msg);
    return MPI_SUCCESS;
  }
  return bind_and_run(call, cache, PMPI_CLASS_UNIFORM, idx, out_fallback);
}

/* Whether this rank has met the call's count pattern on this communicator
 * before (among the last PMPI_SEEN patterns); it is remembered from now. */
static int seen_before(pmpi_cache_t *cache, const pmpi_call_t *call) {
  uint64_t h = 14695981039346656037ull;
  const pmpi_key_t *k = &call->key;
  h = (h ^ (uint64_t)k->op) * 1099511628211ull;
  h = (h ^ (uint64_t)k->tsize) * 1099511628211ull;
  for (int p = 0; p < k->nparts; ++p)
    for (size_t i = 0; i < k->part_len[p]; ++i)
      h = (h ^ (uint32_t)k->part[p][i]) * 1099511628211ull;
  for (int i = 0; i < PMPI_SEEN; ++i)
    if (cache->seen[i] == h)
      return 1;
  cache->seen[cache->next_seen++ % PMPI_SEEN] = h;
  return 0;
}

/* A v-collective whose plan is the same whatever the block size, and
 * recounts: decided alike on every rank without a message (the choice
 * depends on the op, the communicator and the plan set only; MPI_IN_PLACE
 * is passed by every rank or none; datatypes that are not bytes in memory
 * order are packed block by block). The recounting collective is bound
 * once, collectively, with no counts, and every call recounts it. */
static int serve_v_uniform(pmpi_call_t *call, pmpi_cache_t *cache, int idx, int *out_fallback) {
  int op = call->key.op;
  if (call->local_reason) { /* this rank's datatypes: packed */
    call->local_reason = PMPI_SERVED;
    call->vpack = 1;
  }
  if (!cache->flex[op] || cache->flex_plan[op] != idx) {
    char msg[sizeof(collrt_diag_t) + 512];
    const pmpi_plan_t *p = &g_pmpi.plans.plans[idx];
    int *zeros = calloc((size_t)cache->size + 1, sizeof *zeros);
    collrt_coll_t *coll = NULL;
    collrt_diag_t diag;
    diag.message[0] = 0;
    collrt_status_t st = COLLRT_ERR_NOMEM;
    /* every rank binds, with no counts: the runs recount */
    if (op == COLLRT_OP_ALLTOALLV)
      st = collrt_bind_alltoallv(p->plan, call->comm, zeros, zeros, zeros, zeros, zeros, zeros,
                                 MPI_BYTE, COLLRT_BIND_LOCAL_COUNTS, &coll, &diag);
    else
      st = collrt_bind_allgatherv(p->plan, call->comm, zeros, 0, zeros, zeros, zeros, MPI_BYTE,
                                  COLLRT_BIND_LOCAL_COUNTS, &coll, &diag);
    free(zeros);
    int64_t g = cache->next_gen++;
    if (st) {
      snprintf(msg, sizeof msg, "plan %s did not bind: %s", p->path, diag.message);
      fall_back(call, cache, PMPI_R_BIND, 0, msg);
      return MPI_SUCCESS;
    }
    if (cache->rank == 0) {
      pmpi_plan_served_by(p, NULL, msg, sizeof msg);
      pmpi_say_once(call->comm, cache, call->what, msg);
    }
    g_pmpi.stats.binds++;
    if (!pmpi_cache_flex(cache, op, idx, coll, g)) {
      fprintf(stderr, "collc_pmpi: %s: out of memory for the plan cache\n", call->what);
      PMPI_Comm_call_errhandler(call->comm, MPI_ERR_NO_MEM);
      return MPI_ERR_NO_MEM;
    }
  } else {
    g_pmpi.stats.hits++;
  }
  call->recount = 1;
  return run_on(call, cache->flex[op], out_fallback);
}

/* The v-collectives: agreed in one allreduce. A plan that recounts serves
 * every count pattern from one collective per communicator and op (a
 * sample sort's counts change every call); others are cached per pattern. */
static int serve_agreed(pmpi_call_t *call, pmpi_cache_t *cache, int *out_fallback) {
  int rank = cache->rank, op = call->key.op;
  if (!cache->any_block_plan[op])
    cache->any_block_plan[op] = 1 + pmpi_plans_match_any_block(&g_pmpi.plans, op, cache->size, cache->machine);
  int any = call->persistent || !cache->plans_agree ? -1 : cache->any_block_plan[op] - 1;
  if (any >= 0 && pmpi_plan_recounts(g_pmpi.plans.plans[any].plan))
    return serve_v_uniform(call, cache, any, out_fallback);
  /* MPI_Allgatherv: every rank knows every contribution's size (rank j's
   * send signature equals recvcounts[j] x recvtype everywhere), so the
   * largest block, and the plan it picks, are the same on every rank: a
   * recounting plan then serves with no message */
  if (op == COLLRT_OP_ALLGATHERV && !call->persistent && cache->plans_agree) {
    int idx = pmpi_plans_match(&g_pmpi.plans, op, 0, cache->size, cache->machine, call->block, NULL, 0);
    if (idx >= 0 && pmpi_plan_recounts(g_pmpi.plans.plans[idx].plan))
      return serve_v_uniform(call, cache, idx, out_fallback);
  }
  /* a persistent request owns its bind: it never takes a cached one */
  pmpi_entry_t *hit = call->local_reason || call->persistent
                          ? NULL
                          : pmpi_cache_find(cache, PMPI_CLASS_AGREED, &call->key);
  pmpi_entry_t *flex = call->local_reason || call->persistent ? NULL : cache->flex[op];
  int64_t gen = hit ? hit->gen : -1, fgen = flex ? flex->gen : -1;
  /* reason and its rank; bind number (max, -min) of the pattern's entry
   * and of the op's recounting entry; largest block; whether some rank
   * meets its counts for the first time */
  int first = !call->persistent && !seen_before(cache, call);
  int64_t mine[7] = {((int64_t)call->local_reason << 32) | rank, gen, -gen, fgen, -fgen,
                     call->block, first};
  int64_t all[7];
  int rc = PMPI_Allreduce(mine, all, 7, MPI_INT64_T, MPI_MAX, call->comm);
  if (rc != MPI_SUCCESS)
    return rc;
  pmpi_reason_t reason = (pmpi_reason_t)(all[0] >> 32);
  if (reason) {
    fall_back(call, cache, reason, (int)(all[0] & 0xffffffff), call->local_msg);
    return MPI_SUCCESS;
  }
  char msg[512];
  if (!cache->plans_agree) {
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
  if (all[1] >= 0 && all[1] == -all[2]) {
    /* every rank holds an entry of the same bind: local rebind only */
    g_pmpi.stats.hits++;
    return run_on(call, hit, out_fallback);
  }
  int idx = pmpi_plans_match(&g_pmpi.plans, op, 0, cache->size, cache->machine, all[5], msg, sizeof msg);
  if (idx < 0) {
    fall_back(call, cache, PMPI_R_NO_MATCH, 0, msg);
    return MPI_SUCCESS;
  }
  /* A plan that binds collectively for each count pattern is worth its
   * bind only for a pattern that comes back: one met for the first time
   * (counts that change every call) is served by the most specific plan
   * that recounts, if there is one; the second time it binds. */
  if (!call->persistent && !pmpi_plan_recounts(g_pmpi.plans.plans[idx].plan) && all[6]) {
    int r = pmpi_plans_match_recounting(&g_pmpi.plans, op, cache->size, cache->machine, all[5]);
    if (r >= 0) {
      call->deferred = idx + 1;
      idx = r;
    }
  }
  if (call->persistent || !pmpi_plan_recounts(g_pmpi.plans.plans[idx].plan))
    return bind_and_run(call, cache, PMPI_CLASS_AGREED, idx, out_fallback);
  if (all[3] >= 0 && all[3] == -all[4] && cache->flex_plan[op] == idx) {
    /* every rank holds the same recounting collective of this plan */
    g_pmpi.stats.hits++;
    call->recount = 1;
    return run_on(call, flex, out_fallback);
  }
  return bind_and_run(call, cache, PMPI_CLASS_FLEX, idx, out_fallback);
}

int pmpi_serve(pmpi_call_t *call, int *out_fallback) {
  *out_fallback = 1;
  int inter = 0;
  PMPI_Comm_test_inter(call->comm, &inter);
  if (inter) {
    /* No agreement needed: every rank of both groups sees the same. Rank 0
     * of each group explains. */
    fall_back(call, NULL, PMPI_R_INTERCOMM, 0,
              "an intercommunicator (plans run on intracommunicators)");
    return MPI_SUCCESS;
  }
  pmpi_cache_t *cache = pmpi_cache_get(call->comm);
  if (!cache) {
    fprintf(stderr, "collc_pmpi: %s: out of memory for the plan cache\n", call->what);
    PMPI_Comm_call_errhandler(call->comm, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
  }
  int uniform = call->key.op == COLLRT_OP_ALLTOALL || call->key.op == COLLRT_OP_ALLREDUCE ||
                call->key.op == COLLRT_OP_BCAST;
  return uniform ? serve_uniform(call, cache, out_fallback)
                 : serve_agreed(call, cache, out_fallback);
}

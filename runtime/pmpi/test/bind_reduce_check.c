/* collrt_bind_allreduce and collrt_bind_bcast on their own (what the PMPI
 * library builds on), each result compared with MPI's own collective:
 *
 *   bind_reduce_check SUM_INT_ALLREDUCE.plan BCAST.plan STAGED_BCAST.plan ARENA_BCAST.plan
 *
 * - an allreduce bound with MPI_IN_PLACE, started three times with new data
 *   (every start copies the receive buffer to the send side), rebound in
 *   place to another buffer, and refused a rebind to a send buffer;
 * - the same plan refused with MPI_FLOAT (its REDUCE steps combine int),
 *   on every rank, naming both;
 * - a bcast bound to MPI_Bcast's one buffer from rank 0, the last rank
 *   and rank 1 (run relabeled), rebound, and refused a root past the
 *   communicator;
 * - a bcast whose root stages other ranks' bytes in its receive buffer
 *   (plans/bcast-staged-root.mlir): right only because the root gets a
 *   receive buffer of its own;
 * - a bcast with a node arena (plans/bcast-arena.mlir): served from root
 *   0, refused root 1 by name (its ranks are tied to their nodes).
 * Exit status 1 on any mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collc/collrt.h"

static int g_failures, g_rank;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "bind_reduce_check: rank %d: %s\n", g_rank, what);
    g_failures++;
  }
}

static collrt_plan_t *load(const char *path) {
  collrt_plan_t *p = NULL;
  collrt_diag_t d = {{0}};
  if (collrt_plan_load_file(path, &p, &d)) {
    fprintf(stderr, "bind_reduce_check: %s: %s\n", path, d.message);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

static int run(collrt_coll_t *c) {
  collrt_diag_t d = {{0}};
  collrt_status_t st = collrt_start(c, &d);
  if (!st)
    st = collrt_wait(c, &d);
  if (st)
    fprintf(stderr, "bind_reduce_check: rank %d: run: %s\n", g_rank, d.message);
  return st == COLLRT_OK;
}

static void allreduce_in_place(const collrt_plan_t *plan) {
  enum { N = 777 };
  int a[N], b[N], mine[N], ref[N];
  collrt_coll_t *c = NULL;
  collrt_diag_t d = {{0}};
  collrt_status_t st = collrt_bind_allreduce(plan, MPI_COMM_WORLD, MPI_IN_PLACE, a, N, MPI_INT, 0, &c, &d);
  check(st == COLLRT_OK, d.message);
  if (st)
    return;
  for (int rep = 0; rep < 4; ++rep) {
    int *buf = rep < 3 ? a : b;
    if (rep == 3) {
      st = collrt_coll_rebind(c, MPI_IN_PLACE, b, &d);
      check(st == COLLRT_OK, "rebind in place to another buffer");
    }
    for (int i = 0; i < N; ++i)
      buf[i] = mine[i] = g_rank * 1000 + i * 3 + rep;
    check(run(c), "in-place allreduce run");
    MPI_Allreduce(mine, ref, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(!memcmp(buf, ref, sizeof ref), "in-place allreduce differs from MPI's");
  }
  st = collrt_coll_rebind(c, mine, a, &d);
  check(st == COLLRT_ERR_ARG && strstr(d.message, "MPI_IN_PLACE"),
        "a collective bound in place rebinds to a send buffer");
  collrt_coll_free(c);
  /* the plan combines int: MPI_FLOAT is refused on every rank, named */
  float f[4] = {0}, g[4];
  d.message[0] = 0;
  st = collrt_bind_allreduce(plan, MPI_COMM_WORLD, f, g, 4, MPI_FLOAT, 0, &c, &d);
  check(st == COLLRT_ERR_ARG && (strstr(d.message, "combine int (sum) but the datatype is MPI_FLOAT") ||
                                 strstr(d.message, "failed to bind")),
        "MPI_FLOAT on a sum-on-int plan is not refused by name");
  if (!st)
    collrt_coll_free(c);
}

/* Bound from `root` (relabeled where it is not 0), run three times, the
 * third after a rebind to another buffer. */
static void bcast_from(const collrt_plan_t *plan, int root, const char *what) {
  enum { N = 5000 };
  char a[N], b[N], ref[N];
  collrt_coll_t *c = NULL;
  collrt_diag_t d = {{0}};
  collrt_status_t st = collrt_bind_bcast(plan, MPI_COMM_WORLD, a, N, MPI_CHAR, root, 0, &c, &d);
  check(st == COLLRT_OK, d.message);
  if (st)
    return;
  for (int rep = 0; rep < 3; ++rep) {
    char *buf = rep < 2 ? a : b;
    if (rep == 2)
      check(collrt_coll_rebind(c, b, b, &d) == COLLRT_OK, "bcast rebind");
    for (int i = 0; i < N; ++i)
      buf[i] = ref[i] = (char)(g_rank == root ? i * 7 + rep + root : -1 - g_rank);
    check(run(c), "bcast run");
    MPI_Bcast(ref, N, MPI_CHAR, root, MPI_COMM_WORLD);
    if (memcmp(buf, ref, N)) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s from root %d differs from MPI's", what, root);
      check(0, msg);
    }
  }
  collrt_coll_free(c);
}

static void bcast(const collrt_plan_t *plan, const char *what) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bcast_from(plan, 0, what);
  if (size > 1)
    bcast_from(plan, size - 1, what);
  if (size > 2)
    bcast_from(plan, 1, what);
  char one[1];
  collrt_coll_t *c = NULL;
  collrt_diag_t d = {{0}};
  collrt_status_t st = collrt_bind_bcast(plan, MPI_COMM_WORLD, one, 1, MPI_CHAR, size, 0, &c, &d);
  check(st == COLLRT_ERR_ARG && strstr(d.message, "is not a rank of the communicator"),
        "a root past the communicator is not refused by name");
  if (!st)
    collrt_coll_free(c);
}

/* A plan with a node arena: served from root 0, refused any other root on
 * every rank, by name (the relabeling would move ranks between nodes). */
static void arena_root(const collrt_plan_t *plan) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bcast_from(plan, 0, "bcast with a node arena");
  if (size < 2)
    return;
  char one[1];
  collrt_coll_t *c = NULL;
  collrt_diag_t d = {{0}};
  collrt_status_t st = collrt_bind_bcast(plan, MPI_COMM_WORLD, one, 1, MPI_CHAR, 1, 0, &c, &d);
  check(st == COLLRT_ERR_ARG && strstr(d.message, "node arena"),
        "a plan with a node arena is not refused root 1 by name");
  if (!st)
    collrt_coll_free(c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (argc != 5) {
    fprintf(stderr, "usage: bind_reduce_check SUM_INT_ALLREDUCE BCAST STAGED_BCAST ARENA_BCAST\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  collrt_plan_t *sum = load(argv[1]), *bc = load(argv[2]), *staged = load(argv[3]),
                *arena = load(argv[4]);
  allreduce_in_place(sum);
  bcast(bc, "bcast");
  bcast(staged, "bcast with a staging root");
  arena_root(arena);
  int failures = 0, size = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (g_rank == 0)
    printf(failures ? "bind_reduce_check: FAILED (%d)\n" : "bind_reduce_check: ok (%d ranks)\n",
           failures ? failures : size);
  collrt_plan_free(sum);
  collrt_plan_free(bc);
  collrt_plan_free(staged);
  collrt_plan_free(arena);
  MPI_Finalize();
  return failures ? 1 : 0;
}

/* MPI error paths of the runtime, under mpiexec -n 4: every error is
 * reported (on every rank when it comes from a collective check) and nothing
 * hangs. Usage: mpi_errors DIRECT_ALLTOALL.collplan */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collc/collrt.h"
#include "test_plans.h"

static int failures, rank;

static void expect(collrt_status_t got, collrt_status_t want, const collrt_diag_t *d,
                   const char *needle, int line) {
  if (got != want || (needle && !strstr(d->message, needle))) {
    ++failures;
    fprintf(stderr, "mpi_errors.c:%d rank %d: FAILED: got %s '%s', want %s with '%s'\n", line,
            rank, collrt_strerror(got), d->message, collrt_strerror(want), needle ? needle : "");
  }
}
#define EXPECT(got, want, d, needle) expect(got, want, d, needle, __LINE__)

static void test_corrupt_plans(const char *path) {
  collrt_diag_t d = {{0}};
  collrt_plan_t *p = NULL, *q = NULL;
  EXPECT(collrt_plan_load_file(path, &p, &d), COLLRT_OK, &d, NULL);
  if (!p)
    return;
  size_t len;
  const uint8_t *bytes = collrt_plan_bytes(p, &len);
  uint8_t *c = malloc(len);
  memcpy(c, bytes, len);
  c[len / 2] ^= 1;
  EXPECT(collrt_plan_load(c, len, &q, &d), COLLRT_ERR_PLAN_CHECKSUM, &d, "does not match contents");
  memcpy(c, bytes, len);
  EXPECT(collrt_plan_load(c, len - 1, &q, &d), COLLRT_ERR_PLAN_FORMAT, &d,
         "but header says total_bytes");
  collrt_plan_desc_t desc = *collrt_plan_desc(p);
  desc.nfifos = 0;
  EXPECT(collrt_plan_encode(&desc, &q, &d), COLLRT_ERR_PLAN_INVALID, &d, "'nfifos' is 0");
  collrt_fifo_desc_t many[COLLRT_MAX_FIFOS + 1];
  for (int f = 0; f <= COLLRT_MAX_FIFOS; ++f)
    many[f] = collrt_plan_desc(p)->fifos[0];
  desc = *collrt_plan_desc(p);
  desc.nfifos = COLLRT_MAX_FIFOS + 1;
  desc.fifos = many;
  EXPECT(collrt_plan_encode(&desc, &q, &d), COLLRT_ERR_PLAN_INVALID, &d, "'nfifos' is 17");
  EXPECT(collrt_plan_load_file("/nonexistent/x.collplan", &q, &d), COLLRT_ERR_IO, &d,
         "cannot open plan file");
  free(c);
  collrt_plan_free(p);
}

static void test_bind_errors(const char *path) {
  collrt_diag_t d = {{0}};
  collrt_coll_t *c = NULL;
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int sbuf[64], rbuf[64];
  for (int k = 0; k < 64; ++k)
    sbuf[k] = rank * 100 + k;

  /* a topology plan on the wrong size, then on the right one */
  tp_builder_t b;
  tp_build_direct_topo(&b, 2, 2, 2);
  collrt_plan_t *topo = tp_finish(&b);
  EXPECT(collrt_bind_alltoall(topo, MPI_COMM_WORLD, sbuf, rbuf, 2, MPI_INT, 0, &c, &d),
         COLLRT_ERR_COMM_MISMATCH, &d,
         "communicator has 4 ranks but the plan was compiled for shape 2x2x2 (torus) with 1 rank per node (8 ranks)");

  if (c) {
    ++failures;
    fprintf(stderr, "rank %d: handle returned on error\n", rank);
  }
  collrt_plan_free(topo);
  tp_build_direct_topo(&b, 2, 2, 1);
  topo = tp_finish(&b);
  EXPECT(collrt_bind_alltoall(topo, MPI_COMM_WORLD, sbuf, rbuf, 2, MPI_INT, 0, &c, &d), COLLRT_OK,
         &d, NULL);
  if (c) {
    /* wait before start, start twice, then two correct runs */
    EXPECT(collrt_wait(c, &d), COLLRT_ERR_STATE, &d, "not started");
    EXPECT(collrt_start(c, &d), COLLRT_OK, &d, NULL);
    EXPECT(collrt_start(c, &d), COLLRT_ERR_STATE, &d, "already started");
    EXPECT(collrt_wait(c, &d), COLLRT_OK, &d, NULL);
    EXPECT(collrt_wait(c, &d), COLLRT_ERR_STATE, &d, "not started");
    for (int run = 0; run < 2; ++run) {
      memset(rbuf, 0, sizeof rbuf);
      EXPECT(collrt_start(c, &d), COLLRT_OK, &d, NULL);
      int done = 0;
      while (!done)
        if (collrt_test(c, &done, &d))
          break;
      for (int j = 0; j < P; ++j)
        for (int k = 0; k < 2; ++k)
          if (rbuf[2 * j + k] != j * 100 + 2 * rank + k) {
            ++failures;
            fprintf(stderr, "rank %d: rbuf[%d] = %d, want %d\n", rank, 2 * j + k, rbuf[2 * j + k],
                    j * 100 + 2 * rank + k);
          }
    }
    EXPECT(collrt_trace_write(c, "/tmp/none.json", &d), COLLRT_ERR_STATE, &d, "without COLLRT_BIND_TRACE");
    collrt_coll_free(c);
    c = NULL;
  }
  collrt_plan_free(topo);

  collrt_plan_t *a2a = NULL;
  EXPECT(collrt_plan_load_file(path, &a2a, &d), COLLRT_OK, &d, NULL);
  /* an alltoall plan bound as allgatherv */
  int one[4] = {1, 1, 1, 1}, at[4] = {0, 1, 2, 3};
  EXPECT(collrt_bind_allgatherv(a2a, MPI_COMM_WORLD, sbuf, 1, rbuf, one, at, MPI_INT, 0, &c, &d),
         COLLRT_ERR_ARG, &d, "the plan implements alltoall but was bound with collrt_bind_allgatherv");
  /* a non-contiguous datatype, on every rank */
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  EXPECT(collrt_bind_alltoall(a2a, MPI_COMM_WORLD, sbuf, rbuf, 1, vec, 0, &c, &d), COLLRT_ERR_ARG,
         &d, rank == 0 ? "datatype has size 8 but extent 12" : NULL);
  MPI_Type_free(&vec);
  /* a count that differs between ranks */
  EXPECT(collrt_bind_alltoall(a2a, MPI_COMM_WORLD, sbuf, rbuf, rank == 2 ? 3 : 2, MPI_INT,
                              COLLRT_BIND_CHECK_COUNTS, &c, &d),
         COLLRT_ERR_COUNTS, &d, NULL);
  collrt_plan_free(a2a);

  /* alltoallv: rank 1 expects 3 elements from rank 2, which sends 4 */
  tp_build_direct(&b, COLLRT_OP_ALLTOALLV, 2);
  collrt_plan_t *v = tp_finish(&b);
  int sc[4], sd[4], rc[4], rd[4];
  for (int j = 0; j < 4; ++j) {
    sc[j] = rc[j] = 4;
    sd[j] = rd[j] = 4 * j;
  }
  if (rank == 1)
    rc[2] = 3;
  collrt_status_t st = collrt_bind_alltoallv(v, MPI_COMM_WORLD, sbuf, sc, sd, rbuf, rc, rd, MPI_INT,
                                             COLLRT_BIND_CHECK_COUNTS, &c, &d);
  EXPECT(st, COLLRT_ERR_COUNTS, &d,
         rank == 1 ? "rank 2 sends 4 elements to rank 1 but rank 1 expects 3 (recvcounts[2])"
                   : "rank 1 failed to bind (inconsistent counts)");
  /* negative counts on one rank: an argument error there, reported everywhere */
  rc[2] = 4;
  if (rank == 3)
    sc[0] = -1;
  st = collrt_bind_alltoallv(v, MPI_COMM_WORLD, sbuf, sc, sd, rbuf, rc, rd, MPI_INT, 0, &c, &d);
  EXPECT(st, COLLRT_ERR_ARG, &d, rank == 3 ? "sendcounts[0] = -1 is negative" : "rank 3 failed to bind");
  collrt_plan_free(v);

  /* allgatherv: rank 3 disagrees about recvcounts[0] */
  tp_build_ring(&b, "2", 2);
  collrt_plan_t *ring = tp_finish(&b);
  for (int j = 0; j < 4; ++j) {
    rc[j] = 3;
    rd[j] = 3 * j;
  }
  if (rank == 3)
    rc[0] = 2;
  st = collrt_bind_allgatherv(ring, MPI_COMM_WORLD, sbuf, 3, rbuf, rc, rd, MPI_INT,
                              COLLRT_BIND_CHECK_COUNTS, &c, &d);
  EXPECT(st, COLLRT_ERR_COUNTS, &d, "recvcounts[0]");
  collrt_plan_free(ring);
  if (c) {
    ++failures;
    collrt_coll_free(c);
  }



}

/* Bind reads COLLRT_WAIT and the node's rank count: an explicit setting is
 * taken as is, a bad one is a bind error on every rank, and `auto` gives what
 * collrt_choose_wait_policy decides for this node (4 ranks on one node). */
static void test_wait_policy(const char *path) {
  collrt_diag_t d = {{0}};
  collrt_plan_t *p = NULL;
  collrt_coll_t *c = NULL;
  int P, sbuf[4] = {0}, rbuf[4];
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  EXPECT(collrt_plan_load_file(path, &p, &d), COLLRT_OK, &d, NULL);
  if (!p)
    return;
  static const char *settings[] = {"spin", "yield", "block"};
  for (int k = 0; k < 3; ++k) {
    setenv("COLLRT_WAIT", settings[k], 1);
    EXPECT(collrt_bind_alltoall(p, MPI_COMM_WORLD, sbuf, rbuf, 1, MPI_INT, 0, &c, &d), COLLRT_OK, &d, NULL);
    if (c && strcmp(collrt_wait_policy_name(collrt_coll_wait_policy(c)), settings[k])) {
      ++failures;
      fprintf(stderr, "rank %d: COLLRT_WAIT=%s bound policy %s\n", rank, settings[k],
              collrt_wait_policy_name(collrt_coll_wait_policy(c)));
    }
    if (c) { /* and the collective completes under that policy */
      EXPECT(collrt_start(c, &d), COLLRT_OK, &d, NULL);
      EXPECT(collrt_wait(c, &d), COLLRT_OK, &d, NULL);
    }
    collrt_coll_free(c);
    c = NULL;
  }
  setenv("COLLRT_WAIT", "sleepy", 1);
  EXPECT(collrt_bind_alltoall(p, MPI_COMM_WORLD, sbuf, rbuf, 1, MPI_INT, 0, &c, &d),
         COLLRT_ERR_ARG, &d, "COLLRT_WAIT='sleepy' is not auto, spin, yield or block");
  unsetenv("COLLRT_WAIT");
  EXPECT(collrt_bind_alltoall(p, MPI_COMM_WORLD, sbuf, rbuf, 1, MPI_INT, 0, &c, &d), COLLRT_OK, &d, NULL);
  MPI_Comm node;
  int node_ranks;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  collrt_wait_policy_t want;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    cpus = CPU_COUNT(&set);
  collrt_choose_wait_policy(NULL, node_ranks, (int)cpus, 0, &want, &d);
  if (c && collrt_coll_wait_policy(c) != want) {
    ++failures;
    fprintf(stderr, "rank %d: auto policy with %d ranks on a node of %ld CPUs is %s, want %s\n", rank,
            node_ranks, cpus, collrt_wait_policy_name(collrt_coll_wait_policy(c)),
            collrt_wait_policy_name(want));
  }
  collrt_coll_free(c);
  collrt_plan_free(p);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (argc != 2 || P != 4) {
    if (rank == 0)
      fprintf(stderr, "usage: mpiexec -n 4 mpi_errors DIRECT_ALLTOALL.collplan\n");
    MPI_Finalize();
    return 2;
  }
  test_corrupt_plans(argv[1]);
  test_bind_errors(argv[1]);
  test_wait_policy(argv[1]);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(total ? "%d failure(s)\n" : "all MPI error tests passed\n", total);
  MPI_Finalize();
  return total != 0;
}

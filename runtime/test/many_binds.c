/* Communicators are not per bind: a program holds thousands of binds on
 * one communicator, and binds on thousands of duplicated communicators,
 * without running MPI out of context ids (MPICH has 2048 per process).
 * Then, with context ids exhausted by the program itself, a bind on a
 * communicator that needs new runtime state fails with an error on every
 * rank, never an abort.
 *
 *   many_binds PLAN [--binds N] [--comms N]
 *
 * PLAN: an alltoall plan of any size. Every bind is run once (the first,
 * every 97th and the last) and compared byte for byte with MPI's own
 * alltoall. Prints "many_binds: ok (N binds on one communicator, M
 * communicators, exhaustion reported)" and exits 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collc/collrt.h"

static int rank, size, failures;

static void fail(const char *what, const collrt_diag_t *d) {
  ++failures;
  fprintf(stderr, "many_binds: rank %d: %s: %s\n", rank, what, d ? d->message : "");
}

static void run_and_check(collrt_coll_t *c, MPI_Comm comm, char *send, char *recv, char *want,
                          int block, int salt) {
  for (int k = 0; k < block * size; ++k)
    send[k] = (char)(rank * 31 + k * 7 + salt);
  collrt_diag_t d = {{0}};
  if (collrt_start(c, &d) || collrt_wait(c, &d)) {
    fail("run", &d);
    return;
  }
  MPI_Alltoall(send, block, MPI_BYTE, want, block, MPI_BYTE, comm);
  if (memcmp(recv, want, (size_t)block * size))
    fail("result differs from MPI_Alltoall", NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc < 2) {
    fprintf(stderr, "usage: many_binds PLAN [--binds N] [--comms N]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int nbinds = 2000, ncomms = 1900, block = 8;
  for (int k = 2; k + 1 < argc; k += 2) {
    if (!strcmp(argv[k], "--binds"))
      nbinds = atoi(argv[k + 1]);
    else if (!strcmp(argv[k], "--comms"))
      ncomms = atoi(argv[k + 1]);
  }
  collrt_plan_t *plan = NULL;
  collrt_diag_t d = {{0}};
  if (collrt_plan_load_file(argv[1], &plan, &d)) {
    fail("load", &d);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  char *send = malloc((size_t)block * size), *recv = malloc((size_t)block * size),
       *want = malloc((size_t)block * size);

  /* 1. thousands of binds alive on one communicator */
  collrt_coll_t **held = calloc((size_t)nbinds, sizeof *held);
  int bound = 0;
  for (; bound < nbinds; ++bound)
    if (collrt_bind_alltoall(plan, MPI_COMM_WORLD, send, recv, block, MPI_BYTE, 0, &held[bound],
                             &d)) {
      fail("bind on MPI_COMM_WORLD", &d);
      break;
    }
  for (int k = 0; k < bound; ++k)
    if (k % 97 == 0 || k == bound - 1)
      run_and_check(held[k], MPI_COMM_WORLD, send, recv, want, block, k);

  /* 2. one bind (kept) on each of many duplicated communicators, the
   * world's binds still alive */
  MPI_Comm *comms = calloc((size_t)ncomms, sizeof *comms);
  collrt_coll_t **per = calloc((size_t)ncomms, sizeof *per);
  int made = 0;
  for (; made < ncomms; ++made) {
    if (MPI_Comm_dup(MPI_COMM_WORLD, &comms[made]) != MPI_SUCCESS) {
      fail("MPI_Comm_dup (the program's own)", NULL);
      break;
    }
    if (collrt_bind_alltoall(plan, comms[made], send, recv, block, MPI_BYTE, 0, &per[made], &d)) {
      fail("bind on a duplicate", &d);
      ++made;
      break;
    }
  }
  run_and_check(per[made - 1], comms[made - 1], send, recv, want, block, 7);

  /* 3. the program exhausts the context ids, then frees one and makes a
   * reordered communicator (new runtime state needed): the bind fails on
   * every rank, with a reason */
  MPI_Comm *extra = calloc(4096, sizeof *extra);
  int nextra = 0;
  while (nextra < 4096 && MPI_Comm_dup(MPI_COMM_WORLD, &extra[nextra]) == MPI_SUCCESS)
    ++nextra;
  /* Open MPI has far more context ids than MPICH's 2048: the loop above
   * may end at its cap without exhausting them */
  int reported = 0, exhausted = nextra < 4096;
  if (nextra > 0 && exhausted) {
    MPI_Comm_free(&extra[--nextra]);
    MPI_Comm reordered;
    if (MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reordered) == MPI_SUCCESS) {
      collrt_coll_t *c = NULL;
      collrt_status_t st = collrt_bind_alltoall(plan, reordered, send, recv, block, MPI_BYTE, 0, &c, &d);
      if (size > 1 && !st)
        fail("a bind needing a context id with none left succeeded", NULL);
      else if (size > 1 && !strstr(d.message, "context ids"))
        fail("the exhaustion error does not say so", &d);
      reported = size == 1 || st != COLLRT_OK;
      collrt_coll_free(c);
      MPI_Comm_free(&reordered);
    }
  }
  while (nextra > 0)
    MPI_Comm_free(&extra[--nextra]);

  for (int k = 0; k < made; ++k) {
    collrt_coll_free(per[k]);
    MPI_Comm_free(&comms[k]);
  }
  for (int k = 0; k < bound; ++k)
    collrt_coll_free(held[k]);
  collrt_plan_free(plan);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!rank && !all)
    printf("many_binds: ok (%d binds on one communicator, %d communicators, exhaustion %s)\n",
           bound, made, reported ? "reported" : exhausted ? "not reported" : "not reached");
  free(held);
  free(per);
  free(comms);
  free(extra);
  free(send);
  free(recv);
  free(want);
  MPI_Finalize();
  return all ? 1 : 0;
}

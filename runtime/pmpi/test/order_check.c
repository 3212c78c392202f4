/* Legal MPI programs that complete collectives in different orders on
 * different ranks, as applications do. Native MPI completes every one; a
 * library that advances only the collective being waited on hangs.
 *
 *   persistent   two MPI_Alltoall_init requests, started in the same order
 *                on every rank; even ranks wait A then B, odd ranks B then
 *                A (also: MPI_Waitall in reverse, an MPI_Test loop)
 *   native       a started persistent alltoall, then a native receive that
 *                the peer sends only after its alltoall completed: the
 *                native MPI_Wait must move the plan
 *   nonblocking  two MPI_Ialltoall (then two MPI_Ialltoallv, two
 *                MPI_Iallgatherv) completed in opposite orders
 *
 * Options: --mode M, --bytes B (per block), --iters N, --same-comm (A and B
 * on one communicator instead of two), --in-place (the persistent and
 * nonblocking alltoalls pass MPI_IN_PLACE: the receive buffer is filled
 * before every start, and MPI's in-place alltoall is the reference). Every result is compared byte for
 * byte with the MPI library's own collective, called through PMPI_ so that
 * the reference never goes through libcollc_pmpi. Prints
 * "order_check: ok (MODE, N iterations)" and exits 0 when all matched. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_compat.h" /* Open MPI 4.1: MPI_Alltoall_init is MPIX_Alltoall_init */

static int rank, size, failures, in_place;

static void fill(unsigned char *buf, size_t n, int salt) {
  for (size_t k = 0; k < n; ++k)
    buf[k] = (unsigned char)(rank * 131 + salt * 17 + k * 7 + (k >> 8));
}

static void compare(const char *what, int iter, const void *got, const void *want, size_t n) {
  if (memcmp(got, want, n)) {
    ++failures;
    fprintf(stderr, "order_check: rank %d: %s, iteration %d, differs from MPI's own result\n",
            rank, what, iter);
  }
}

typedef struct side {
  MPI_Comm comm;
  unsigned char *send, *recv, *want;
  MPI_Request req;
} side_t;

static void side_init(side_t *s, MPI_Comm comm, size_t bytes) {
  s->comm = comm;
  s->send = malloc(bytes * size + 1);
  s->recv = malloc(bytes * size + 1);
  s->want = malloc(bytes * size + 1);
  s->req = MPI_REQUEST_NULL;
}

static void side_free(side_t *s) {
  free(s->send);
  free(s->recv);
  free(s->want);
}

/* Waits for a and b in the order this rank's parity and the iteration pick:
 * single waits, a test loop, or one Waitall. */
static void complete_both(MPI_Request *a, MPI_Request *b, int iter) {
  MPI_Request *first = rank % 2 ? b : a, *second = rank % 2 ? a : b;
  switch (iter % 3) {
  case 0:
    MPI_Wait(first, MPI_STATUS_IGNORE);
    MPI_Wait(second, MPI_STATUS_IGNORE);
    break;
  case 1: {
    int flag = 0;
    while (!flag)
      MPI_Test(first, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(second, MPI_STATUS_IGNORE);
    break;
  }
  default: {
    MPI_Request set[2] = {*first, *second};
    MPI_Waitall(2, set, MPI_STATUSES_IGNORE);
    *first = set[0];
    *second = set[1];
  }
  }
}

/* Before an alltoall of side s: its input, in the send buffer or (in
 * place) in the receive buffer and in the reference's. */
static void fill_input(side_t *s, size_t n, int salt) {
  fill(in_place ? s->recv : s->send, n, salt);
  if (in_place)
    fill(s->want, n, salt);
}

/* MPI's own alltoall of side s, the reference. */
static void reference_alltoall(side_t *s, int bytes) {
  if (in_place)
    PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->want, bytes, MPI_BYTE, s->comm);
  else
    PMPI_Alltoall(s->send, bytes, MPI_BYTE, s->want, bytes, MPI_BYTE, s->comm);
}

static void run_persistent(side_t *a, side_t *b, int bytes, int iters) {
  MPI_Alltoall_init(in_place ? MPI_IN_PLACE : a->send, bytes, MPI_BYTE, a->recv, bytes, MPI_BYTE,
                    a->comm, MPI_INFO_NULL, &a->req);
  MPI_Alltoall_init(in_place ? MPI_IN_PLACE : b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE,
                    b->comm, MPI_INFO_NULL, &b->req);
  size_t n = (size_t)bytes * size;
  for (int it = 0; it < iters; ++it) {
    fill_input(a, n, 2 * it);
    fill_input(b, n, 2 * it + 1);
    MPI_Start(&a->req);
    MPI_Start(&b->req);
    complete_both(&a->req, &b->req, it);
    reference_alltoall(a, bytes);
    reference_alltoall(b, bytes);
    compare("persistent alltoall A", it, a->recv, a->want, n);
    compare("persistent alltoall B", it, b->recv, b->want, n);
  }
  MPI_Request_free(&a->req);
  MPI_Request_free(&b->req);
}

/* Rank 0 waits on a native message that rank 1 sends only after its
 * alltoall completed, and only then on the alltoall. */
static void run_native(side_t *a, int bytes, int iters) {
  MPI_Alltoall_init(a->send, bytes, MPI_BYTE, a->recv, bytes, MPI_BYTE, a->comm, MPI_INFO_NULL,
                    &a->req);
  size_t n = (size_t)bytes * size;
  for (int it = 0; it < iters; ++it) {
    fill(a->send, n, it);
    MPI_Start(&a->req);
    int token = it, got = -1;
    if (size > 1 && rank == 0) {
      MPI_Request r;
      MPI_Irecv(&got, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Wait(&a->req, MPI_STATUS_IGNORE);
      if (got != it) {
        ++failures;
        fprintf(stderr, "order_check: rank 0: native message %d, expected %d\n", got, it);
      }
    } else {
      MPI_Wait(&a->req, MPI_STATUS_IGNORE);
      if (size > 1 && rank == 1)
        MPI_Send(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    }
    PMPI_Alltoall(a->send, bytes, MPI_BYTE, a->want, bytes, MPI_BYTE, a->comm);
    compare("persistent alltoall beside a native wait", it, a->recv, a->want, n);
  }
  MPI_Request_free(&a->req);
}

static void run_nonblocking(side_t *a, side_t *b, int bytes, int iters) {
  size_t n = (size_t)bytes * size;
  int *counts = malloc(sizeof(int) * (size_t)size * 4);
  int *sc = counts, *sd = counts + size, *rc = counts + 2 * size, *rd = counts + 3 * size;
  for (int it = 0; it < iters; ++it) {
    fill_input(a, n, 2 * it);
    fill_input(b, n, 2 * it + 1);
    MPI_Ialltoall(in_place ? MPI_IN_PLACE : a->send, bytes, MPI_BYTE, a->recv, bytes, MPI_BYTE,
                  a->comm, &a->req);
    MPI_Ialltoall(in_place ? MPI_IN_PLACE : b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE,
                  b->comm, &b->req);
    complete_both(&a->req, &b->req, it);
    reference_alltoall(a, bytes);
    reference_alltoall(b, bytes);
    compare("MPI_Ialltoall A", it, a->recv, a->want, n);
    compare("MPI_Ialltoall B", it, b->recv, b->want, n);

    /* counts that change every iteration: rank s sends (s + d + it) % (bytes + 1)
     * bytes to rank d */
    int64_t at = 0, rat = 0;
    for (int d = 0; d < size; ++d) {
      sc[d] = (rank + d + it) % (bytes + 1);
      sd[d] = (int)at;
      at += sc[d];
      rc[d] = (d + rank + it) % (bytes + 1);
      rd[d] = (int)rat;
      rat += rc[d];
    }
    memset(a->recv, 0xee, n);
    memset(a->want, 0xee, n);
    memset(b->recv, 0xee, n);
    memset(b->want, 0xee, n);
    MPI_Ialltoallv(a->send, sc, sd, MPI_BYTE, a->recv, rc, rd, MPI_BYTE, a->comm, &a->req);
    MPI_Ialltoallv(b->send, sc, sd, MPI_BYTE, b->recv, rc, rd, MPI_BYTE, b->comm, &b->req);
    complete_both(&a->req, &b->req, it);
    PMPI_Alltoallv(a->send, sc, sd, MPI_BYTE, a->want, rc, rd, MPI_BYTE, a->comm);
    PMPI_Alltoallv(b->send, sc, sd, MPI_BYTE, b->want, rc, rd, MPI_BYTE, b->comm);
    compare("MPI_Ialltoallv A", it, a->recv, a->want, n);
    compare("MPI_Ialltoallv B", it, b->recv, b->want, n);

    /* allgatherv: rank j contributes (j + it) % (bytes + 1) bytes */
    int mine = (rank + it) % (bytes + 1);
    at = 0;
    for (int j = 0; j < size; ++j) {
      rc[j] = (j + it) % (bytes + 1);
      rd[j] = (int)at;
      at += rc[j];
    }
    MPI_Iallgatherv(a->send, mine, MPI_BYTE, a->recv, rc, rd, MPI_BYTE, a->comm, &a->req);
    MPI_Iallgatherv(b->send, mine, MPI_BYTE, b->recv, rc, rd, MPI_BYTE, b->comm, &b->req);
    complete_both(&a->req, &b->req, it);
    PMPI_Allgatherv(a->send, mine, MPI_BYTE, a->want, rc, rd, MPI_BYTE, a->comm);
    PMPI_Allgatherv(b->send, mine, MPI_BYTE, b->want, rc, rd, MPI_BYTE, b->comm);
    compare("MPI_Iallgatherv A", it, a->recv, a->want, (size_t)at);
    compare("MPI_Iallgatherv B", it, b->recv, b->want, (size_t)at);
  }
  free(counts);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = "persistent";
  int bytes = 8, iters = 12, same = 0;
  for (int k = 1; k < argc; ++k) {
    if (!strcmp(argv[k], "--mode") && k + 1 < argc)
      mode = argv[++k];
    else if (!strcmp(argv[k], "--bytes") && k + 1 < argc)
      bytes = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--iters") && k + 1 < argc)
      iters = atoi(argv[++k]);
    else if (!strcmp(argv[k], "--same-comm"))
      same = 1;
    else if (!strcmp(argv[k], "--in-place"))
      in_place = 1;
    else {
      if (!rank)
        fprintf(stderr, "order_check: unknown argument %s\n", argv[k]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Comm ca, cb;
  MPI_Comm_dup(MPI_COMM_WORLD, &ca);
  if (same)
    cb = ca;
  else
    MPI_Comm_dup(MPI_COMM_WORLD, &cb);
  side_t a, b;
  side_init(&a, ca, (size_t)bytes);
  side_init(&b, cb, (size_t)bytes);
  if (!strcmp(mode, "persistent"))
    run_persistent(&a, &b, bytes, iters);
  else if (!strcmp(mode, "native"))
    run_native(&a, bytes, iters);
  else if (!strcmp(mode, "nonblocking"))
    run_nonblocking(&a, &b, bytes, iters);
  else {
    if (!rank)
      fprintf(stderr, "order_check: unknown mode %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  side_free(&a);
  side_free(&b);
  if (!same)
    MPI_Comm_free(&cb);
  MPI_Comm_free(&ca);
  int all = 0;
  /* PMPI_: the program's own tally, not a call under test (the
   * library serves MPI_Allreduce too) */
  PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!rank && !all)
    printf("order_check: ok (%s, %d iterations)\n", mode, iters);
  MPI_Finalize();
  return all ? 1 : 0;
}

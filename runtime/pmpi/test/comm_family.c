/* The call pattern of MPI test suites (MPICH's test/mpi/coll alltoallv0 and
 * allgatherv3): for each communicator of a family that is created, used for
 * a short ladder of sizes and freed, one collective per size.
 *   alltoallv:  a halo exchange, each rank sending `length` ints to its left
 *               and right neighbour and nothing to the others, length
 *               1, 3, 7, ... < 66000 (communicators of 3 ranks or more)
 *   allgatherv: `count` doubles from every rank, count 1, 2, 4, ... < 9000
 * The family: the world, a duplicate, the world reversed, the lower and
 * upper halves, the even and odd ranks, the world without rank 0, and an
 * intercommunicator's merge. Every result is checked against what the
 * pattern must give. A library that makes each new communicator or size
 * expensive shows here, as the wall time of the whole program.
 *   comm_family alltoallv|allgatherv [ROUNDS]
 * Exits 1 on a wrong result; rank 0 prints "comm_family: ok" and the count. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FAMILY = 8 };

/* Member k of the family, or MPI_COMM_NULL where this rank is not in it. */
static MPI_Comm member(int k) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm c = MPI_COMM_NULL;
  switch (k) {
  case 0:
    MPI_Comm_dup(MPI_COMM_WORLD, &c); /* stands for the world: freed like the rest */
    break;
  case 1: {
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_dup(d, &c);
    MPI_Comm_free(&d);
    break;
  }
  case 2:
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c);
    break;
  case 3:
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &c);
    break;
  case 4:
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    break;
  case 5:
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &c);
    break;
  case 6:
    MPI_Comm_split(MPI_COMM_WORLD, rank >= size / 2, size - rank, &c);
    break;
  default:
    if (size >= 2) {
      MPI_Comm half, inter;
      int lower = rank < size / 2;
      MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &half);
      MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? size / 2 : 0, 11, &inter);
      MPI_Intercomm_merge(inter, !lower, &c);
      MPI_Comm_free(&inter);
      MPI_Comm_free(&half);
    }
  }
  return c;
}

static long halo(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 3)
    return 0;
  int *sc = calloc(4 * (size_t)size, sizeof(int)), *rc = sc + size, *sd = sc + 2 * size,
      *rd = sc + 3 * size;
  int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  long errors = 0;
  for (int length = 1; length < 66000; length = length * 2 + 1) {
    int *sbuf = malloc(2 * sizeof(int) * (size_t)length), *rbuf = malloc(2 * sizeof(int) * (size_t)length);
    for (int i = 0; i < length; ++i) {
      sbuf[i] = sbuf[i + length] = i + 100000 * rank;
      rbuf[i] = rbuf[i + length] = -1;
    }
    sc[left] = sc[right] = rc[left] = rc[right] = length;
    sd[left] = rd[left] = 0;
    sd[right] = rd[right] = length;
    MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm);
    for (int i = 0; i < length; ++i)
      errors += (rbuf[i] != i + 100000 * left) + (rbuf[i + length] != i + 100000 * right);
    free(sbuf);
    free(rbuf);
  }
  free(sc);
  return errors;
}

static long gather_ladder(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *rc = malloc(2 * sizeof(int) * (size_t)size), *rd = rc + size;
  long errors = 0;
  for (int count = 1; count < 9000; count *= 2) {
    double *in = malloc(sizeof(double) * (size_t)count);
    double *out = malloc(sizeof(double) * (size_t)count * (size_t)size);
    for (int i = 0; i < count; ++i)
      in[i] = rank * count + i;
    for (int j = 0; j < size; ++j) {
      rc[j] = count;
      rd[j] = j * count;
    }
    MPI_Allgatherv(in, count, MPI_DOUBLE, out, rc, rd, MPI_DOUBLE, comm);
    for (int i = 0; i < count * size; ++i)
      errors += out[i] != i;
    free(in);
    free(out);
  }
  free(rc);
  return errors;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 2 || argc > 3 || (strcmp(argv[1], "alltoallv") && strcmp(argv[1], "allgatherv"))) {
    fprintf(stderr, "usage: comm_family alltoallv|allgatherv [ROUNDS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int alltoallv = !strcmp(argv[1], "alltoallv"), rounds = argc == 3 ? atoi(argv[2]) : 1;
  long errors = 0;
  int comms = 0;
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < FAMILY; ++k) {
      MPI_Comm c = member(k);
      if (c == MPI_COMM_NULL)
        continue;
      errors += alltoallv ? halo(c) : gather_ladder(c);
      ++comms;
      MPI_Comm_free(&c);
    }
  long all = 0;
  /* PMPI_: the program's own tally, not a call under test (the
   * library serves MPI_Allreduce too) */
  PMPI_Allreduce(&errors, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (all)
      printf("comm_family: %ld wrong elements\n", all);
    else
      printf("comm_family: ok (%s on %d communicators)\n", argv[1], comms);
  }
  MPI_Finalize();
  return all != 0;
}

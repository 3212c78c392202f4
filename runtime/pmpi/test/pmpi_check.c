/* An ordinary MPI program, in the style of an MPI test suite, for
 * libcollc_pmpi: it calls MPI_Alltoall, MPI_Alltoallv and MPI_Allgatherv
 * (whoever provides them) and compares every byte of every result, gaps
 * included, with the MPI library's own collective on the same input
 * (PMPI_*). It runs as well without the library.
 *
 *   pmpi_check [--only alltoall] [--reps N] [--intracomm-only]
 *
 * --intracomm-only leaves out the intercommunicator call (which no plan
 * serves), so that under COLLC_STRICT=1 every call must be served.
 * --large adds alltoalls of 8 B, 1 KiB, 64 KiB and 1 MiB blocks, in place
 * and not, on every communicator, and alltoallvs and allgathervs of those
 * blocks on the world, the reordered one and ranks 0-2 (a plan set's
 * bands). The communicators: the world, a duplicate, halves, the world
 * reordered, and (4 ranks or more) a split into ranks 0-2 and the rest.
 *
 * Rank 0 prints the summary line libcollc_pmpi should print at MPI_Finalize
 * (COLLC_VERBOSE) if every call it can serve is served:
 *   pmpi_check: expect: collc_pmpi: rank 0: 52 calls served (40 cache hits, ...
 * Exit status 1 on any mismatch. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seen_keys.h"

enum { SENTINEL = 0xA5 };

typedef struct expect {
  long served, hits, binds, type, mismatch, inter;
} expect_t;

static expect_t g_expect;
static int g_failures;

static void expect_served(seen_t *seen, const char *key) {
  g_expect.served++;
  if (seen_before(seen, key))
    g_expect.hits++;
  else
    g_expect.binds++;
}

static void fill(uint8_t *p, size_t n, int rank, int rep) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (uint8_t)(rank * 131 + rep * 17 + i * 7 + 1);
}

/* Buffers at a different address every repetition, so that a cached bind
 * must really be rebound. */
typedef struct bufs {
  uint8_t *send_mem, *recv_mem, *ref_mem;
  uint8_t *send, *recv, *ref;
  size_t send_bytes, recv_bytes;
} bufs_t;

/* Set while a call repeats the one before it with the same counts: its
 * buffers move and its data change (the library only rebinds). */
static int g_again;

static void bufs_init(bufs_t *b, size_t send_bytes, size_t recv_bytes, int rank, int rep) {
  size_t shift = (size_t)((rep + g_again) % 3) * 16 + (size_t)g_again * 8;
  rep += 5 * g_again;
  b->send_mem = malloc(send_bytes + 64);
  b->recv_mem = malloc(recv_bytes + 64);
  b->ref_mem = malloc(recv_bytes + 64);
  if (!b->send_mem || !b->recv_mem || !b->ref_mem) {
    fprintf(stderr, "pmpi_check: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  b->send = b->send_mem + shift;
  b->recv = b->recv_mem + shift;
  b->ref = b->ref_mem + shift;
  b->send_bytes = send_bytes;
  b->recv_bytes = recv_bytes;
  fill(b->send, send_bytes, rank, rep);
  memset(b->recv, SENTINEL, recv_bytes);
  memset(b->ref, SENTINEL, recv_bytes);
}

/* Compares with the reference and frees. */
static void bufs_check(bufs_t *b, const char *what, MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (size_t i = 0; i < b->recv_bytes; ++i)
    if (b->recv[i] != b->ref[i]) {
      fprintf(stderr, "pmpi_check: %s: rank %d: byte %zu of %zu is 0x%02x, MPI gives 0x%02x\n",
              what, rank, i, b->recv_bytes, b->recv[i], b->ref[i]);
      g_failures++;
      break;
    }
  free(b->send_mem);
  free(b->recv_mem);
  free(b->ref_mem);
}

static size_t type_extent(MPI_Datatype t) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t, &lb, &extent);
  return (size_t)extent;
}

static void alltoall(MPI_Comm comm, seen_t *seen, MPI_Datatype type, const char *tname,
                     int count, int rep, int in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t bytes = (size_t)size * count * type_extent(type);
  bufs_t b;
  bufs_init(&b, bytes, bytes, rank, rep);
  char what[128];
  snprintf(what, sizeof what, "MPI_Alltoall(%d x %s%s)", count, tname, in_place ? ", in place" : "");
  if (in_place) {
    fill(b.recv, bytes, rank, rep);
    fill(b.ref, bytes, rank, rep);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.recv, count, type, comm);
    PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.ref, count, type, comm);
  } else {
    MPI_Alltoall(b.send, count, type, b.recv, count, type, comm);
    PMPI_Alltoall(b.send, count, type, b.ref, count, type, comm);
  }
  bufs_check(&b, what, comm);
  int size_of = 0;
  MPI_Type_size(type, &size_of);
  /* keyed by the block's bytes, whatever the datatype (non-contiguous ones
   * are packed) and in place or not */
  char key[96];
  snprintf(key, sizeof key, "a2a %lld", (long long)count * size_of);
  expect_served(seen, key);
}

/* Element counts with zeros, and blocks placed in reverse order with gaps:
 * rank r sends (r + 2j + rep) mod 4 elements to j, two patterns that
 * differ on every rank (rep even, rep odd). */
static int a2av_count(int from, int to, int rep) { return (from + 2 * to + rep % 2) % 4; }

static void alltoallv(MPI_Comm comm, seen_t *seen, MPI_Datatype type, const char *tname,
                      int rep, int in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *sc = malloc(4 * sizeof(int) * size), *sd = sc + size, *rc = sc + 2 * size,
      *rd = sc + 3 * size;
  for (int j = 0; j < size; ++j) {
    sc[j] = a2av_count(rank, j, rep);
    /* in place, each block goes where it came from: the counts must be
     * symmetric */
    rc[j] = in_place ? (rank + j + rep) % 3 : a2av_count(j, rank, rep);
  }
  int send_elems = 0, recv_elems = 0;
  for (int j = size - 1; j >= 0; --j) {
    sd[j] = send_elems;
    send_elems += sc[j] + 1;
    rd[j] = recv_elems + 2;
    recv_elems += rc[j] + 2;
  }
  size_t ext = type_extent(type);
  bufs_t b;
  bufs_init(&b, (size_t)send_elems * ext, (size_t)(recv_elems + 1) * ext, rank, rep);
  char what[128];
  snprintf(what, sizeof what, "MPI_Alltoallv(%s, rep %d%s)", tname, rep, in_place ? ", in place" : "");
  if (in_place) {
    fill(b.recv, b.recv_bytes, rank, rep);
    fill(b.ref, b.recv_bytes, rank, rep);
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b.recv, rc, rd, type, comm);
    PMPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b.ref, rc, rd, type, comm);
  } else {
    MPI_Alltoallv(b.send, sc, sd, type, b.recv, rc, rd, type, comm);
    PMPI_Alltoallv(b.send, sc, sd, type, b.ref, rc, rd, type, comm);
  }
  /* the test's v-plans recount locally: one bind per communicator serves
   * every pattern, in place or not */
  expect_served(seen, "a2av");
  bufs_check(&b, what, comm);
  free(sc);
}

static void allgatherv(MPI_Comm comm, seen_t *seen, MPI_Datatype type, const char *tname,
                       int rep, int in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *rc = malloc(2 * sizeof(int) * size), *rd = rc + size;
  /* MPICH 4.0.2's MPI_Allgatherv ignores displs[0] on a communicator of
   * one rank (it writes at the start of recvbuf): no leading gap there, so
   * that the reference is right */
  int elems = size > 1 ? 3 : 0;
  for (int j = size - 1; j >= 0; --j) {
    rc[j] = (3 * j + rep) % 5;
    rd[j] = elems;
    elems += rc[j] + 1;
  }
  size_t ext = type_extent(type);
  bufs_t b;
  bufs_init(&b, (size_t)rc[rank] * ext + 1, (size_t)elems * ext, rank, rep);
  char what[128];
  snprintf(what, sizeof what, "MPI_Allgatherv(%s, rep %d%s)", tname, rep, in_place ? ", in place" : "");
  if (in_place) {
    memcpy(b.recv + rd[rank] * ext, b.send, rc[rank] * ext);
    memcpy(b.ref + rd[rank] * ext, b.send, rc[rank] * ext);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.recv, rc, rd, type, comm);
    PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.ref, rc, rd, type, comm);
  } else {
    MPI_Allgatherv(b.send, rc[rank], type, b.recv, rc, rd, type, comm);
    PMPI_Allgatherv(b.send, rc[rank], type, b.ref, rc, rd, type, comm);
  }
  expect_served(seen, "agv");
  bufs_check(&b, what, comm);
  free(rc);
}

/* Send 2 MPI_INT per peer, receive 1 pair type: legal MPI (the type
 * signatures match), served as the 8-byte blocks both describe. */
static void alltoall_mismatch(MPI_Comm comm, seen_t *seen, MPI_Datatype pair) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t bytes = (size_t)size * 2 * sizeof(int);
  bufs_t b;
  bufs_init(&b, bytes, bytes, rank, 0);
  MPI_Alltoall(b.send, 2, MPI_INT, b.recv, 1, pair, comm);
  PMPI_Alltoall(b.send, 2, MPI_INT, b.ref, 1, pair, comm);
  bufs_check(&b, "MPI_Alltoall(2 x MPI_INT -> 1 x pair)", comm);
  expect_served(seen, "a2a 8");
}

static void intercomm_alltoall(MPI_Comm world) {
  int rank, size;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (size < 2)
    return;
  MPI_Comm half, inter;
  int color = rank % 2;
  MPI_Comm_split(world, color, rank, &half);
  MPI_Intercomm_create(half, 0, world, 1 - color, 7, &inter);
  int remote;
  MPI_Comm_remote_size(inter, &remote);
  size_t bytes = (size_t)remote * 3 * sizeof(int);
  bufs_t b;
  bufs_init(&b, bytes, bytes, rank, 0);
  MPI_Alltoall(b.send, 3, MPI_INT, b.recv, 3, MPI_INT, inter);
  PMPI_Alltoall(b.send, 3, MPI_INT, b.ref, 3, MPI_INT, inter);
  bufs_check(&b, "MPI_Alltoall on an intercommunicator", inter);
  g_expect.inter++;
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

/* Every rank sends `bytes` to every rank (alltoallv) or contributes
 * `bytes` (allgatherv), blocks placed in reverse rank order: a plan set's
 * bands for the v-collectives. */
static void v_blocks(MPI_Comm comm, seen_t *seen, int bytes, int allgather, int in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *c = malloc(2 * sizeof(int) * size), *d = c + size;
  for (int j = 0; j < size; ++j) {
    c[j] = bytes;
    d[j] = (size - 1 - j) * bytes;
  }
  size_t total = (size_t)size * bytes;
  bufs_t b;
  bufs_init(&b, allgather ? (size_t)bytes + 1 : total, total, rank, bytes);
  char what[128];
  snprintf(what, sizeof what, "%s(%d B blocks%s)", allgather ? "MPI_Allgatherv" : "MPI_Alltoallv",
           bytes, in_place ? ", in place" : "");
  if (in_place) {
    if (allgather) {
      memcpy(b.recv + d[rank], b.send, bytes);
      memcpy(b.ref + d[rank], b.send, bytes);
    } else {
      fill(b.recv, total, rank, bytes);
      fill(b.ref, total, rank, bytes);
    }
  }
  const void *sb = in_place ? MPI_IN_PLACE : b.send;
  if (allgather) {
    MPI_Allgatherv(sb, bytes, MPI_BYTE, b.recv, c, d, MPI_BYTE, comm);
    PMPI_Allgatherv(sb, bytes, MPI_BYTE, b.ref, c, d, MPI_BYTE, comm);
  } else {
    MPI_Alltoallv(sb, c, d, MPI_BYTE, b.recv, c, d, MPI_BYTE, comm);
    PMPI_Alltoallv(sb, c, d, MPI_BYTE, b.ref, c, d, MPI_BYTE, comm);
  }
  /* keyed as the other v-calls: the test's v-plans recount */
  expect_served(seen, allgather ? "agv" : "a2av");
  bufs_check(&b, what, comm);
  free(c);
}

/* Every served kind of call on one communicator, each pattern repeated with
 * alternating counts so that the cache both misses and hits. */
static int g_large;

static void served_battery(MPI_Comm comm, seen_t *seen, MPI_Datatype triple, int reps,
                           int only_alltoall, int large_v) {
  static const int large[] = {8, 1 << 10, 1 << 16, 1 << 20};
  for (int rep = 0; g_large && rep < 2; ++rep)
    for (int k = 0; k < 4; ++k) {
      alltoall(comm, seen, MPI_BYTE, "MPI_BYTE", large[k], rep, rep);
      if (!only_alltoall && large_v) {
        v_blocks(comm, seen, large[k], 0, rep);
        v_blocks(comm, seen, large[k], 1, rep);
      }
    }
  for (int rep = 0; rep < reps; ++rep) {
    alltoall(comm, seen, MPI_INT, "MPI_INT", 5 + rep % 2, rep, 0);
    alltoall(comm, seen, MPI_DOUBLE, "MPI_DOUBLE", 3, rep, 0);
    alltoall(comm, seen, MPI_BYTE, "MPI_BYTE", 1001, rep, 0);
    alltoall(comm, seen, triple, "contiguous(3, MPI_INT)", 2, rep, 0);
    if (only_alltoall)
      continue;
    alltoall(comm, seen, MPI_INT, "MPI_INT", 0, rep, 0);
    alltoallv(comm, seen, MPI_INT, "MPI_INT", rep, 0);
    /* the same counts again, at once, on moved buffers with new data */
    g_again = 1;
    alltoallv(comm, seen, MPI_INT, "MPI_INT", rep, 0);
    g_again = 0;
    alltoallv(comm, seen, MPI_DOUBLE, "MPI_DOUBLE", rep, 0);
    allgatherv(comm, seen, MPI_INT, "MPI_INT", rep % 2, 0);
    g_again = 1;
    allgatherv(comm, seen, MPI_INT, "MPI_INT", rep % 2, 0);
    g_again = 0;
    allgatherv(comm, seen, triple, "contiguous(3, MPI_INT)", rep % 2, 0);
    /* MPI_IN_PLACE: served as the out-of-place call on the receive
     * buffer's contents (the same cache entries) */
    alltoall(comm, seen, MPI_INT, "MPI_INT", 5 + rep % 2, rep, 1);
    alltoallv(comm, seen, MPI_INT, "MPI_INT", rep, 1);
    allgatherv(comm, seen, MPI_INT, "MPI_INT", rep % 2, 1);
    allgatherv(comm, seen, triple, "contiguous(3, MPI_INT)", rep % 2, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int reps = 4, only_alltoall = 0, intracomm_only = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--only") && i + 1 < argc && !strcmp(argv[i + 1], "alltoall"))
      only_alltoall = 1, ++i;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--intracomm-only"))
      intracomm_only = 1;
    else if (!strcmp(argv[i], "--large"))
      g_large = 1;
    else {
      fprintf(stderr, "usage: pmpi_check [--only alltoall] [--reps N] [--intracomm-only] [--large]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype triple, pair, strided;
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided); /* ints 0 and 2 of 3 */
  MPI_Type_commit(&triple);
  MPI_Type_commit(&pair);
  MPI_Type_commit(&strided);

  seen_t *world = calloc(1, sizeof *world), *other = calloc(4, sizeof *other);
  served_battery(MPI_COMM_WORLD, world, triple, reps, only_alltoall, 1);
  if (!only_alltoall) {
    /* communicators: a duplicate, a split into halves, a reordered one;
     * each freed, with its cache, after use */
    MPI_Comm dup, split, reordered;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    served_battery(dup, &other[0], triple, 2, 0, 0);
    MPI_Comm_free(&dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    served_battery(split, &other[1], triple, 2, 0, 0);
    MPI_Comm_free(&split);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reordered);
    served_battery(reordered, &other[2], triple, 2, 0, 1);
    MPI_Comm_free(&reordered);
    if (size >= 4) { /* an odd size: ranks 0-2, and the rest */
      MPI_Comm three;
      MPI_Comm_split(MPI_COMM_WORLD, rank < 3, rank, &three);
      served_battery(three, &other[3], triple, 2, 0, 1);
      MPI_Comm_free(&three);
    }

    /* what must fall back (intercommunicators), and datatypes that are
     * packed (in place too) or differ between the sides; all must be right */
    alltoall(MPI_COMM_WORLD, world, strided, "vector(2, 1, 2, MPI_INT)", 3, 0, 0);
    alltoall(MPI_COMM_WORLD, world, strided, "vector(2, 1, 2, MPI_INT)", 3, 1, 1);
    alltoall_mismatch(MPI_COMM_WORLD, world, pair);
    if (!intracomm_only)
      intercomm_alltoall(MPI_COMM_WORLD);
  }
  free(world);
  free(other);
  MPI_Type_free(&triple);
  MPI_Type_free(&pair);
  MPI_Type_free(&strided);

  int failures = 0;
  /* PMPI_: the program's own tally, not a call under test (the
   * library serves MPI_Allreduce too) */
  PMPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    const expect_t *e = &g_expect;
    long fell = e->type + e->mismatch + e->inter;
    char reasons[256] = "";
    if (fell) {
      /* the library's reason order (runtime/pmpi/pmpi.h) */
      int at = snprintf(reasons, sizeof reasons, " (");
      const char *sep = "";
      if (e->inter)
        at += snprintf(reasons + at, sizeof reasons - at, "%sintercommunicator: %ld", sep, e->inter), sep = ", ";
      if (e->mismatch)
        at += snprintf(reasons + at, sizeof reasons - at, "%stype mismatch: %ld", sep, e->mismatch), sep = ", ";
      if (e->type)
        at += snprintf(reasons + at, sizeof reasons - at, "%snon-contiguous type: %ld", sep, e->type);
      snprintf(reasons + at, sizeof reasons - at, ")");
    }
    printf("pmpi_check: expect: collc_pmpi: rank 0: %ld calls served (%ld cache hits, %ld binds), %ld fell back to MPI%s\n",
           e->served, e->hits, e->binds, fell, reasons);
    printf("pmpi_check: %s (%d mismatches)\n", failures ? "FAILED" : "ok", failures);
    fflush(stdout);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}

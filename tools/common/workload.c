/* collc-run's data conventions (tools/collc-run/collc-run.c), shared with
 * the benchmarks. */
#include "workload.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "collc/plan_format.h"

static const char *const names[WL_NDIST_] = {"regular", "bcast",     "spike", "half",
                                             "linear",  "geometric", "random"};

int wl_dist_parse(const char *name, wl_dist_t *out) {
  for (int k = 0; k < WL_NDIST_; ++k)
    if (!strcmp(name, names[k])) {
      *out = (wl_dist_t)k;
      return 0;
    }
  return -1;
}

const char *wl_dist_name(wl_dist_t d) { return d < WL_NDIST_ ? names[d] : "?"; }

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* m(i), the distribution over an index i in [0, P) */
static long long dist_value(const wl_t *w, int i) {
  long long N = w->bytes;
  switch (w->dist) {
  case WL_REGULAR: return N;
  case WL_BCAST: return i == 0 ? N : 0;
  case WL_SPIKE: return i == w->P / 2 ? N : 1;
  case WL_HALF: return i % 2 ? 0 : N;
  case WL_LINEAR: return N * (i + 1) / w->P;
  case WL_GEOMETRIC: return i >= 63 ? 0 : N >> i;
  case WL_RANDOM: {
    uint64_t r = splitmix64(w->seed * 0x100000001B3ull + (uint64_t)i);
    return (r & 3) == 0 || N == 0 ? 0 : 1 + (long long)((r >> 2) % (uint64_t)N);
  }
  case WL_NDIST_: break;
  }
  return N;
}

/* alltoallv: s sends m((s + d) mod P) to d, except bcast and spike, where the
 * sender's index decides */
static int pair_count(const wl_t *w, int s, int d) {
  int idx = (w->dist == WL_BCAST || w->dist == WL_SPIKE) ? s : (s + d) % w->P;
  return (int)dist_value(w, idx);
}

/* The buffer's length, or 0 if a displacement would pass INT_MAX. */
static size_t layout(int P, const int *counts, int *displs) {
  size_t off = 1;
  for (int j = P - 1; j >= 0; --j) {
    if (off > INT_MAX)
      return 0;
    displs[j] = (int)off;
    off += (size_t)counts[j] + 1 + (size_t)(j % 3);
  }
  return off;
}

int wl_init(wl_t *w, int op, MPI_Comm comm, long long bytes, wl_dist_t dist, uint64_t seed) {
  memset(w, 0, sizeof *w);
  w->op = op;
  w->bytes = bytes;
  w->dist = dist;
  w->seed = seed;
  MPI_Comm_size(comm, &w->P);
  MPI_Comm_rank(comm, &w->rank);
  int P = w->P;
  w->sc = calloc((size_t)P, sizeof(int));
  w->sd = calloc((size_t)P, sizeof(int));
  w->rc = calloc((size_t)P, sizeof(int));
  w->rd = calloc((size_t)P, sizeof(int));
  if (!w->sc || !w->sd || !w->rc || !w->rd)
    return -1;
  if (bytes < 0 || bytes > INT_MAX)
    return WL_ERANGE;
  if (op == COLLRT_OP_ALLTOALL) {
    if (P > 1 && bytes > INT_MAX / (P - 1)) /* the last block's displacement */
      return WL_ERANGE;
    w->count = (int)bytes;
    w->send_len = w->recv_len = (size_t)P * (size_t)bytes;
    for (int j = 0; j < P; ++j) {
      w->sc[j] = w->rc[j] = w->count;
      w->sd[j] = w->rd[j] = j * w->count;
    }
  } else if (op == COLLRT_OP_ALLREDUCE || op == COLLRT_OP_BCAST) {
    /* one message; allreduce: bytes, elements once the caller sets esize */
    w->count = (int)bytes;
    w->send_len = w->recv_len = (size_t)bytes;
    for (int j = 0; j < P; ++j)
      w->sc[j] = w->rc[j] = w->count;
  } else if (op == COLLRT_OP_ALLTOALLV) {
    for (int j = 0; j < P; ++j) {
      w->sc[j] = pair_count(w, w->rank, j);
      w->rc[j] = pair_count(w, j, w->rank);
    }
    w->send_len = layout(P, w->sc, w->sd);
    w->recv_len = layout(P, w->rc, w->rd);
    if (!w->send_len || !w->recv_len)
      return WL_ERANGE;
  } else {
    for (int j = 0; j < P; ++j)
      w->rc[j] = (int)dist_value(w, j);
    w->count = w->rc[w->rank];
    w->send_len = (size_t)w->count;
    w->recv_len = layout(P, w->rc, w->rd);
    if (!w->recv_len)
      return WL_ERANGE;
  }
  return 0;
}

void wl_free(wl_t *w) {
  free(w->sc);
  free(w->sd);
  free(w->rc);
  free(w->rd);
  memset(w, 0, sizeof *w);
}

void wl_fill_send(const wl_t *w, uint8_t *send, int iter) {
  if (w->is_double) { /* finite values in [-1, 1), so sums stay ordinary */
    for (size_t k = 0; k + sizeof(double) <= w->send_len; k += sizeof(double)) {
      uint64_t z = splitmix64(((uint64_t)w->rank << 40) ^ ((uint64_t)iter << 32) ^ k);
      double v = (double)(z >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      memcpy(send + k, &v, sizeof v);
    }
    return;
  }
  if (w->is_float) { /* the same for float */
    for (size_t k = 0; k + sizeof(float) <= w->send_len; k += sizeof(float)) {
      uint64_t z = splitmix64(((uint64_t)w->rank << 40) ^ ((uint64_t)iter << 32) ^ k);
      float v = (float)((double)(z >> 40) / 16777216.0 * 2.0 - 1.0);
      memcpy(send + k, &v, sizeof v);
    }
    return;
  }
  for (size_t k = 0; k < w->send_len; ++k)
    send[k] = (uint8_t)(splitmix64(((uint64_t)w->rank << 40) ^ ((uint64_t)iter << 32) ^ k) >> 56);
}

void wl_prefill_recv(const wl_t *w, uint8_t *recv, int iter) {
  for (size_t k = 0; k < w->recv_len; ++k)
    recv[k] = (uint8_t)(0x5A ^ k ^ (size_t)iter);
}

int wl_native(const wl_t *w, const uint8_t *send, uint8_t *recv, MPI_Comm comm) {
  /* MPICH 4.0.2's MPI_Allgatherv on one rank ignores displs; do what the
   * standard says (as collc-run does). */
  if (w->op == COLLRT_OP_ALLGATHERV && w->P == 1) {
    memcpy(recv + w->rd[0], send, (size_t)w->count);
    return MPI_SUCCESS;
  }
  if (w->op == COLLRT_OP_ALLREDUCE)
    return MPI_Allreduce(send, recv, w->count / w->esize, w->mpi_type, w->mpi_op, comm);
  if (w->op == COLLRT_OP_BCAST) { /* rank 0's send buffer to every rank */
    if (w->rank == 0)
      memcpy(recv, send, (size_t)w->count);
    return MPI_Bcast(recv, w->count, MPI_BYTE, 0, comm);
  }
  if (w->op == COLLRT_OP_ALLTOALL)
    return MPI_Alltoall(send, w->count, MPI_BYTE, recv, w->count, MPI_BYTE, comm);
  if (w->op == COLLRT_OP_ALLTOALLV)
    return MPI_Alltoallv(send, w->sc, w->sd, MPI_BYTE, recv, w->rc, w->rd, MPI_BYTE, comm);
  return MPI_Allgatherv(send, w->count, MPI_BYTE, recv, w->rc, w->rd, MPI_BYTE, comm);
}

/* The data collc-run runs plans on, shared with the benchmarks that must
 * reproduce it (collc-twin): count distributions, buffer layout and byte
 * patterns. collc-run's header comment is the specification; a tool built on
 * this header runs the same messages as
 * `collc-run --bytes N --counts D --seed S`. */
#ifndef COLLC_TOOLS_WORKLOAD_H
#define COLLC_TOOLS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

typedef enum {
  WL_REGULAR, WL_BCAST, WL_SPIKE, WL_HALF, WL_LINEAR, WL_GEOMETRIC, WL_RANDOM, WL_NDIST_
} wl_dist_t;

typedef struct wl {
  int op;                 /* collrt_op_t */
  int P, rank;
  long long bytes;        /* --bytes */
  wl_dist_t dist;
  uint64_t seed;
  int *sc, *sd, *rc, *rd; /* counts and displacements in bytes, P each */
  int count;              /* alltoall block / allgatherv sendcount / allreduce, bcast message */
  size_t send_len, recv_len;
  /* allreduce (set by the caller after wl_init): MPI's own datatype and
   * operation for the plan's REDUCE steps, the element size, and whether
   * the elements are doubles or floats (filled with finite values) */
  MPI_Datatype mpi_type;
  MPI_Op mpi_op;
  int esize, is_double, is_float;
} wl_t;

/* 0 and *out set if `name` is a distribution, else -1. */
int wl_dist_parse(const char *name, wl_dist_t *out);
const char *wl_dist_name(wl_dist_t d);

/* Counts, displacements and buffer lengths of this rank of `comm`, laid out
 * as collc-run does (v-collectives: reverse rank order, gaps of 1..3 bytes).
 * Returns -1 if out of memory, WL_ERANGE if a count or displacement would
 * pass INT_MAX (they are int in the MPI-3 interface: MPI_Alltoallv's and
 * collrt_bind_*'s arrays). */
enum { WL_ERANGE = -2 };
int wl_init(wl_t *w, int op, MPI_Comm comm, long long bytes, wl_dist_t dist, uint64_t seed);
void wl_free(wl_t *w);

/* Send data of iteration `iter` (collc-run's pattern, a function of rank,
 * offset and iteration). */
void wl_fill_send(const wl_t *w, uint8_t *send, int iter);
/* Position-dependent receive pre-fill: buffers pre-filled alike must stay
 * alike in the gaps no message writes. */
void wl_prefill_recv(const wl_t *w, uint8_t *recv, int iter);
/* MPI's own collective on the same arguments; an MPI error code. */
int wl_native(const wl_t *w, const uint8_t *send, uint8_t *recv, MPI_Comm comm);

#endif

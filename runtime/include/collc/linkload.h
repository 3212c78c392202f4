/* Link loads of a plan on its torus: every network message of every rank,
 * as the expansion produces it (the same collrt_expand the engine and the
 * simulator run), routed over the plan's topology, with the bytes summed
 * per directed link. The cost model's contention term is a formula for a
 * pattern; this is the plan's own traffic, so it sees what a schedule
 * really puts on its hottest link (a tie overloading one direction, a
 * forwarding phase, a row of a virtual mesh).
 *
 * Routing, as SimGrid's TORUS zone and most deterministic routers do it:
 * dimension by dimension (x, then y, then z), the shorter way round a
 * wrapped dimension; a tie (offset exactly n/2 on an even ring) goes +,
 * except from coordinate n/2, where it goes - (TorusZone.cpp). With
 * `adaptive`, a tie's bytes split evenly over both ways (BG/L). A mesh
 * dimension (not wrapped) has one way. Ranks of one node (r / ranks per
 * node) exchange without touching a link.
 *
 * Scale. Up to `max_expanded` ranks every rank is expanded, one at a time
 * (memory: one rank's steps). Above, `max_expanded` ranks spread evenly over
 * the communicator are expanded and each directed link is charged the mean
 * load of its class (dimension, direction) scaled to all ranks: exact for a
 * plan whose traffic is the same from every node up to translation (direct,
 * balanced, two-phase and virtual-mesh alltoall on a torus), an estimate
 * otherwise. The result says which it was. */
#ifndef COLLC_LINKLOAD_H
#define COLLC_LINKLOAD_H

#include <stdint.h>

#include "collc/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct collrt_link_load_input {
  int64_t block_bytes; /* alltoall(v): bytes per (source, destination) pair;
                          allgatherv: bytes per contribution */
  int adaptive;        /* ties split over both ways */
  int max_expanded;    /* expand every rank up to this many (>= 1) */
} collrt_link_load_input_t;

typedef struct collrt_link_load {
  int ranks;              /* P = prod(shape) * ranks per node */
  int expanded;           /* ranks expanded (== ranks: exact) */
  double hot_bytes;       /* bytes on the most loaded directed link */
  uint32_t hot_node;      /* its source node (x fastest) */
  int hot_dim, hot_dir;   /* its dimension and direction (+1 / -1) */
  double link_bytes;      /* sum over links of their bytes (= bytes x hops) */
  uint32_t links;         /* directed links of the topology */
  uint64_t max_messages;  /* most network messages of one rank */
  uint64_t messages;      /* network messages of all ranks (scaled if sampled) */
  int64_t max_scratch;    /* most scratch bytes of one rank */
  double hot_us;          /* hot_bytes at the plan's beta */
  double alpha_us;        /* max_messages at the plan's alpha */
} collrt_link_load_t;

/* A plan with a bind-time exchange is routed after the exchange, done in
 * memory for every rank as the simulator does it, up to 1024 ranks (above:
 * ERR_ARG, saying so); and never sampled. Fails with the expansion's
 * errors. */
collrt_status_t collrt_link_load(const collrt_plan_t *plan,
                                 const collrt_link_load_input_t *input,
                                 collrt_link_load_t *out, collrt_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif /* COLLC_LINKLOAD_H */

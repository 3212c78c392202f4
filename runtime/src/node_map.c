/* Which ranks share a node, as MPI reports it, and the check of a plan's
 * ranks_per_node against it.
 *
 * A plan compiled for SMP nodes (ranks_per_node = C > 1) assumes rank r
 * lives on node r / C: its schedule gathers at node leaders, spreads a
 * node's traffic over its cores, and its on-node messages are the ones the
 * shared-memory transport carries. Run on another layout it would still
 * move the right bytes, but every "on-node" message would cross the network
 * and the schedule would be the wrong one, so bind refuses it and says what
 * MPI reported. A plan with C = 1 makes no claim about nodes and runs on any
 * layout.
 *
 * COLLRT_NODE_SIZE=N (a test knob) splits each node's ranks, in rank order,
 * into groups of N, so a one-machine run can stand for several nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"
#include "diag.h"
#include "env.h"

/* "4, 5, 6" (at most 16 ranks, then "..."). */
static void list_ranks(char *out, size_t cap, const int *ranks, int n) {
  size_t len = 0;
  out[0] = 0;
  for (int k = 0; k < n && len + 16 < cap; ++k) {
    if (k == 16) {
      snprintf(out + len, cap - len, ", ...");
      return;
    }
    len += (size_t)snprintf(out + len, cap - len, "%s%d", k ? ", " : "", ranks[k]);
  }
}

static collrt_status_t check_layout(const collrt_node_t *node, int rank, int size,
                                    unsigned rpn, collrt_diag_t *diag) {
  int first = rank / (int)rpn * (int)rpn;
  int expect = size - first < (int)rpn ? size - first : (int)rpn;
  int ok = node->size == expect;
  for (int k = 0; ok && k < node->size; ++k)
    ok = node->members[k] == first + k;
  if (ok)
    return COLLRT_OK;
  char found[160];
  list_ranks(found, sizeof found, node->members, node->size);
  collrt_diag_set(diag, "the plan expects %u ranks per node (rank r on node r / %u: ranks %d..%d together), but MPI puts rank %d on a node with %d rank%s: %s. Start %u consecutive ranks per node, or compile the plan for this layout (COLLRT_NODE_SIZE=N splits nodes into groups of N ranks, for tests)",
                  rpn, rpn, first, first + expect - 1, rank, node->size,
                  node->size == 1 ? "" : "s", found, rpn);
  return COLLRT_ERR_COMM_MISMATCH;
}

collrt_status_t collrt_node_map(MPI_Comm comm, const collrt_plan_t *plan, collrt_node_t *node,
                                collrt_diag_t *diag) {
  memset(node, 0, sizeof *node);
  node->comm = MPI_COMM_NULL;
  node->win = MPI_WIN_NULL;
  node->size = node->hw_size = 1;
  int rank = 0, size = 1, rc;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm hw;
  /* key = rank: local indices follow the communicator's order */
  if ((rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &hw)))
    return collrt_mpi_error(diag, rc, "MPI_Comm_split_type (the node of each rank)");
  int hw_index = 0;
  MPI_Comm_size(hw, &node->hw_size);
  MPI_Comm_rank(hw, &hw_index);
  /* COLLRT_NODE_SIZE: 0 if unset; a malformed one is this rank's error
   * (env.c), reported once every rank has split */
  long long knob = 0;
  collrt_diag_t knob_diag = {{0}};
  collrt_status_t knob_st = collrt_env_int("COLLRT_NODE_SIZE", &knob, &knob_diag);
  /* every rank splits, whatever its knob says, so that none is left waiting */
  rc = MPI_Comm_split(hw, knob > 0 ? hw_index / (int)knob : 0, hw_index, &node->comm);
  MPI_Comm_free(&hw);
  if (rc)
    return collrt_mpi_error(diag, rc, "MPI_Comm_split (COLLRT_NODE_SIZE groups)");
  MPI_Comm_size(node->comm, &node->size);
  if (!(node->members = malloc((size_t)node->size * sizeof *node->members))) {
    collrt_diag_set(diag, "cannot allocate the node map (%d ranks)", node->size);
    return COLLRT_ERR_NOMEM;
  }
  if ((rc = MPI_Allgather(&rank, 1, MPI_INT, node->members, 1, MPI_INT, node->comm)))
    return collrt_mpi_error(diag, rc, "MPI_Allgather (the ranks of this node)");
  if (knob_st) {
    collrt_diag_set(diag, "%s", knob_diag.message);
    return knob_st;
  }
  unsigned rpn = collrt_plan_desc(plan)->ranks_per_node;
  return rpn > 1 ? check_layout(node, rank, size, rpn, diag) : COLLRT_OK;
}

void collrt_node_free(collrt_node_t *node) {
  collrt_shm_free(node);
  collrt_node_bell_free(node);
  if (node->comm != MPI_COMM_NULL)
    MPI_Comm_free(&node->comm);
  free(node->members);
  free(node->peer);
  free(node->desc);
  free(node->pending);
  memset(node, 0, sizeof *node);
  node->comm = MPI_COMM_NULL;
  node->win = MPI_WIN_NULL;
}

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

collrt_status_t collrt_node_map(const collrt_comm_ctx_t *ctx, int rank, int size,
                                const collrt_plan_t *plan, collrt_node_t *node,
                                collrt_diag_t *diag) {
  memset(node, 0, sizeof *node);
  node->win = MPI_WIN_NULL;
  if (!ctx->node_ready) { /* the bind needs none (bind.c): each rank alone */
    node->comm = MPI_COMM_NULL;
    node->size = 1;
    node->hw_size = collrt_comm_ctx_known_hw_size();
    node->borrowed = 1;
    node->unmapped = 1;
    return COLLRT_OK;
  }
  /* the communicator's map, borrowed: made once per communicator */
  node->comm = ctx->node_comm;
  node->size = ctx->node_size;
  node->hw_size = ctx->hw_size;
  node->members = ctx->members;
  node->borrowed = 1;
  unsigned rpn = collrt_plan_desc(plan)->ranks_per_node;
  return rpn > 1 ? check_layout(node, rank, size, rpn, diag) : COLLRT_OK;
}

void collrt_node_free(collrt_node_t *node) {
  collrt_shm_free(node);
  collrt_node_bell_free(node);
  if (!node->borrowed) {
    if (node->comm != MPI_COMM_NULL)
      MPI_Comm_free(&node->comm);
    free(node->members);
  }
  free(node->peer);
  free(node->desc);
  free(node->pending);
  memset(node, 0, sizeof *node);
  node->comm = MPI_COMM_NULL;
  node->win = MPI_WIN_NULL;
}

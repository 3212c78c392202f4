/* The bound collective shared by bind (construction), engine (execution) and
 * trace (output). */
#ifndef COLLRT_COLL_INTERNAL_H
#define COLLRT_COLL_INTERNAL_H

#include "collc/collrt.h"
#include "fifo_queue.h"

struct collrt_coll {
  MPI_Comm comm; /* the user's communicator (not owned) */
  int rank, size;
  unsigned flags;
  int nfifos;
  MPI_Comm fifo_comm[COLLRT_MAX_FIFOS]; /* one private duplicate per FIFO */
  uint8_t *buf[COLLRT_BUF_COUNT_];      /* send, receive, scratch (owned) */
  collrt_steps_t steps;
  MPI_Datatype *dtype; /* per step: a gathered message's layout, or NULL array */
  collrt_fifo_queue_t fq;
  int fq_ready;
  MPI_Request *reqs;   /* outstanding requests, compact */
  uint32_t *req_step;  /* step of each outstanding request */
  int *indices;        /* MPI_Testsome / MPI_Waitsome output */
  MPI_Status *statuses; /* (MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow) */
  int nactive;
  uint32_t *copy_step; /* copies under way, done in chunks between polls */
  int64_t *copy_done;  /* bytes of each copied so far */
  int ncopying;
  collrt_wait_policy_t wait_policy; /* what collrt_wait does when idle */
  int running;         /* between start and the completion seen by test/wait */
  double t_start;      /* MPI_Wtime at the last start (with COLLRT_BIND_TRACE) */
  double *t_issue, *t_done; /* per step, with COLLRT_BIND_TRACE */
};

/* Cancels and frees the requests of an abandoned run (engine.c). */
void collrt_engine_abandon(collrt_coll_t *c);

/* The MPI datatype of gathered step i: its segments as an hindexed type over
 * ABSOLUTE addresses in c->buf, so one message moves them with no pack copy.
 * `lens` and `displs` have room for the step's segments. Shared by bind and
 * collrt_coll_rebind (a new buffer address needs a new type). */
collrt_status_t collrt_gathered_type(const collrt_coll_t *c, size_t i, int *lens,
                                     MPI_Aint *displs, MPI_Datatype *out,
                                     collrt_diag_t *diag);

#endif

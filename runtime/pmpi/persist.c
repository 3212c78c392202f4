/* MPI-4 persistent collectives served by plans. MPI_Alltoall_init (and its
 * v and allgatherv twins) bind a plan once (intercept.c); the application
 * keeps the native persistent request MPI created, which is never started.
 * This file maps such a request to its bound plan and intercepts every call
 * that starts, completes or frees a request: requests of ours run the plan,
 * all others go to MPI unchanged. A mixed set (ours and MPI's) is completed
 * by polling both, so neither waits behind the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

typedef struct persistent {
  MPI_Request req;
  collrt_coll_t *coll;
  MPI_Comm comm;
  const char *what;
  int active;
} persistent_t;

static persistent_t *table;
static size_t count, cap;

/* The runtime's engine calls MPI_Test*, MPI_Wait* itself: while a plan
 * runs (busy), those go straight to MPI. */
#define PASS_THROUGH() (g_pmpi.busy || !count)

static collrt_status_t run_start(collrt_coll_t *c, collrt_diag_t *d) {
  g_pmpi.busy = 1;
  collrt_status_t st = collrt_start(c, d);
  g_pmpi.busy = 0;
  return st;
}
static collrt_status_t run_test(collrt_coll_t *c, int *done, collrt_diag_t *d) {
  g_pmpi.busy = 1;
  collrt_status_t st = collrt_test(c, done, d);
  g_pmpi.busy = 0;
  return st;
}
static collrt_status_t run_wait(collrt_coll_t *c, collrt_diag_t *d) {
  g_pmpi.busy = 1;
  collrt_status_t st = collrt_wait(c, d);
  g_pmpi.busy = 0;
  return st;
}

int pmpi_persistent_add(MPI_Request req, collrt_coll_t *coll, MPI_Comm comm, const char *what) {
  if (count == cap) {
    size_t ncap = cap ? 2 * cap : 16;
    persistent_t *n = realloc(table, ncap * sizeof *n);
    if (!n) {
      collrt_coll_free(coll);
      return MPI_ERR_NO_MEM;
    }
    table = n;
    cap = ncap;
  }
  persistent_t p = {req, coll, comm, what, 0};
  table[count++] = p;
  return MPI_SUCCESS;
}

static persistent_t *find(MPI_Request req) {
  if (req == MPI_REQUEST_NULL)
    return NULL;
  for (size_t k = 0; k < count; ++k)
    if (table[k].req == req)
      return &table[k];
  return NULL;
}

/* A completed collective has no source, tag or error to report. */
static void empty_status(MPI_Status *status) {
  if (status == MPI_STATUS_IGNORE)
    return;
  memset(status, 0, sizeof *status);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
}

static int plan_failed(persistent_t *p, const collrt_diag_t *diag) {
  fprintf(stderr, "collc_pmpi: %s: the plan failed while running: %s\n", p->what,
          diag->message);
  p->active = 0;
  PMPI_Comm_call_errhandler(p->comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

static int start(persistent_t *p) {
  collrt_diag_t diag = {{0}};
  if (run_start(p->coll, &diag))
    return plan_failed(p, &diag);
  p->active = 1;
  g_pmpi.stats.persistent_starts++;
  return MPI_SUCCESS;
}

/* Advances an active plan; *done = 1 once it completed (or was inactive). */
static int poll(persistent_t *p, int *done) {
  *done = 1;
  if (!p->active)
    return MPI_SUCCESS;
  collrt_diag_t diag = {{0}};
  if (run_test(p->coll, done, &diag))
    return plan_failed(p, &diag);
  if (*done)
    p->active = 0;
  return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *request) {
  persistent_t *p = PASS_THROUGH() || !request ? NULL : find(*request);
  return p ? start(p) : PMPI_Start(request);
}

int MPI_Startall(int n, MPI_Request requests[]) {
  if (PASS_THROUGH())
    return PMPI_Startall(n, requests);
  for (int k = 0; k < n; ++k) {
    persistent_t *p = find(requests[k]);
    int rc = p ? start(p) : PMPI_Start(&requests[k]);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request) {
  persistent_t *p = PASS_THROUGH() || !request ? NULL : find(*request);
  if (p) {
    if (p->active) /* MPI: freeing an active request is erroneous; finish it */
      run_wait(p->coll, NULL);
    collrt_coll_free(p->coll);
    *p = table[--count];
  }
  return PMPI_Request_free(request);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  persistent_t *p = PASS_THROUGH() || !request ? NULL : find(*request);
  if (!p)
    return PMPI_Test(request, flag, status);
  int rc = poll(p, flag);
  if (rc == MPI_SUCCESS && *flag)
    empty_status(status);
  return rc;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  persistent_t *p = PASS_THROUGH() || !request ? NULL : find(*request);
  if (!p)
    return PMPI_Wait(request, status);
  if (p->active) {
    collrt_diag_t diag = {{0}};
    if (run_wait(p->coll, &diag))
      return plan_failed(p, &diag);
    p->active = 0;
  }
  empty_status(status);
  return MPI_SUCCESS;
}

/* How a request set splits: ours (polled here) and MPI's (polled through a
 * copy in which ours are MPI_REQUEST_NULL, which MPI treats as done). */
typedef struct split {
  int n, ours;
  persistent_t **p; /* per request: ours, or NULL */
  MPI_Request *native;
} split_t;

static int split(split_t *s, int n, const MPI_Request requests[]) {
  s->n = n;
  s->ours = 0;
  s->p = calloc((size_t)n + 1, sizeof *s->p);
  s->native = malloc(((size_t)n + 1) * sizeof *s->native);
  if (!s->p || !s->native) {
    free(s->p);
    free(s->native);
    return MPI_ERR_NO_MEM;
  }
  for (int k = 0; k < n; ++k) {
    s->p[k] = find(requests[k]);
    s->native[k] = s->p[k] ? MPI_REQUEST_NULL : requests[k];
    s->ours += s->p[k] != NULL;
  }
  return MPI_SUCCESS;
}

/* MPI's completions write its entries back (a completed nonpersistent
 * request becomes MPI_REQUEST_NULL). */
static void merge(split_t *s, MPI_Request requests[]) {
  for (int k = 0; k < s->n; ++k)
    if (!s->p[k])
      requests[k] = s->native[k];
  free(s->p);
  free(s->native);
}

int MPI_Testall(int n, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  if (PASS_THROUGH())
    return PMPI_Testall(n, requests, flag, statuses);
  split_t s;
  int rc = split(&s, n, requests);
  if (rc != MPI_SUCCESS)
    return rc;
  /* MPI_Testall reports nothing unless everything is complete: a plan of
   * ours that finished is marked inactive at once (the collective must not
   * be tested again; the caller sees it complete with the rest), then MPI's
   * set is tested, and completed, as a whole */
  int all = 1;
  for (int k = 0; k < n && rc == MPI_SUCCESS; ++k)
    if (s.p[k] && s.p[k]->active) {
      int done = 0;
      rc = poll(s.p[k], &done);
      all &= done;
    }
  int native_done = 0;
  if (rc == MPI_SUCCESS && all)
    rc = PMPI_Testall(n, s.native, &native_done, statuses);
  *flag = rc == MPI_SUCCESS && all && native_done;
  if (*flag)
    for (int k = 0; k < n; ++k)
      if (s.p[k]) {
        s.p[k]->active = 0;
        if (statuses != MPI_STATUSES_IGNORE)
          empty_status(&statuses[k]);
      }
  merge(&s, requests);
  return rc;
}

int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[]) {
  if (PASS_THROUGH())
    return PMPI_Waitall(n, requests, statuses);
  for (;;) {
    int flag = 0, rc = MPI_Testall(n, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag)
      return rc;
  }
}

int MPI_Testany(int n, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  if (PASS_THROUGH())
    return PMPI_Testany(n, requests, index, flag, status);
  split_t s;
  int rc = split(&s, n, requests);
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = 0;
  *index = MPI_UNDEFINED;
  int any_active = 0;
  for (int k = 0; k < n && rc == MPI_SUCCESS && !*flag; ++k)
    if (s.p[k] && s.p[k]->active) {
      int done = 0;
      any_active = 1;
      rc = poll(s.p[k], &done);
      if (rc == MPI_SUCCESS && done) {
        *flag = 1;
        *index = k;
        empty_status(status);
      }
    }
  if (rc == MPI_SUCCESS && !*flag) {
    rc = PMPI_Testany(n, s.native, index, flag, status);
    /* MPI says flag = 1, index = MPI_UNDEFINED when nothing is active; an
     * active plan of ours is something */
    if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && any_active)
      *flag = 0;
  }
  merge(&s, requests);
  return rc;
}

int MPI_Waitany(int n, MPI_Request requests[], int *index, MPI_Status *status) {
  if (PASS_THROUGH())
    return PMPI_Waitany(n, requests, index, status);
  for (;;) {
    int flag = 0, rc = MPI_Testany(n, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag)
      return rc;
  }
}

int MPI_Testsome(int n, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  if (PASS_THROUGH())
    return PMPI_Testsome(n, requests, outcount, indices, statuses);
  split_t s;
  int rc = split(&s, n, requests);
  if (rc != MPI_SUCCESS)
    return rc;
  int native_count = 0, any_active = 0, got = 0;
  rc = PMPI_Testsome(n, s.native, &native_count, indices, statuses);
  if (rc == MPI_SUCCESS && native_count != MPI_UNDEFINED)
    got = native_count;
  for (int k = 0; k < n && rc == MPI_SUCCESS; ++k)
    if (s.p[k] && s.p[k]->active) {
      int done = 0;
      any_active = 1;
      rc = poll(s.p[k], &done);
      if (rc == MPI_SUCCESS && done) {
        if (statuses != MPI_STATUSES_IGNORE)
          empty_status(&statuses[got]);
        indices[got++] = k;
      }
    }
  *outcount = got || any_active || native_count != MPI_UNDEFINED ? got : MPI_UNDEFINED;
  merge(&s, requests);
  return rc;
}

int MPI_Waitsome(int n, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  if (PASS_THROUGH())
    return PMPI_Waitsome(n, requests, outcount, indices, statuses);
  for (;;) {
    int rc = MPI_Testsome(n, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0)
      return rc;
  }
}

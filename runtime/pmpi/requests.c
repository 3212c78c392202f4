/* The requests of served calls, and every call that starts, completes or
 * frees a request.
 *
 * Persistent collectives: MPI_Alltoall_init (and its v and allgatherv
 * twins) bind a plan once (intercept.c); the application keeps the native
 * persistent request MPI created, which is never started, and MPI_Start runs
 * the plan instead. Nonblocking collectives: MPI_Ialltoall (and twins) start
 * a run and hand the application a generalized request, completed (and
 * freed, as MPI frees a completed nonblocking request) when the run ends.
 *
 * Every completion call, on our requests or on MPI's own, advances every
 * run in flight (run.c): a program may wait on a native receive whose
 * sender first waits for a collective that needs this rank. A mixed set
 * (ours and MPI's) is completed by polling both, so neither waits behind
 * the other. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

typedef struct ours {
  MPI_Request req; /* the application's handle */
  int nonblocking; /* else persistent */
  pmpi_run_t run;
  int active;      /* persistent: started and not completed */
  int freed;       /* nonblocking: MPI_Request_free before completion */
} ours_t;

static ours_t **table;
static size_t count, cap;

/* The runtime's engine calls MPI_Test*, MPI_Wait* itself: while a plan
 * runs (busy), those go straight to MPI; with nothing of ours, so do the
 * rest. */
#define PASS_THROUGH() (pmpi_busy || !count)

static int add(ours_t *o) {
  if (count == cap) {
    size_t ncap = cap ? 2 * cap : 16;
    ours_t **n = realloc(table, ncap * sizeof *n);
    if (!n)
      return MPI_ERR_NO_MEM;
    table = n;
    cap = ncap;
  }
  table[count++] = o;
  return MPI_SUCCESS;
}

static void drop(ours_t *o) {
  for (size_t k = 0; k < count; ++k)
    if (table[k] == o) {
      table[k] = table[--count];
      break;
    }
  pmpi_run_free(&o->run);
  if (!o->nonblocking)
    collrt_coll_free(o->run.coll);
  free(o);
}

int pmpi_persistent_add(MPI_Request req, collrt_coll_t *coll, const pmpi_call_t *call) {
  ours_t *o = calloc(1, sizeof *o);
  int rc = o ? pmpi_run_init(&o->run, call, NULL, coll) : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && (rc = add(o)) == MPI_SUCCESS) {
    o->req = req;
    return MPI_SUCCESS;
  }
  if (o)
    pmpi_run_free(&o->run);
  free(o);
  collrt_coll_free(coll);
  return rc;
}

/* The generalized request's callbacks: the run's status is a collective's
 * (no source, tag or count to report); cancelling is not supported, as
 * for MPI's own collectives. */
static int query_fn(void *extra, MPI_Status *status) {
  (void)extra;
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  return MPI_SUCCESS;
}
static int free_fn(void *extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) {
  (void)extra, (void)complete;
  return MPI_SUCCESS;
}

int pmpi_nonblocking_add(pmpi_call_t *call, pmpi_entry_t *e) {
  ours_t *o = calloc(1, sizeof *o);
  int rc = o ? pmpi_run_init(&o->run, call, e, NULL) : MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &o->req);
  if (rc == MPI_SUCCESS && (rc = add(o)) != MPI_SUCCESS) {
    PMPI_Grequest_complete(o->req);
    PMPI_Request_free(&o->req);
  }
  if (rc != MPI_SUCCESS) {
    if (o)
      pmpi_run_free(&o->run);
    free(o);
    fprintf(stderr, "collc_pmpi: %s: cannot allocate its request\n", call->what);
    PMPI_Comm_call_errhandler(call->comm, rc);
    return rc;
  }
  o->nonblocking = 1;
  o->active = 1;
  *call->request = o->req;
  rc = pmpi_run_begin(&o->run);
  return rc;
}

static ours_t *find(MPI_Request req) {
  if (req == MPI_REQUEST_NULL)
    return NULL;
  for (size_t k = 0; k < count; ++k)
    if (table[k]->req == req)
      return table[k];
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

static int start(ours_t *o) {
  if (o->active) {
    fprintf(stderr, "collc_pmpi: %s: MPI_Start on a persistent request that is still active\n",
            o->run.what);
    PMPI_Comm_call_errhandler(o->run.comm, MPI_ERR_REQUEST);
    return MPI_ERR_REQUEST;
  }
  int rc = pmpi_run_begin(&o->run);
  if (rc != MPI_SUCCESS)
    return rc;
  o->active = 1;
  g_pmpi.stats.persistent_starts++;
  return MPI_SUCCESS;
}

/* The application learns that o completed: a persistent request becomes
 * inactive; a nonblocking one is freed and its handle set to
 * MPI_REQUEST_NULL, as MPI does. */
static void completed(ours_t *o, MPI_Request *handle) {
  o->active = 0;
  if (!o->nonblocking)
    return;
  MPI_Request g = o->req;
  PMPI_Grequest_complete(g);
  PMPI_Wait(&g, MPI_STATUS_IGNORE);
  if (handle)
    *handle = MPI_REQUEST_NULL;
  drop(o);
}

/* Advances everything; *done = 1 once o completed (or was inactive). A
 * failed run reports through its error handler. */
static int poll(ours_t *o, int *done) {
  *done = 1;
  if (!o->active)
    return MPI_SUCCESS;
  int rc = pmpi_run_test(&o->run, done);
  return rc;
}

/* A native completion call with runs in flight must not block in MPI: it
 * polls MPI and the runs in turn. */
static int runs_pending(void) { return pmpi_runs_in_flight() > 0; }

/* A polling wait yields now and then, as MPICH's own does, so that ranks
 * sharing a core with others are not starved. */
static void yield_now_and_then(unsigned polls) {
  if ((polls & 15) == 0)
    sched_yield();
}

int MPI_Start(MPI_Request *request) {
  ours_t *o = PASS_THROUGH() || !request ? NULL : find(*request);
  return o ? start(o) : PMPI_Start(request);
}

int MPI_Startall(int n, MPI_Request requests[]) {
  if (PASS_THROUGH())
    return PMPI_Startall(n, requests);
  for (int k = 0; k < n; ++k) {
    ours_t *o = find(requests[k]);
    int rc = o ? start(o) : PMPI_Start(&requests[k]);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request) {
  ours_t *o = PASS_THROUGH() || !request ? NULL : find(*request);
  if (!o)
    return PMPI_Request_free(request);
  if (o->active) /* MPI: the operation completes; finish it here */
    pmpi_run_wait(&o->run);
  if (o->nonblocking) {
    completed(o, request);
    return MPI_SUCCESS;
  }
  drop(o);
  return PMPI_Request_free(request);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  ours_t *o = PASS_THROUGH() || !request ? NULL : find(*request);
  if (!o) {
    int rc = PMPI_Test(request, flag, status);
    if (rc == MPI_SUCCESS && !*flag && runs_pending())
      pmpi_progress();
    return rc;
  }
  int rc = poll(o, flag);
  if (*flag) {
    completed(o, request);
    empty_status(status);
  }
  return rc;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  ours_t *o = PASS_THROUGH() || !request ? NULL : find(*request);
  if (!o) {
    if (!runs_pending())
      return PMPI_Wait(request, status);
    for (unsigned polls = 1;; ++polls) {
      int flag = 0, rc = PMPI_Test(request, &flag, status);
      if (rc != MPI_SUCCESS || flag)
        return rc;
      pmpi_progress();
      yield_now_and_then(polls);
    }
  }
  int rc = MPI_SUCCESS;
  if (o->active)
    rc = pmpi_run_wait(&o->run);
  completed(o, request);
  empty_status(status);
  return rc;
}

/* How a request set splits: ours (polled here) and MPI's (polled through a
 * copy in which ours are MPI_REQUEST_NULL, which MPI treats as done). */
typedef struct split {
  int n, ours;
  ours_t **p; /* per request: ours, or NULL */
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
        completed(s.p[k], &requests[k]);
        if (statuses != MPI_STATUSES_IGNORE)
          empty_status(&statuses[k]);
      }
  if (!*flag && !s.ours && runs_pending())
    pmpi_progress();
  merge(&s, requests);
  return rc;
}

/* Whether a set holds a request of ours; without one, and with no run in
 * flight, a wait may block in MPI. */
static int any_ours(int n, const MPI_Request requests[]) {
  for (int k = 0; k < n; ++k)
    if (find(requests[k]))
      return 1;
  return 0;
}

int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[]) {
  if (PASS_THROUGH() || (!runs_pending() && !any_ours(n, requests)))
    return PMPI_Waitall(n, requests, statuses);
  for (unsigned polls = 1;; ++polls) {
    int flag = 0, rc = MPI_Testall(n, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag)
      return rc;
    yield_now_and_then(polls);
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
        completed(s.p[k], &requests[k]);
        empty_status(status);
      }
    }
  if (rc == MPI_SUCCESS && !*flag) {
    rc = PMPI_Testany(n, s.native, index, flag, status);
    /* MPI says flag = 1, index = MPI_UNDEFINED when nothing is active; an
     * active plan of ours is something */
    if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && any_active)
      *flag = 0;
    if (rc == MPI_SUCCESS && !*flag && !any_active && runs_pending())
      pmpi_progress();
  }
  merge(&s, requests);
  return rc;
}

int MPI_Waitany(int n, MPI_Request requests[], int *index, MPI_Status *status) {
  if (PASS_THROUGH() || (!runs_pending() && !any_ours(n, requests)))
    return PMPI_Waitany(n, requests, index, status);
  for (unsigned polls = 1;; ++polls) {
    int flag = 0, rc = MPI_Testany(n, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag)
      return rc;
    yield_now_and_then(polls);
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
        completed(s.p[k], &requests[k]);
      }
    }
  if (rc == MPI_SUCCESS && !any_active && !got && runs_pending())
    pmpi_progress();
  *outcount = got || any_active || native_count != MPI_UNDEFINED ? got : MPI_UNDEFINED;
  merge(&s, requests);
  return rc;
}

int MPI_Waitsome(int n, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  if (PASS_THROUGH() || (!runs_pending() && !any_ours(n, requests)))
    return PMPI_Waitsome(n, requests, outcount, indices, statuses);
  for (unsigned polls = 1;; ++polls) {
    int rc = MPI_Testsome(n, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0)
      return rc;
    yield_now_and_then(polls);
  }
}

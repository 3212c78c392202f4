/* Test harness only: makes MPICH yield the CPU when a poll finds nothing.
 *
 * The mpiexec tests run 4-16 ranks on a 2-core machine. MPICH 4.0.2
 * (ch4:ucx) busy-polls in every blocking call, so a rank that waits keeps
 * its core until the scheduler's time slice ends, and each collective costs
 * a few slices (about 10-30 ms at 8 ranks) whatever its size. Open MPI has
 * a switch for this (mpi_yield_when_idle); MPICH has none, so this library,
 * preloaded into the ranks of the tests (scripts/test, test/lit.cfg.py),
 * wraps UCX's progress call and yields when it made no progress. It changes
 * only which process runs next: every check runs as before. Timings that
 * mean something (bench/, farm-bench) never load it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>

struct ucp_worker;
typedef unsigned (*progress_fn)(struct ucp_worker *);

unsigned ucp_worker_progress(struct ucp_worker *worker) {
  static progress_fn real;
  if (!real)
    real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  unsigned events = real(worker);
  if (events == 0)
    sched_yield();
  return events;
}

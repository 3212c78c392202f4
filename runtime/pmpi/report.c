/* What the library says about the calls it did not serve: each reason once
 * per communicator (COLLC_VERBOSE), a summary at MPI_Finalize, and
 * COLLC_STRICT, under which a fallback is an error. */
#include <stdio.h>
#include <time.h>
#include <string.h>

#include "pmpi.h"

const char *pmpi_reason_name(pmpi_reason_t r) {
  switch (r) {
  case PMPI_SERVED: return "served";
  case PMPI_R_NO_PLANS: return "no plans";
  case PMPI_R_NO_MATCH: return "no matching plan";
  case PMPI_R_BIND: return "bind failed";
  case PMPI_R_PLANS_DIFFER: return "plan sets differ";
  case PMPI_R_INTERCOMM: return "intercommunicator";
  case PMPI_R_TYPE_MISMATCH: return "type mismatch";
  case PMPI_R_TYPE: return "non-contiguous type";
  case PMPI_R_REDUCE_TYPE: return "reduction type";
  case PMPI_R_OP: return "reduction operation";
  case PMPI_R_ROOT: return "root";
  case PMPI_R_THREADS: return "MPI_THREAD_MULTIPLE";
  case PMPI_R_COUNT_: break;
  }
  return "?";
}

static uint32_t hash(const char *a, const char *b) {
  uint32_t h = 2166136261u;
  for (const char *s = a; *s; ++s)
    h = (h ^ (uint8_t)*s) * 16777619u;
  for (const char *s = b; *s; ++s)
    h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

void pmpi_say_once(MPI_Comm comm, pmpi_cache_t *cache, const char *what, const char *msg) {
  if (!g_pmpi.verbose)
    return;
  if (cache) {
    uint32_t h = hash(what, msg);
    for (int i = 0; i < cache->nsaid; ++i)
      if (cache->said[i] == h)
        return;
    /* past PMPI_SAID_MAX distinct reasons, repeat rather than go silent */
    if (cache->nsaid < PMPI_SAID_MAX)
      cache->said[cache->nsaid++] = h;
  }
  int size = 0, inter = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_test_inter(comm, &inter);
  fprintf(stderr, "collc_pmpi: %s on %s of %d ranks: %s\n", what,
          inter ? "the local group of an intercomm" : "comm", size, msg);
  fflush(stderr);
}

void pmpi_strict_fail(MPI_Comm comm, int reporter, const char *what, const char *msg) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (rank == reporter) {
    fprintf(stderr, "collc_pmpi: COLLC_STRICT: %s on comm of %d ranks falls back to MPI: %s\n",
            what, size, msg);
    fflush(stderr);
    /* the launcher forwards stderr through a pipe that an abort can cut
     * short: give it the message first (seen lost once in ~20 runs) */
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    PMPI_Abort(comm, 1);
  }
  /* Never completes without the reporter: waits here for its abort rather
   * than racing it with an abort that would hide the message. */
  PMPI_Barrier(comm);
  PMPI_Abort(comm, 1);
}

void pmpi_print_summary(int world_rank) {
  const pmpi_stats_t *s = &g_pmpi.stats;
  uint64_t fell = 0;
  for (int r = 1; r < PMPI_R_COUNT_; ++r)
    fell += s->fallback[r];
  char reasons[512] = "";
  size_t at = 0;
  for (int r = 1; r < PMPI_R_COUNT_ && at < sizeof reasons; ++r)
    if (s->fallback[r]) {
      int n = snprintf(reasons + at, sizeof reasons - at, "%s%s: %llu", at ? ", " : " (",
                       pmpi_reason_name((pmpi_reason_t)r), (unsigned long long)s->fallback[r]);
      if (n > 0)
        at += (size_t)n;
    }
  if (at && at + 1 < sizeof reasons)
    strcat(reasons, ")");
  char persistent[160] = "";
  if (s->persistent)
    snprintf(persistent, sizeof persistent, "; %llu persistent requests started %llu times",
             (unsigned long long)s->persistent, (unsigned long long)s->persistent_starts);
  if (s->nonblocking) {
    size_t len = strlen(persistent);
    snprintf(persistent + len, sizeof persistent - len, "; %llu of the served calls nonblocking",
             (unsigned long long)s->nonblocking);
  }
  fprintf(stderr,
          "collc_pmpi: rank %d: %llu calls served (%llu cache hits, %llu binds), %llu fell back to MPI%s%s\n",
          world_rank, (unsigned long long)(s->hits + s->binds), (unsigned long long)s->hits,
          (unsigned long long)s->binds, (unsigned long long)fell, reasons, persistent);
  fflush(stderr);
}

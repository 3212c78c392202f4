/* libcollc_pmpi internals: the plan set, the per-communicator plan cache,
 * the fallback reasons, the call being served and the runs in flight.
 *
 * An interposed MPI library cannot hand state to its caller, so this one
 * keeps process-wide state (the plan set, the attribute key, counters) in a
 * single struct, g_pmpi, filled once on the first intercepted call. Plans
 * serve programs that call MPI from one thread at a time (SINGLE, FUNNELED,
 * SERIALIZED); under MPI_THREAD_MULTIPLE every collective goes to MPI, and
 * the reason is printed once (intercept.c). */
#ifndef COLLC_PMPI_INTERNAL_H
#define COLLC_PMPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collc/collrt.h"

/* Why a call went to MPI's own collective. The order is the priority when
 * ranks disagree: the highest code any rank reports wins. */
typedef enum pmpi_reason {
  PMPI_SERVED = 0,
  PMPI_R_NO_PLANS,      /* COLLC_PLANS unset, or nothing in it loads */
  PMPI_R_NO_MATCH,      /* no plan for this op, size and message size */
  PMPI_R_BIND,          /* a plan matched but failed to bind */
  PMPI_R_PLANS_DIFFER,  /* ranks loaded different plan sets */
  PMPI_R_INTERCOMM,
  PMPI_R_TYPE_MISMATCH, /* send and receive types of different sizes */
  PMPI_R_TYPE,          /* a non-contiguous datatype */
  PMPI_R_REDUCE_TYPE,   /* a reduction's datatype has no REDUCE kernel */
  PMPI_R_OP,            /* a user-defined or unsupported reduction operation */
  PMPI_R_ROOT,          /* a root other than rank 0, for a plan tied to its nodes */
  PMPI_R_THREADS,       /* MPI_THREAD_MULTIPLE */
  PMPI_R_COUNT_
} pmpi_reason_t;

const char *pmpi_reason_name(pmpi_reason_t r);

/* ---- plans.c: the plans named by COLLC_PLANS ---- */

typedef struct pmpi_plan {
  char *path;
  collrt_plan_t *plan;
  /* an allreduce plan's REDUCE (operation, element type), PMPI_REDUCE_KIND
   * of the pair: it serves only calls of that pair; 0 for other plans,
   * PMPI_REDUCE_MIXED for a plan that combines several pairs (none) */
  unsigned reduce;
} pmpi_plan_t;

#define PMPI_REDUCE_KIND(op, type) (((unsigned)(op) << 8) | (unsigned)(type))
#define PMPI_REDUCE_MIXED 0xffffffffu

typedef struct pmpi_plan_set {
  const char *source; /* COLLC_PLANS as given, or NULL */
  pmpi_plan_t *plans;
  size_t count;
  /* FNV-1a of every plan's bytes in order, 62 bits (so that its negation
   * fits an int64 allreduce): equal on every rank that loaded the same. */
  int64_t fingerprint;
} pmpi_plan_set_t;

/* Loads every plan of COLLC_PLANS (a directory: its *.plan and *.collplan
 * files in name order; or a ':'-separated list of files). A file that does
 * not load is skipped and reported through `warn`. */
void pmpi_plans_load(pmpi_plan_set_t *set, const char *source,
                     void (*warn)(const char *msg));
void pmpi_plans_free(pmpi_plan_set_t *set);
/* The most specific plan for `op` at `size` ranks and a largest block of
 * `block` bytes, whatever the load order (a plan for exactly `size` ranks
 * only if `machine`: the communicator is MPI_COMM_WORLD in its order): one compiled for exactly `size`
 * ranks before one for any size, one implementing the op before one
 * serving it (an alltoallv plan serves alltoall), then the narrower byte
 * range; a tie goes to the first loaded. An allreduce (`reduce` its
 * PMPI_REDUCE_KIND; 0 for other ops) takes only plans that combine its
 * operation and type; a block is then the whole message, as for bcast.
 * -1 if none, with `why` saying what the set has instead. */
int pmpi_plans_match(const pmpi_plan_set_t *set, int op, unsigned reduce, int size, int machine,
                     int64_t block, char *why, size_t why_len);
/* Whether a plan serves every count pattern from one bind, by a local
 * recount (no bind-time exchange, no node arena to set up again). */
int pmpi_plan_recounts(const collrt_plan_t *plan);
/* As pmpi_plans_match, among the plans that recount only; -1 if none. */
int pmpi_plans_match_recounting(const pmpi_plan_set_t *set, int op, int size, int machine,
                                int64_t block);
/* "served by plan PATH (8 ranks [0, 100 B]: WHY)", what COLLC_VERBOSE says
 * of a plan chosen; WHY NULL: "the most specific that fits". */
void pmpi_plan_served_by(const pmpi_plan_t *p, const char *why, char *msg, size_t len);
/* The plan pmpi_plans_match picks for `op` at `size` ranks whatever the
 * block size, or -1 if the choice depends on the block. */
int pmpi_plans_match_any_block(const pmpi_plan_set_t *set, int op, int size, int machine);

/* ---- cache.c: bound collectives per communicator ---- */

enum { PMPI_CACHE_ENTRIES = 16, PMPI_SAID_MAX = 32, PMPI_SEEN = 64, PMPI_PATH_SAY = 512 };

/* Cache classes. An alltoall's entry is found by what MPI makes equal on
 * every rank (the block's bytes), so every rank hits or misses alike and a
 * hit needs no agreement; its class's eviction order is the same on every
 * rank. The v-collectives' keys (count arrays) differ between ranks, so
 * their hits are agreed (serve.c). */
enum { PMPI_CLASS_UNIFORM = 0, PMPI_CLASS_AGREED = 1, PMPI_CLASSES = 2,
       PMPI_CLASS_FLEX = 3 /* not in entries[]: the per-op recounting collective */ };

/* What identifies a call on this rank: op, type size and the count and
 * displacement arrays, in up to four pieces. */
typedef struct pmpi_key {
  int op;
  int64_t tsize;
  const int *part[4];
  size_t part_len[4];
  int nparts;
} pmpi_key_t;

typedef struct pmpi_run pmpi_run_t;

/* A bound collective kept for later calls. Runs that use it hold a
 * reference: an entry the cache evicts while a run still uses it (a
 * nonblocking call not completed yet) is freed when the last run ends. */
typedef struct pmpi_entry {
  int op;
  int64_t tsize;
  int *ints; /* the key's pieces, concatenated */
  size_t nints;
  collrt_coll_t *coll;
  /* Bind number on this communicator. Binds are collective, so equal
   * numbers on every rank mean entries of the same bind. */
  int64_t gen;
  uint64_t last_use;
  int refs;                 /* the cache's, plus one per queued or running run */
  pmpi_run_t *current;      /* the run the collective executes now */
  pmpi_run_t *queue, *queue_tail; /* runs waiting for it, in call order */
} pmpi_entry_t;

typedef struct pmpi_cache {
  MPI_Comm comm;
  int size, rank;
  pmpi_entry_t *entries[PMPI_CLASSES][PMPI_CACHE_ENTRIES];
  int nentries[PMPI_CLASSES];
  int64_t next_gen;
  uint64_t clock;
  /* Per v-collective (COLLRT_OP_*): the collective bound with
   * COLLRT_BIND_LOCAL_COUNTS that serves every count pattern of its plan
   * by a local recount, and that plan's index in the set. */
  pmpi_entry_t *flex[8]; /* indexed by COLLRT_OP_* */
  int flex_plan[8];
  /* Per op: the plan that serves every block size on this communicator
   * (pmpi_plans_match_any_block), + 1; 0 until first asked. The plan set
   * and the size never change, so it is looked up once. */
  int any_block_plan[8];
  /* Hashes of the last PMPI_SEEN count patterns this rank met here
   * (serve.c: a plan that binds per pattern waits for one to come back). */
  uint64_t seen[PMPI_SEEN];
  unsigned next_seen;
  /* whether every rank loaded the same plans: MPI_COMM_WORLD's agreement
   * for a communicator of its processes, else agreed once, when the cache
   * is created (the communicator's first intercepted collective) */
  int plans_agree;
  /* Whether the communicator is the machine the topology plans were
   * compiled for: MPI_COMM_WORLD's ranks in MPI_COMM_WORLD's order (the
   * world, a duplicate, or a split that keeps every rank in order). Only
   * then is a plan for exactly its size known to fit; a reordered or
   * partial communicator of that size gets the generic plans. */
  int machine;
  uint32_t said[PMPI_SAID_MAX]; /* hashes of the reasons printed here */
  int nsaid;
  struct pmpi_cache *prev, *next; /* all live caches, freed at MPI_Finalize */
} pmpi_cache_t;

/* The communicator's cache, created (and attached as an attribute) on
 * first use, collectively: every rank of comm must be in the same
 * collective call. NULL only when out of memory. */
pmpi_cache_t *pmpi_cache_get(MPI_Comm comm);
pmpi_entry_t *pmpi_cache_find(pmpi_cache_t *cache, int klass, const pmpi_key_t *key);
/* Stores `coll` under `key` in class `klass` (replacing the entry of the
 * same key, else the least recently used one when full); takes ownership
 * of coll even on failure. Returns the entry, or NULL. */
pmpi_entry_t *pmpi_cache_put(pmpi_cache_t *cache, int klass, const pmpi_key_t *key,
                             collrt_coll_t *coll, int64_t gen);
/* Makes coll the recounting collective of `op` (plan index idx),
 * replacing the previous one. Returns the entry, or NULL. */
pmpi_entry_t *pmpi_cache_flex(pmpi_cache_t *cache, int op, int idx, collrt_coll_t *coll,
                              int64_t gen);
/* Drops a reference; the last one frees the entry and its collective. */
void pmpi_entry_release(pmpi_entry_t *e);
/* Frees every cache still attached (before MPI_Finalize). */
void pmpi_cache_free_all(void);

/* ---- report.c: counters, COLLC_VERBOSE, COLLC_STRICT ---- */

typedef struct pmpi_stats {
  uint64_t hits;  /* served by a cached bind */
  uint64_t binds; /* served after a collective bind */
  uint64_t persistent;        /* persistent requests bound to a plan */
  uint64_t persistent_starts; /* MPI_Start(all) of those */
  uint64_t nonblocking;       /* MPI_I* calls served */
  uint64_t fallback[PMPI_R_COUNT_];
} pmpi_stats_t;

/* Prints (COLLC_VERBOSE, or always when strict) "collc_pmpi: <what> on comm
 * of N ranks: <msg>" unless this communicator already said it. */
void pmpi_say_once(MPI_Comm comm, pmpi_cache_t *cache, const char *what, const char *msg);
/* COLLC_STRICT: the fallback is an error. The reporting rank prints msg and
 * aborts; the others wait for that abort. */
void pmpi_strict_fail(MPI_Comm comm, int reporter, const char *what, const char *msg);
/* One line at MPI_Finalize (COLLC_VERBOSE): this rank's calls, served and
 * fallen back, by reason. */
void pmpi_print_summary(int world_rank);

/* ---- process-wide state ---- */

/* Inside a served call on this thread: the runtime calls MPI (its bind
 * exchanges tables with MPI_Alltoall, its engine tests requests), and
 * those calls must reach MPI, not come back here. */
extern _Thread_local int pmpi_busy;

typedef struct pmpi_state {
  int ready;
  int multiple; /* MPI_THREAD_MULTIPLE: nothing is served */
  int verbose, strict;
  int keyval; /* the cache attribute */
  pmpi_plan_set_t plans;
  /* Whether every rank of MPI_COMM_WORLD loaded the same plans, agreed in
   * MPI_Init (intercept.c): 1 or 0; -1 if MPI was initialized elsewhere
   * (every communicator's first call then agrees for itself). */
  int world_plans_agree;
  pmpi_stats_t stats;
  pmpi_cache_t *caches; /* list of live caches */
} pmpi_state_t;

extern pmpi_state_t g_pmpi;

/* Reads the environment and loads the plans, once. */
void pmpi_init_once(void);

/* ---- serve.c: one intercepted call ---- */

typedef struct pmpi_call {
  const char *what; /* "MPI_Alltoallv" */
  MPI_Comm comm;
  pmpi_key_t key;
  const void *sendbuf;
  void *recvbuf;
  /* this rank's largest block in bytes (alltoall(v): per peer; allgatherv:
   * per contribution): plans are matched on the largest over all ranks */
  int64_t block;
  pmpi_reason_t local_reason; /* a reason found on this rank alone */
  /* bind arguments */
  int count, sendcount;
  const int *sc, *sd, *rc, *rd;
  MPI_Datatype type;
  /* alltoall (bcast) with a non-contiguous datatype: the plan moves the
   * packed bytes (MPI_Pack / MPI_Unpack of count * P (count) elements) */
  MPI_Datatype stype, rtype;
  int scount, rcount;
  int pack;
  /* MPI_Allreduce: the call's PMPI_REDUCE_KIND (also in its key); the
   * datatype is the predefined one it binds with. MPI_Bcast: its root. */
  unsigned reduce;
  int root;
  /* MPI_*_init: bind only (no cache, no run) and hand the bind back */
  int persistent;
  collrt_coll_t *bound;
  /* MPI_I*: start the run and hand back its request */
  int nonblocking;
  MPI_Request *request;
  int recount; /* runs on a recounting collective: recount to this call's counts */
  /* the plan (index + 1) that would bind for this count pattern, deferred
   * because the pattern is new (serve.c); 0 if none */
  int deferred;
  /* MPI_IN_PLACE: sendbuf points into recvbuf, and a run that does not
   * pack first copies these bytes of it to scratch and sends from there */
  int64_t in_place_bytes;
  int vpack;   /* ... packing its datatypes block by block (run.c) */
  MPI_Datatype vstype, vrtype;
  char local_msg[256]; /* last: set only with local_reason (not cleared per call) */
} pmpi_call_t;

/* Runs the call with a plan (returns MPI_SUCCESS or the error handler's
 * code) or, with *out_fallback = 1, leaves it to the caller's PMPI_ call. */
int pmpi_serve(pmpi_call_t *call, int *out_fallback);

/* ---- run.c: a plan run for one call, and the runs in flight ---- */

enum { PMPI_RUN_IDLE, PMPI_RUN_QUEUED, PMPI_RUN_RUNNING, PMPI_RUN_DONE, PMPI_RUN_FAILED };

struct pmpi_run {
  collrt_coll_t *coll;  /* owned when entry is NULL (persistent requests) */
  pmpi_entry_t *entry;  /* the cache entry whose collective it uses, or NULL */
  const char *what;
  MPI_Comm comm;
  const void *sendbuf;  /* the call's buffers (the collective is rebound to them) */
  void *recvbuf;
  /* packing (alltoall, bcast with non-contiguous types); a bcast root
   * unpacks nothing: its buffer holds the result already */
  int pack, pack_root;
  MPI_Datatype stype, rtype;
  int scount, rcount;   /* elements of the whole buffers: count * P */
  void *packed_send, *packed_recv;
  int64_t packed_bytes;
  /* a v-collective on a LOCAL_COUNTS collective: recount at start */
  int recount, op, sendcount;
  const int *sc, *sd, *rc, *rd;
  MPI_Datatype type;
  /* ... with datatypes packed block by block (vpack): the byte counts and
   * displacements the plan moves (4 P), and the packed buffers */
  int vpack, size;
  int *vbytes;
  void *vsend, *vrecv;
  /* MPI_IN_PLACE without packing: at start, in_place_bytes of recvbuf
   * (from in_place_src) are copied to in_place_copy, the send buffer */
  int64_t in_place_bytes;
  const void *in_place_src;
  void *in_place_copy;
  int state;
  collrt_diag_t diag;   /* state FAILED */
  pmpi_run_t *next;     /* in its entry's queue */
};

/* Prepares a run of `call` on entry e (takes a reference) or on an owned
 * collective (e NULL); allocates the packing buffers. MPI_SUCCESS or an
 * MPI error code. */
int pmpi_run_init(pmpi_run_t *r, const pmpi_call_t *call, pmpi_entry_t *e, collrt_coll_t *owned);
/* Starts it, or queues it behind the run that uses its collective now. */
int pmpi_run_begin(pmpi_run_t *r);
/* Advances every run in flight; finished runs change state. */
void pmpi_progress(void);
/* Waits for r (advancing everything). MPI_SUCCESS, or MPI_ERR_OTHER after
 * printing why and calling the communicator's error handler. */
int pmpi_run_wait(pmpi_run_t *r);
/* Whether r finished; advances everything first. Failure as for wait. */
int pmpi_run_test(pmpi_run_t *r, int *done);
/* Releases what init took (r must not be queued or running). */
void pmpi_run_free(pmpi_run_t *r);
/* Runs in flight (queued or running) in this process. */
int pmpi_runs_in_flight(void);

/* ---- persist.c: MPI-4 persistent collectives served by plans ---- */

/* Remembers that `req` (a native persistent request that is never started)
 * stands for `coll`; MPI_Start, the wait and test family and
 * MPI_Request_free then act on the plan. Returns MPI_SUCCESS or
 * MPI_ERR_NO_MEM (coll is freed then). */
int pmpi_persistent_add(MPI_Request req, collrt_coll_t *coll, const pmpi_call_t *call);
/* Hands the application a request for a started nonblocking run (a
 * generalized request, completed when the run ends). */
int pmpi_nonblocking_add(pmpi_call_t *call, pmpi_entry_t *e);

#endif

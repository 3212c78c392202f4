/* Plan handles without MPI: load, validate, encode, inspect, expand.
 * The compiler links this part of the runtime (libcollrt_core) to verify and
 * simulate what it emits; the MPI runtime (collrt.h) builds on it. */
#ifndef COLLC_PLAN_H
#define COLLC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "collc/plan_format.h"
#include "collc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct collrt_plan collrt_plan_t; /* opaque, immutable once loaded */

/* Spellings of the COLLRT_OPS / COLLRT_ALGORITHMS tables ("?" if unknown),
 * and the reverse lookup (0 if unknown). */
const char *collrt_op_name(unsigned op);
const char *collrt_algorithm_name(unsigned algorithm);
unsigned collrt_op_from_name(const char *name);
unsigned collrt_algorithm_from_name(const char *name);

/* The REDUCE table (COLLRT_REDUCE_OPS, COLLRT_REDUCE_TYPES in plan_format.h,
 * implemented in reduce.c): spellings ("?" if unknown), reverse lookups (0 if
 * unknown), the element size of a type (0 if unknown). */
const char *collrt_reduce_op_name(unsigned op);
const char *collrt_reduce_type_name(unsigned type);
unsigned collrt_reduce_op_from_name(const char *name);
unsigned collrt_reduce_type_from_name(const char *name);
size_t collrt_reduce_type_size(unsigned type);
/* 1 if `op` applies to `type` (both known, the type's class among the op's);
 * else 0 and, if `why` is not NULL, a sentence naming both ("BAND does not
 * apply to double: it takes the C integer types"). */
int collrt_reduce_valid(unsigned op, unsigned type, char *why, size_t why_len);
/* dst[i] = dst[i] OP src[i] for i = 0 .. n-1 in ascending order: the one
 * definition of a REDUCE step's arithmetic (reduce.c documents each op).
 * The pair must be valid; the regions may be unaligned, but must not
 * overlap. */
void collrt_reduce_apply(unsigned op, unsigned type, void *dst, const void *src, size_t n);

/* Copies, decodes and validates `len` bytes. */
collrt_status_t collrt_plan_load(const void *bytes, size_t len,
                                 collrt_plan_t **out_plan, collrt_diag_t *diag);
/* Reads a plan file: a regular file of at most 1 MiB (a FIFO, device or
 * directory is refused with COLLRT_ERR_IO before anything is read, so a
 * loader never blocks or reads without end). */
collrt_status_t collrt_plan_load_file(const char *path,
                                      collrt_plan_t **out_plan,
                                      collrt_diag_t *diag);
void collrt_plan_free(collrt_plan_t *plan);

/* The decoded plan; pointers stay valid while the plan lives. */
const collrt_plan_desc_t *collrt_plan_desc(const collrt_plan_t *plan);
/* The encoded bytes (as loaded or encoded). */
const uint8_t *collrt_plan_bytes(const collrt_plan_t *plan, size_t *out_len);
/* 1 if the program uses the topology and so needs exactly
 * prod(shape) * ranks_per_node ranks; 0 if it runs on any size. */
int collrt_plan_needs_exact_size(const collrt_plan_t *plan);
uint64_t collrt_plan_topology_ranks(const collrt_plan_t *plan);
/* The value a plan's binary expression `opcode` (COLLRT_X_ADD ... COLLRT_X_OR)
 * takes on a and b, as every rank's evaluation computes it; 0 where the
 * evaluation fails (overflow, division by zero, not a binary opcode). The
 * compiler folds constant expressions with it: one meaning. */
int collrt_expr_fold(unsigned opcode, int64_t a, int64_t b, int64_t *out);
/* The order a FOR with a RANDOM or SHARED_RANDOM order visits [lo, lo + n):
 * out[k] is the k-th value (plan_format.h's Fisher-Yates rule; `salt` is
 * the rank for RANDOM and 0 for SHARED_RANDOM). The cost model prices a
 * shared random order's windows with it: one meaning. */
void collrt_order_permutation(int64_t lo, uint64_t n, int64_t seed, uint64_t salt, int64_t *out);
/* COLLRT_OK if a communicator of `size` ranks fits the plan, else
 * COLLRT_ERR_COMM_MISMATCH with diag naming the sizes and the topology. */
collrt_status_t collrt_plan_check_size(const collrt_plan_t *plan, int size,
                                       collrt_diag_t *diag);

/* Encodes `desc` (checksum included) and validates the result; on success
 * *out_plan holds the bytes (collrt_plan_bytes) and the decoded copy. */
collrt_status_t collrt_plan_encode(const collrt_plan_desc_t *desc,
                                   collrt_plan_t **out_plan,
                                   collrt_diag_t *diag);

/* ---- Expansion: the program instantiated for one rank ---- */

typedef enum collrt_step_kind {
  COLLRT_STEP_SEND = 1,
  COLLRT_STEP_RECV = 2,
  COLLRT_STEP_COPY = 3,
  COLLRT_STEP_NOTIFY = 4, /* `peer` is the arena counter; len 0 */
  COLLRT_STEP_AWAIT = 5,  /* likewise */
  COLLRT_STEP_REDUCE = 6, /* like COPY (buf -> dst_buf); rop, rtype say how */
} collrt_step_kind_t;

/* SEND and RECV take a FIFO window slot and a message; the other kinds are
 * local (COPY) or node-local (NOTIFY, AWAIT). */
static inline int collrt_step_is_message(uint8_t kind) {
  return kind == COLLRT_STEP_SEND || kind == COLLRT_STEP_RECV;
}
static inline int collrt_step_is_signal(uint8_t kind) {
  return kind == COLLRT_STEP_NOTIFY || kind == COLLRT_STEP_AWAIT;
}

/* One contiguous piece of a gathered transfer. 16 bytes: bind keeps one
 * per piece, the largest part of a bind's memory for schedules that gather
 * (dim-rings, 4 KiB, 1024 ranks: 9542 a rank, 150552 at 4096). */
typedef struct collrt_seg {
  int64_t off;
  int32_t len; /* 1 .. INT_MAX, like a step's (expansion checks both) */
  uint8_t buf; /* collrt_buffer_t */
} collrt_seg_t;

/* 56 bytes: bind keeps one per step of this rank (plus 5 B of queue state
 * and 4 B per dependency), so its size is the per-step memory of a bind. */
typedef struct collrt_step {
  uint8_t kind;
  uint8_t fifo;
  uint8_t buf;      /* SEND/COPY: source buffer; RECV: destination (unless gathered) */
  uint8_t dst_buf;  /* COPY only (unless its destination is gathered) */
  int32_t peer;     /* SEND/RECV */
  int32_t len;      /* 1 .. INT_MAX (zero-length transfers produce no step);
                       0 for NOTIFY and AWAIT */
  int16_t tag;      /* SEND/RECV, 0 <= tag <= 32767 */
  uint16_t stmt;    /* statement that produced it, for diagnostics */
  int64_t off;      /* offset in buf (contiguous side) */
  int64_t dst_off;  /* COPY only (contiguous destination) */
  uint32_t dep_begin, ndeps; /* steps this one waits for: deps[dep_begin ..] */
  uint32_t seg_begin;        /* segments: segs[seg_begin ..] */
  uint32_t nsrc;   /* segments of the message / COPY source; 0 = contiguous */
  uint32_t ndst;   /* segments of a COPY destination (after the source's); 0 = contiguous */
  uint8_t rop, rtype; /* REDUCE: the statement's operation and element type */
} collrt_step_t;

/* ---- The bind-time exchange (EXCHANGE / PUT / TABLE in plan_format.h) ---- */

/* A PUT on its way to rank `peer`. */
typedef struct collrt_put {
  int64_t index, value;
  int32_t peer;
  uint8_t table;
} collrt_put_t;

/* A value a rank received: rank `from` PUT `value` at (table, index). */
typedef struct collrt_table_entry {
  int64_t index, value;
  int32_t from;
  uint8_t table;
  uint8_t overflow; /* `before` does not fit in int64 (TABLE_SUM fails) */
  int64_t before;   /* sum of the values of the entries of its table before
                       it in the sorted order (collrt_tables_sort fills it):
                       TABLE_SUM is two binary searches and a difference */
} collrt_table_entry_t;

/* What TABLE reads: entries sorted by (table, index, from), no duplicates
 * (collrt_tables_sort). */
typedef struct collrt_tables {
  const collrt_table_entry_t *entries;
  size_t count;
} collrt_tables_t;

/* What a rank knows at bind time. Counts and displacements are in bytes and
 * have `size` entries; for alltoall the caller fills them uniformly. */
typedef struct collrt_expand_input {
  int size;
  int rank;
  const int64_t *scounts;
  const int64_t *sdispls;
  const int64_t *rcounts;
  const int64_t *rdispls;
  int64_t send_bytes;  /* extent of the send buffer the steps may touch */
  int64_t recv_bytes;  /* extent of the receive buffer */
  const collrt_tables_t *tables; /* the exchange's result; NULL if none */
} collrt_expand_input_t;

typedef struct collrt_steps {
  collrt_step_t *steps;
  size_t count;
  uint32_t *deps; /* dependency lists of all steps, step indices */
  size_t ndeps;
  collrt_seg_t *segs; /* segment lists of gathered steps */
  size_t nsegs;
  int64_t scratch_bytes;
  int64_t arena_bytes;    /* the ARENA statement's, or 0 */
  int64_t arena_counters; /* 0: the plan has no arena */
  int has_arena;          /* the plan has an ARENA statement */
} collrt_steps_t;

/* 1 if step `s` takes part in the node arena (plan_format.h, "Node arena"):
 * it reads or writes ARENA bytes, or is a NOTIFY or AWAIT. */
int collrt_step_uses_arena(const collrt_steps_t *steps, const collrt_step_t *s);

/* The bytes one side of a step touches: its segments, or one contiguous
 * piece (`whole`). The source of a SEND or COPY, the destination of a RECV
 * or COPY. */
typedef struct collrt_region {
  const collrt_seg_t *segs;
  uint32_t nsegs; /* 0: the region is `whole` */
  collrt_seg_t whole;
} collrt_region_t;

void collrt_step_source(const collrt_steps_t *steps, const collrt_step_t *step,
                        collrt_region_t *out);
void collrt_step_dest(const collrt_steps_t *steps, const collrt_step_t *step,
                      collrt_region_t *out);
/* Calls fn for each contiguous piece of bytes [from, from + len) of the
 * region pair, in order: src's bytes at (sbuf, soff) go to dst's at
 * (dbuf, doff). The two regions describe the same number of bytes. */
typedef void (*collrt_piece_fn)(void *ctx, uint8_t sbuf, int64_t soff, uint8_t dbuf,
                                int64_t doff, int64_t len);
void collrt_region_pairs(const collrt_region_t *src, const collrt_region_t *dst, int64_t from,
                         int64_t len, collrt_piece_fn fn, void *ctx);

/* Instantiates the program for input->rank. Checks every peer, tag, offset
 * and length against the communicator and the buffers; on error nothing is
 * returned and diag names the statement and the values. */
collrt_status_t collrt_expand(const collrt_plan_t *plan,
                              const collrt_expand_input_t *input,
                              collrt_steps_t *out_steps, collrt_diag_t *diag);
void collrt_steps_free(collrt_steps_t *steps);

/* Upper bound on steps per rank; larger expansions fail with ERR_BOUNDS. */
#define COLLRT_MAX_STEPS (1u << 26)

/* Budgets. A plan that validates may still ask for absurd work at bind; the
 * expansion refuses it, with a message, before allocating that much:
 *   steps (and segments, waits, dependencies) per rank
 *       <= 2^16 + 64 P + (send bytes + receive bytes) / 16,
 *   statements executed <= 16 x that, scratch bytes <= max(1 GiB, 4 x the
 *   user's send + receive bytes). COLLRT_STEP_BUDGET=N sets the step budget
 *   (up to COLLRT_MAX_STEPS) for plans that really need more; a malformed
 *   setting is ignored here, and expansion refuses it with COLLRT_ERR_ARG. */
uint64_t collrt_step_budget(const collrt_expand_input_t *input);

/* 1 if the plan has an EXCHANGE: bind must then deliver the PUTs of every
 * rank before expansion. */
int collrt_plan_has_exchange(const collrt_plan_t *plan);
/* 1 if the plan has a node ARENA (shared memory the node's ranks set up at
 * bind). */
int collrt_plan_has_arena(const collrt_plan_t *plan);
/* The exchange's first pass for input->rank (input->tables unused): every
 * PUT this rank makes, in program order (*out is malloc'ed; free() it).
 * Peers are checked against the communicator; the record count is bounded
 * by the step budget. */
collrt_status_t collrt_exchange_puts(const collrt_plan_t *plan,
                                     const collrt_expand_input_t *input,
                                     collrt_put_t **out, size_t *out_count,
                                     collrt_diag_t *diag);
/* Sorts the entries one rank received into the order TABLE searches;
 * COLLRT_ERR_COUNTS (naming the sender) if a rank PUT one entry twice. */
collrt_status_t collrt_tables_sort(collrt_table_entry_t *entries, size_t count, int rank,
                                   collrt_diag_t *diag);

/* The bind-time exchange of a whole communicator in one process (the
 * simulator and the link-load analysis; bind does the same over MPI):
 * input(ctx, p) gives rank p's expand input (it may reuse one buffer: each
 * is used before the next is asked for); on success entries[p] (malloc'ed,
 * the caller frees each) holds what rank p received, sorted, and
 * tables[p] points into it. */
typedef const collrt_expand_input_t *(*collrt_input_fn)(void *ctx, int rank);
collrt_status_t collrt_exchange_in_memory(const collrt_plan_t *plan, int size,
                                          collrt_input_fn input, void *ctx,
                                          collrt_table_entry_t **entries,
                                          collrt_tables_t *tables, collrt_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif /* COLLC_PLAN_H */

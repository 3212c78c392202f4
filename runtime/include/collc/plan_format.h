/* collc plan format, version 5: the one definition shared by the compiler
 * (which encodes plans) and the runtime (which decodes, validates, expands
 * and executes them).
 *
 * A plan is data, not code: a small SPMD program over a symbolic rank. It
 * never lists per-rank messages, so its size does not depend on the number
 * of ranks. Counts and displacements of v-collectives are bound at run time.
 *
 * ---------------------------------------------------------------------------
 * Grammar (all integers little-endian, fixed width, no padding)
 *
 *   plan       := header fifo{nfifos} stmt{nstmts} expr_pool
 *   header     := magic[8] = "COLLPLAN"
 *                 u16 format_version          = COLLRT_PLAN_FORMAT_VERSION
 *                 u16 producer_version        (collc major << 8 | minor)
 *                 u32 total_bytes             (whole plan, header included)
 *                 u32 checksum                CRC-32 (IEEE) of bytes [20, total)
 *                 u8  op                      collrt_op_t
 *                 u8  algorithm               collrt_algorithm_t
 *                 u8  ndims                   1..3
 *                 u8  wrap_mask               bit d set = dimension d is a torus
 *                 u32 shape[3]                nodes per dimension, >= 1 (unused = 1)
 *                 u32 ranks_per_node          >= 1
 *                 u32 alpha_ps                cost model: per-message start-up
 *                 u32 beta_ps_per_byte        cost model: network per byte
 *                 u32 gamma_ps_per_byte       cost model: memory copy per byte
 *                 u8  nfifos                  1..COLLRT_MAX_FIFOS
 *                 u8  nevents                 0..COLLRT_MAX_EVENTS
 *                 u8  nvars                   0..COLLRT_MAX_VARS
 *                 u8  flags                   COLLRT_PLAN_F_*; other bits 0
 *                 u16 nstmts                  1..COLLRT_MAX_STMTS
 *                 u16 expr_bytes              size of expr_pool
 *                 u16 scratch_expr            expr ref: scratch bytes, or NONE
 *                 u8  ntables                 0..COLLRT_MAX_TABLES: bind-time tables
 *                 u8  reserved                = 0
 *                 u64 block_bytes_min         message sizes the plan was compiled
 *                 u64 block_bytes_max         for (bytes per peer block; allgatherv:
 *                                             per contribution); max UINT64_MAX
 *                                             = any size (encoding a description
 *                                             whose max is 0 writes UINT64_MAX; a
 *                                             plan whose max is 0 is invalid).
 *                                             Informational: a plan runs at
 *                                             every size; a library choosing among
 *                                             plans matches calls against it.
 *   fifo       := u16 send_depth              >= 1: sends in flight on this FIFO
 *                 u16 recv_depth              receives in flight; 0 = unbounded
 *   stmt       := u8 kind
 *                 u8 fields                   bit k (k < 5): buf0, buf1, slot,
 *                                             wait_event, signal_event is
 *                                             present; bit 5: body is; bit 6:
 *                                             rop, bit 7: rtype is (REDUCE)
 *                 u8 exprs                    bit e: expr[e] is present
 *                 u8 field{popcount(fields & 0xDF)}  the present ones, in bit
 *                                             order (buf0 .. signal_event,
 *                                             rop, rtype)
 *                 u16 body                    if present
 *                 u16 expr{popcount(exprs)}   expr refs (offsets into
 *                                             expr_pool), in slot order
 *              A field or body that is absent is 0, an expression NONE; a
 *              present one is not (so a statement has one encoding). A LET
 *              takes 6 bytes, a transfer 9 to 28 (version 2 spent 24 on
 *              every statement, most of them NONE).
 *   expr_pool  := u8[expr_bytes], a sequence of expressions
 *   expr       := instr* END                  postfix over an int64 stack
 *   instr      := opcode(u8) immediate*       see collrt_expr_op_t
 *
 * Statements form a tree in pre-order: a PHASE, FOR, IF or transfer
 * statement is followed by `body` statements that make up its
 * body (nested bodies counted in full). The top level is a sequence of
 * EXCHANGE, ARENA, PHASE, LET and FOR statements; transfers (SEND, RECV,
 * COPY, REDUCE, NOTIFY, AWAIT) occur only inside a
 * PHASE, and phases do not nest. A FOR outside phases is a phase loop: its
 * body holds only PHASE, LET and FOR (more phase loops), so one phase body
 * can serve several FIFOs (e.g. one per part of a message, each part
 * crossing the dimensions in its own order) and the plan does not grow
 * with their number. Every EXCHANGE precedes the first PHASE or phase
 * loop. A transfer's body holds only FOR, IF, LET, SEG and DEP statements;
 * SEG and DEP occur only in a transfer's body. It runs when the transfer is
 * reached, before the transfer is created.
 *
 *   PHASE  slot = fifo                     the transfers inside use this FIFO;
 *          e0 = offset (NONE = 0)          in a phase loop, FIFO slot + e0
 *                                          (evaluated when the phase is
 *                                          reached; must name a declared FIFO)
 *   FOR    slot = var, buf0 = order         var over [e0, e1); order ASCENDING
 *          or RANDOM (a permutation of the range seeded by e2 and the rank:
 *          the randomized order of BG/L's "AR" all-to-all). RANDOM is exactly:
 *          n = e1 - e0; a[k] = e0 + k; state = (u64)e2 * 0x9E3779B97F4A7C15
 *          + (u64)rank; for k = n-1 down to 1: swap(a[k], a[splitmix64(&state)
 *          % (k+1)]); iterate a[0..n). splitmix64: state += 0x9E3779B97F4A7C15;
 *          z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
 *          z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31.
 *          SHARED_RANDOM is the same without "+ rank": every rank visits the
 *          range in one order, which a receiver can reproduce.
 *   IF     e0 = condition (non-zero = taken)
 *   LET    slot = var, e0 = value          var is visible until the end of
 *                                          the enclosing body
 *   SEND   buf0 = source buffer, e0 = peer, e1 = offset, e2 = length, e3 = tag
 *   RECV   buf0 = destination buffer, e0 = peer, e1 = offset, e2 = length, e3 = tag
 *   COPY   buf0 -> buf1, e0 = source offset, e1 = destination offset, e2 = length
 *   REDUCE buf0 -> buf1, e0 = source offset, e1 = destination offset, e2 = length
 *          in bytes (a multiple of the element size), rop = operation, rtype =
 *          element type (COLLRT_REDUCE_OPS / COLLRT_REDUCE_TYPES, the pair
 *          allowed by the op's classes): combines the source region into the
 *          destination region, element by element in ascending order,
 *          dst[i] = dst[i] OP src[i] (the destination is the left operand;
 *          reduce.c defines each operation exactly, so a float result is a
 *          serial reduction in the plan's order, bitwise). Contiguous on
 *          both sides (slot 0: no segments); otherwise a transfer like COPY:
 *          the injection queue, outside the window, events, the hazard rule
 *          (it reads its source and reads and writes its destination).
 *   SEG    buf0 = buffer, slot = side, e0 = offset, e1 = length: one segment
 *          of the enclosing transfer's data. Side 0 is the message (SEND,
 *          RECV) or the COPY's source, side 1 the COPY's destination.
 *   DEP    wait_event = id+1, e4, e5 = index: one more event the enclosing
 *          transfer waits on (a join).
 *   EXCHANGE                               the bind-time exchange (below)
 *   ARENA  e0 = bytes, e1 = counters       the node's arena (below): at most
 *                                          one, top level, after every
 *                                          EXCHANGE, before the first PHASE
 *   NOTIFY e0 = counter                    adds one to an arena counter
 *   AWAIT  e0 = counter                    completes once the node's ranks
 *                                          executed every NOTIFY of the
 *                                          counter that this run has
 *   PUT    slot = table, e0 = peer, e1 = index, e2 = value: tells rank
 *          `peer` the value of entry `index` of this rank's table `slot`.
 *
 * Bind-time exchange (seed 004's "planned" collective). Some schedules need,
 * on one rank, values only other ranks know: an intermediate that forwards
 * alltoallv blocks must know their counts to receive and lay them out. Bind
 * runs the program twice. The first pass executes the top-level LETs and
 * EXCHANGE bodies up to the last EXCHANGE, which emit PUT records; the
 * records are delivered once per bind (the MPI runtime: one MPI_Alltoall of
 * record counts, then the records point to point, one message per pair
 * that has any; the simulator: in memory),
 * and the second pass expands the whole program (skipping EXCHANGE bodies),
 * where TABLE(t, from, index) reads the value rank `from` PUT to this rank
 * for entry `index` of table t. Reading an entry no rank PUT is an expansion
 * error, as is a rank PUTting one entry twice to the same peer. A receiver
 * that knows what it is told but not by whom reads TABLE_ANY(t, index) (the
 * one rank that PUT it; none or several is an error), and slots laid out in
 * index order begin at TABLE_SUM(t, 0, index), the sum of everything PUT
 * below it (the balanced alltoallv keys an intermediate's stage slots by
 * its own flow index, so one expression places every slot). The TABLE
 * family may not occur in the first pass (an EXCHANGE body, or a top-level
 * LET before the last EXCHANGE). A plan without EXCHANGE binds with no
 * extra messages.
 *
 * Gathered transfers. A transfer's `slot` says which sides are gathered from
 * its SEG statements: bit 0 the message / COPY source, bit 1 the COPY
 * destination. A gathered side moves the concatenation of its segments, in
 * the order they were produced (zero-length segments are dropped); its
 * buffer field is 0 and its offset expression NONE; a transfer with any
 * gathered side has no length expression (e2 NONE): its length is the sum of
 * its segments, and a COPY gathered on both sides must have equal sums. The
 * MPI engine sends and receives a gathered message as one message through a
 * derived datatype built at bind, without a pack copy.
 *
 * Events. Every transfer may wait on an event (wait_event = id+1, index e4,
 * e5), plus one more per DEP statement in its body, and may signal one when
 * it completes (signal_event = id+1, index e6, e7). Unused index slots are
 * NONE and read as 0. A wait on (id, i, j) is satisfied once EVERY transfer
 * of this rank that signals (id, i, j) has completed, wherever it stands in
 * the program: several signallers make a join (or an event counted N times),
 * and a signaller later in program order makes a forward wait (credits:
 * "reuse slot s once the sends out of it completed"). Waits are resolved
 * after the whole program is expanded; waiting on an event no transfer
 * signals is an expansion error, and a cycle of waits is a deadlock that the
 * verifier reports with rank, step and statement. A transfer whose length is
 * 0 is skipped (both sides derive the same lengths) but still signals: its
 * waiters then wait on what it waited on.
 *
 * Every expression slot a statement does not read (by kind, order, events
 * and gathered sides) must be NONE; buffer and slot fields a kind does not
 * use must be 0. SEND reads any buffer; RECV, COPY and REDUCE write only RECV,
 * SCRATCH or ARENA, and so do RECV segments and side-1 segments.
 *
 * Execution model: each FIFO is a pair of queues, like a network interface's
 * injection and reception FIFOs. SENDs and COPYs enter the injection queue and
 * RECVs the reception queue, each in program order. At most send_depth sends
 * and recv_depth receives (0 = no limit) are in flight per FIFO. A transfer
 * whose waits are not all satisfied holds back the later entries of its own
 * queue (head-of-line, as in hardware), never those of other queues or FIFOs.
 * COPY is a transfer like the others: it starts under these rules, completes,
 * and signals; nothing else orders it (the engine may perform it at once or
 * in chunks). Each FIFO matches only its own messages (a private
 * communicator), in MPI's non-overtaking order per (peer, tag). A send may
 * complete only once its receive is posted (rendezvous), so a program whose
 * queue orders disagree between peers can deadlock; collc's verifier
 * simulates exactly this.
 *
 * Hazards. Two transfers of a rank that touch overlapping bytes of a buffer,
 * at least one of them writing, must be ordered by a chain of waits (one
 * waits, directly or through others, on the other); otherwise the plan has a
 * race
 * (e.g. a COPY packing scratch and a SEND of the packed bytes with no wait
 * between them) and the verifier rejects it, naming both statements.
 *
 * Node arena (seed 004's "collect into shared memory"; version 4). The
 * ranks of one node (r / ranks_per_node) share an ARENA of `bytes` bytes and
 * `counters` counters, allocated once at bind in node shared memory; every
 * rank of a node must evaluate the same two values (bind checks), at most
 * 2^16 counters. Buffer ARENA names it: SEND reads it, RECV and COPY (and
 * their written segments) write it, like RECV and SCRATCH. NOTIFY and AWAIT
 * are transfers that move no data: they wait on events, signal them, and
 * sit in their phase's injection queue in program order (outside the
 * window, like COPY). NOTIFY, once issued, adds one to counter e0 and
 * completes. AWAIT on counter c completes once every NOTIFY of c that the
 * node's ranks execute in this run has been executed (bind sums each
 * rank's count over the node): it happens after all of them, so e.g. a
 * leader's sends out of the arena AWAIT the NOTIFY each core makes after
 * its COPY into it. Ordering: two accesses to overlapping arena bytes, by
 * any ranks of the node, at least one a write, must be ordered by a chain
 * of waits and NOTIFY -> AWAIT edges, or the verifier rejects the plan as
 * a race naming both ranks and statements. Runs never overlap on the
 * arena: a rank's arena steps (those touching ARENA, NOTIFY, AWAIT) of run
 * e + 1 start only once every rank of the node has completed run e, so the
 * counters never mix runs and run e + 1 never overwrites bytes run e still
 * reads. Memory order: NOTIFY is a release increment, AWAIT an acquire load
 * of the counter (C11 atomics in the shared window, which MPI-3's unified
 * model makes coherent between the node's processes).
 *
 * A plan whose expressions use the topology (DIM, COORD, RANK_AT) only runs on
 * a communicator of exactly prod(shape) * ranks_per_node ranks; any other plan
 * is defined for every communicator size. Rank r lives on node
 * r / ranks_per_node; node coordinates run x fastest. With ranks_per_node >
 * 1, bind checks this against where MPI says the ranks are (the runtime's
 * node_map.c) and refuses another layout.
 * ---------------------------------------------------------------------------
 */
#ifndef COLLC_PLAN_FORMAT_H
#define COLLC_PLAN_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COLLRT_PLAN_MAGIC "COLLPLAN"
#define COLLRT_PLAN_FORMAT_VERSION 5
#define COLLRT_PLAN_HEADER_BYTES 80
#define COLLRT_PLAN_FIFO_BYTES 4
#define COLLRT_PLAN_STMT_MAX_BYTES 28 /* 3 + 7 fields + body + 8 expressions */
#define COLLRT_STMT_HAS_BODY 0x20u
#define COLLRT_STMT_BYTE_FIELDS 0xDFu /* buf0 .. signal_event, rop, rtype */
#define COLLRT_PLAN_CHECKSUM_OFFSET 16
#define COLLRT_PLAN_CHECKED_FROM 20

/* Header flags. */
#define COLLRT_PLAN_F_UNVERIFIED 0x01u /* compiled with --no-verify */

#define COLLRT_MAX_DIMS 3
#define COLLRT_MAX_FIFOS 16
#define COLLRT_MAX_EVENTS 16
#define COLLRT_MAX_VARS 64 /* = COLLRT_X_VAR_SHORT_END_ - COLLRT_X_VAR_SHORT */
#define COLLRT_MAX_STMTS 4096
#define COLLRT_MAX_EXPR_STACK 16
#define COLLRT_MAX_TABLES 8
#define COLLRT_MAX_SUM_NESTING 4
#define COLLRT_STMT_EXPRS 8
#define COLLRT_EXPR_NONE 0xFFFFu

/* The one table of collectives and algorithms: X(NAME, id, "spelling").
 * The C runtime, the compiler's emitter and importer, and the tools expand
 * it, so a name and its number are defined once. The algorithm of a plan is
 * informational (the runtime executes any valid program); it names what
 * produced the program. */
#define COLLRT_OPS(X)                                                          \
  X(ALLTOALL, 1, "alltoall")                                                   \
  X(ALLTOALLV, 2, "alltoallv")                                                 \
  X(ALLGATHERV, 3, "allgatherv")                                               \
  X(ALLREDUCE, 4, "allreduce")                                                 \
  X(BCAST, 5, "bcast")

#define COLLRT_ALGORITHMS(X)                                                   \
  X(DIRECT, 1, "direct")                                                       \
  X(BLOCKED_RING, 2, "blocked-ring")                                           \
  X(TWO_PHASE, 3, "two-phase")                                                 \
  X(VMESH, 4, "vmesh")                                                         \
  X(SMP_LEADER, 5, "smp-leader")                                               \
  X(SMP_ALL_CORES, 6, "smp-all-cores")                                         \
  X(PLANNED, 7, "planned")                                                     \
  X(SMP_RING, 8, "smp-blocked-ring")                                           \
  X(CUSTOM, 9, "custom")                                                       \
  X(BALANCED, 10, "balanced")                                                  \
  X(DIM_RINGS, 11, "dim-rings")                                               \
  X(RECURSIVE_DOUBLING, 12, "recursive-doubling")                             \
  X(BINOMIAL, 13, "binomial")                                                 \
  X(RING, 14, "ring")                                                         \
  X(PIPELINED_CHAIN, 15, "pipelined-chain")                                   \
  X(SLICE_RINGS, 16, "slice-rings")                                           \
  X(MULTI_COLOUR, 17, "multi-colour")

typedef enum collrt_op {
#define COLLRT_X_ENUM(NAME, ID, SPELLING) COLLRT_OP_##NAME = ID,
  COLLRT_OPS(COLLRT_X_ENUM)
#undef COLLRT_X_ENUM
} collrt_op_t;

typedef enum collrt_algorithm {
#define COLLRT_X_ENUM(NAME, ID, SPELLING) COLLRT_ALG_##NAME = ID,
  COLLRT_ALGORITHMS(COLLRT_X_ENUM)
#undef COLLRT_X_ENUM
} collrt_algorithm_t;

typedef enum collrt_stmt_kind {
  COLLRT_STMT_PHASE = 1,
  COLLRT_STMT_FOR = 2,
  COLLRT_STMT_IF = 3,
  COLLRT_STMT_LET = 4,
  COLLRT_STMT_SEND = 5,
  COLLRT_STMT_RECV = 6,
  COLLRT_STMT_COPY = 7,
  COLLRT_STMT_SEG = 8,
  COLLRT_STMT_DEP = 9,
  COLLRT_STMT_EXCHANGE = 10,
  COLLRT_STMT_PUT = 11,
  COLLRT_STMT_ARENA = 12,
  COLLRT_STMT_NOTIFY = 13,
  COLLRT_STMT_AWAIT = 14,
  COLLRT_STMT_REDUCE = 15,
} collrt_stmt_kind_t;

/* The one table of REDUCE operations and element types (MPI's built-in
 * operations on MPI's C types). The runtime's kernels (reduce.c), the plan
 * decoder, the simulator, the compiler's op verifier, emitter and importer
 * and collc-run all expand it, so a name, its number, its size and which
 * pairs are allowed are defined once.
 *
 *   COLLRT_REDUCE_OPS(X):   X(NAME, id, "spelling", classes it applies to)
 *   COLLRT_REDUCE_TYPES(X): X(NAME, id, "spelling", C type, class)
 *
 * Classes: INT (C integers), FLOAT (C floating types), PAIR (value and int
 * index, MPI's MINLOC/MAXLOC types). A pair outside the op's classes (BAND
 * on double) is invalid: the decoder rejects the plan naming both. The pair
 * types' C structs are defined beside the table: their layout is MPI's
 * (struct { value; int index; }). */
enum {
  COLLRT_RC_INT = 0x1u,
  COLLRT_RC_FLOAT = 0x2u,
  COLLRT_RC_PAIR = 0x4u,
};

#define COLLRT_REDUCE_OPS(X)                                                   \
  X(SUM, 1, "sum", COLLRT_RC_INT | COLLRT_RC_FLOAT)                            \
  X(PROD, 2, "prod", COLLRT_RC_INT | COLLRT_RC_FLOAT)                          \
  X(MIN, 3, "min", COLLRT_RC_INT | COLLRT_RC_FLOAT)                            \
  X(MAX, 4, "max", COLLRT_RC_INT | COLLRT_RC_FLOAT)                            \
  X(LAND, 5, "land", COLLRT_RC_INT)                                            \
  X(LOR, 6, "lor", COLLRT_RC_INT)                                              \
  X(LXOR, 7, "lxor", COLLRT_RC_INT)                                            \
  X(BAND, 8, "band", COLLRT_RC_INT)                                            \
  X(BOR, 9, "bor", COLLRT_RC_INT)                                              \
  X(BXOR, 10, "bxor", COLLRT_RC_INT)                                           \
  X(MINLOC, 11, "minloc", COLLRT_RC_PAIR)                                      \
  X(MAXLOC, 12, "maxloc", COLLRT_RC_PAIR)

typedef struct collrt_float_int { float v; int i; } collrt_float_int_t;
typedef struct collrt_double_int { double v; int i; } collrt_double_int_t;
typedef struct collrt_long_int { long v; int i; } collrt_long_int_t;
typedef struct collrt_2int { int v; int i; } collrt_2int_t;
typedef struct collrt_short_int { short v; int i; } collrt_short_int_t;
typedef struct collrt_long_double_int { long double v; int i; } collrt_long_double_int_t;

#define COLLRT_REDUCE_TYPES(X)                                                 \
  X(SCHAR, 1, "signed_char", signed char, COLLRT_RC_INT)                       \
  X(UCHAR, 2, "unsigned_char", unsigned char, COLLRT_RC_INT)                   \
  X(SHORT, 3, "short", short, COLLRT_RC_INT)                                   \
  X(USHORT, 4, "unsigned_short", unsigned short, COLLRT_RC_INT)                \
  X(INT, 5, "int", int, COLLRT_RC_INT)                                         \
  X(UNSIGNED, 6, "unsigned", unsigned, COLLRT_RC_INT)                          \
  X(LONG, 7, "long", long, COLLRT_RC_INT)                                      \
  X(ULONG, 8, "unsigned_long", unsigned long, COLLRT_RC_INT)                   \
  X(LONG_LONG, 9, "long_long", long long, COLLRT_RC_INT)                       \
  X(ULONG_LONG, 10, "unsigned_long_long", unsigned long long, COLLRT_RC_INT)   \
  X(INT8, 11, "int8_t", int8_t, COLLRT_RC_INT)                                 \
  X(UINT8, 12, "uint8_t", uint8_t, COLLRT_RC_INT)                              \
  X(INT16, 13, "int16_t", int16_t, COLLRT_RC_INT)                              \
  X(UINT16, 14, "uint16_t", uint16_t, COLLRT_RC_INT)                           \
  X(INT32, 15, "int32_t", int32_t, COLLRT_RC_INT)                              \
  X(UINT32, 16, "uint32_t", uint32_t, COLLRT_RC_INT)                           \
  X(INT64, 17, "int64_t", int64_t, COLLRT_RC_INT)                              \
  X(UINT64, 18, "uint64_t", uint64_t, COLLRT_RC_INT)                           \
  X(FLOAT, 19, "float", float, COLLRT_RC_FLOAT)                                \
  X(DOUBLE, 20, "double", double, COLLRT_RC_FLOAT)                             \
  X(LONG_DOUBLE, 21, "long_double", long double, COLLRT_RC_FLOAT)              \
  X(FLOAT_INT, 22, "float_int", collrt_float_int_t, COLLRT_RC_PAIR)            \
  X(DOUBLE_INT, 23, "double_int", collrt_double_int_t, COLLRT_RC_PAIR)         \
  X(LONG_INT, 24, "long_int", collrt_long_int_t, COLLRT_RC_PAIR)               \
  X(2INT, 25, "2int", collrt_2int_t, COLLRT_RC_PAIR)                           \
  X(SHORT_INT, 26, "short_int", collrt_short_int_t, COLLRT_RC_PAIR)            \
  X(LONG_DOUBLE_INT, 27, "long_double_int", collrt_long_double_int_t,          \
    COLLRT_RC_PAIR)

typedef enum collrt_reduce_op {
#define COLLRT_X_ENUM(NAME, ID, SPELLING, CLASSES) COLLRT_ROP_##NAME = ID,
  COLLRT_REDUCE_OPS(COLLRT_X_ENUM)
#undef COLLRT_X_ENUM
} collrt_reduce_op_t;

typedef enum collrt_reduce_type {
#define COLLRT_X_ENUM(NAME, ID, SPELLING, CTYPE, CLASS) COLLRT_RTYPE_##NAME = ID,
  COLLRT_REDUCE_TYPES(COLLRT_X_ENUM)
#undef COLLRT_X_ENUM
} collrt_reduce_type_t;

#define COLLRT_MAX_ARENA_COUNTERS 65536

/* Transfer `slot` bits: which sides are gathered from SEG statements. */
enum { COLLRT_GATHER_SRC = 0x1u, COLLRT_GATHER_DST = 0x2u };
/* SEG `slot`: the side a segment belongs to. */
enum { COLLRT_SIDE_SRC = 0, COLLRT_SIDE_DST = 1 };

typedef enum collrt_loop_order {
  COLLRT_ORDER_ASCENDING = 0,
  COLLRT_ORDER_RANDOM = 1,
  COLLRT_ORDER_SHARED_RANDOM = 2,
} collrt_loop_order_t;

/* Buffers a transfer reads or writes. Offsets and lengths are in bytes. */
typedef enum collrt_buffer {
  COLLRT_BUF_SEND = 0,
  COLLRT_BUF_RECV = 1,
  COLLRT_BUF_SCRATCH = 2, /* per-rank, scratch_expr bytes, allocated at bind */
  COLLRT_BUF_ARENA = 3,   /* per node, the ARENA statement's bytes (shared) */
  COLLRT_BUF_COUNT_ = 4,
} collrt_buffer_t;

/* Expression slots of a statement (stmt.expr[i]). */
enum {
  COLLRT_E_PEER = 0, COLLRT_E_SRC_OFF = 0, COLLRT_E_COND = 0, COLLRT_E_VALUE = 0,
  COLLRT_E_LO = 0, COLLRT_E_FIFO_OFFSET = 0,
  COLLRT_E_OFF = 1, COLLRT_E_DST_OFF = 1, COLLRT_E_HI = 1,
  COLLRT_E_LEN = 2, COLLRT_E_SEED = 2,
  COLLRT_E_TAG = 3,
  COLLRT_E_WAIT_I = 4, COLLRT_E_WAIT_J = 5,
  COLLRT_E_SIGNAL_I = 6, COLLRT_E_SIGNAL_J = 7,
  COLLRT_E_SEG_OFF = 0, COLLRT_E_SEG_LEN = 1,
  COLLRT_E_PUT_INDEX = 1, COLLRT_E_PUT_VALUE = 2,
  COLLRT_E_ARENA_BYTES = 0, COLLRT_E_ARENA_COUNTERS = 1, COLLRT_E_COUNTER = 0,
};

/* Expression instructions. Immediates follow the opcode byte. "pop" reads
 * from the stack (the last pushed first); every result is pushed. Arithmetic
 * is int64 and overflow is an error, as are division by zero, negative
 * ISQRT and array indices outside [0, size). */
typedef enum collrt_expr_op {
  COLLRT_X_END = 0x00,
  COLLRT_X_CONST32 = 0x01,  /* imm i32 */
  COLLRT_X_CONST64 = 0x02,  /* imm i64 */
  COLLRT_X_RANK = 0x03,     /* this rank in the bound communicator */
  COLLRT_X_SIZE = 0x04,     /* communicator size P */
  COLLRT_X_VAR = 0x05,      /* imm u8 variable */
  COLLRT_X_DIM = 0x06,      /* imm u8 d: shape[d] (topology) */
  COLLRT_X_RPN = 0x07,      /* ranks per node */
  COLLRT_X_COORD = 0x08,    /* imm u8 d; pop rank: node coordinate d (topology) */
  COLLRT_X_RANK_AT = 0x09,  /* pop local, then ndims coords (last dim first):
                               rank of that core of that node (topology) */
  COLLRT_X_SCOUNT = 0x10,   /* pop i: bytes this rank sends to rank i */
  COLLRT_X_SDISPL = 0x11,   /* pop i: send buffer offset for rank i */
  COLLRT_X_RCOUNT = 0x12,   /* pop i: bytes this rank receives from rank i */
  COLLRT_X_RDISPL = 0x13,   /* pop i: receive buffer offset for rank i */
  COLLRT_X_RCOUNT_SUM = 0x14,    /* sum of all receive counts */
  COLLRT_X_RCOUNT_MINPOS = 0x15, /* smallest positive receive count, 0 if none */
  COLLRT_X_RCOUNT_ZEROS = 0x16,  /* number of zero receive counts */
  COLLRT_X_TABLE = 0x17,    /* imm u8 t; pop index, then from: the value rank
                               `from` PUT to this rank at (t, index) */
  COLLRT_X_SUM = 0x18,      /* imm u8 var, imm u16 n; pop hi, then lo; the
                               next n bytes are the summand, an expression
                               without END that pushes one value: pushes
                               sum over var in [lo, hi) of the summand (0 if
                               hi <= lo), then continues after it. The var
                               is visible only in the summand; SUMs nest at
                               most COLLRT_MAX_SUM_NESTING deep */
  COLLRT_X_SUM_MAX = 0x19,  /* as SUM, but pushes the maximum of the summand
                               over [lo, hi) (0 if hi <= lo): the size of the
                               largest of several variable stages, e.g. a
                               stage slot reused round robin. Nests with SUM
                               in the same budget */
  COLLRT_X_TABLE_ANY = 0x1A, /* imm u8 t; pop index: the value the one rank
                               that PUT entry (t, index) to this rank PUT,
                               whoever it was; an error if none or several
                               did. For a receiver that knows what it is
                               told but not by whom (an intermediate's
                               stage slots, keyed by its own flow index) */
  COLLRT_X_TABLE_SUM = 0x1B, /* imm u8 t; pop hi, then lo: the sum of the
                               values PUT to this rank in table t at every
                               index in [lo, hi), by any rank (0 if none): a
                               prefix sum over what the exchange delivered,
                               e.g. where a stage slot begins when slots are
                               laid out in index order; an error if it does
                               not fit in int64 */
  COLLRT_X_ADD = 0x20,      /* pop b, a: a + b */
  COLLRT_X_SUB = 0x21,
  COLLRT_X_MUL = 0x22,
  COLLRT_X_DIV = 0x23,      /* floor division */
  COLLRT_X_MOD = 0x24,      /* floor modulo: result has the sign of b */
  COLLRT_X_MIN = 0x25,
  COLLRT_X_MAX = 0x26,
  COLLRT_X_CEILDIV = 0x27,
  COLLRT_X_EQ = 0x30,       /* comparisons push 1 or 0 */
  COLLRT_X_NE = 0x31,
  COLLRT_X_LT = 0x32,
  COLLRT_X_LE = 0x33,
  COLLRT_X_GT = 0x34,
  COLLRT_X_GE = 0x35,
  COLLRT_X_AND = 0x36,      /* logical, on non-zero */
  COLLRT_X_OR = 0x37,
  COLLRT_X_NOT = 0x38,      /* pop a */
  COLLRT_X_SELECT = 0x39,   /* pop b, a, c: c ? a : b */
  COLLRT_X_ISQRT = 0x3A,    /* pop a: floor(sqrt(a)) */
  /* One-byte forms of the two commonest instructions (most of a plan's
   * expression bytes were CONST32 of small values and VAR): */
  COLLRT_X_SMALL = 0x40,    /* 0x40 + v, v in [0, 32): push v */
  COLLRT_X_SMALL_END_ = 0x60,
  COLLRT_X_VAR_SHORT = 0x80, /* 0x80 + v, v < COLLRT_MAX_VARS: as VAR v */
  COLLRT_X_VAR_SHORT_END_ = 0x80 + 64,
} collrt_expr_op_t;

/* Decoded header and program. The runtime decodes into this after checking
 * bounds and checksum; the compiler fills it and calls collrt_plan_encode. */
typedef struct collrt_fifo_desc {
  uint16_t send_depth;
  uint16_t recv_depth;
} collrt_fifo_desc_t;

typedef struct collrt_stmt {
  uint8_t kind;
  uint8_t buf0;
  uint8_t buf1;
  uint8_t slot;
  uint8_t wait_event;   /* event id + 1, 0 = none */
  uint8_t signal_event; /* event id + 1, 0 = none */
  uint8_t rop;          /* REDUCE: collrt_reduce_op_t; others 0 */
  uint8_t rtype;        /* REDUCE: collrt_reduce_type_t; others 0 */
  uint16_t body;
  uint16_t expr[COLLRT_STMT_EXPRS];
} collrt_stmt_t;

typedef struct collrt_plan_desc {
  uint16_t producer_version;
  uint8_t op;
  uint8_t algorithm;
  uint8_t ndims;
  uint8_t wrap_mask;
  uint32_t shape[COLLRT_MAX_DIMS];
  uint32_t ranks_per_node;
  uint32_t alpha_ps;
  uint32_t beta_ps_per_byte;
  uint32_t gamma_ps_per_byte;
  uint8_t nfifos;
  uint8_t nevents;
  uint8_t nvars;
  uint8_t flags; /* COLLRT_PLAN_F_* */
  uint16_t nstmts;
  uint16_t expr_bytes;
  uint16_t scratch_expr;
  uint8_t ntables;
  uint64_t block_bytes_min;
  uint64_t block_bytes_max; /* UINT64_MAX: any size (0 when encoding: the same) */
  const collrt_fifo_desc_t *fifos;
  const collrt_stmt_t *stmts;
  const uint8_t *exprs;
} collrt_plan_desc_t;

#ifdef __cplusplus
}
#endif

#endif /* COLLC_PLAN_FORMAT_H */

/* collc plan format, version 1: the one definition shared by the compiler
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
 *                 u8  reserved                = 0
 *                 u16 nstmts                  1..COLLRT_MAX_STMTS
 *                 u16 expr_bytes              size of expr_pool
 *                 u16 scratch_expr            expr ref: scratch bytes, or NONE
 *                 u16 reserved                = 0
 *   fifo       := u16 send_depth              >= 1: sends in flight on this FIFO
 *                 u16 recv_depth              receives in flight; 0 = unbounded
 *   stmt       := u8 kind  u8 buf0  u8 buf1  u8 slot
 *                 u8 wait_event  u8 signal_event  u16 body
 *                 u16 expr[8]                 expr refs (offsets into expr_pool)
 *   expr_pool  := u8[expr_bytes], a sequence of expressions
 *   expr       := instr* END                  postfix over an int64 stack
 *   instr      := opcode(u8) immediate*       see collrt_expr_op_t
 *
 * Statements form a tree in pre-order: a PHASE, FOR or IF statement is
 * followed by `body` statements that make up its body (nested bodies counted
 * in full). The top level is a sequence of PHASE and LET statements; SEND,
 * RECV and COPY occur only inside a PHASE, and phases do not nest.
 *
 *   PHASE  slot = fifo                     the transfers inside use this FIFO
 *   FOR    slot = var, buf0 = order         var over [e0, e1); order ASCENDING
 *          or RANDOM (a permutation of the range seeded by e2 and the rank:
 *          the randomized order of BG/L's "AR" all-to-all). RANDOM is exactly:
 *          n = e1 - e0; a[k] = e0 + k; state = (u64)e2 * 0x9E3779B97F4A7C15
 *          + (u64)rank; for k = n-1 down to 1: swap(a[k], a[splitmix64(&state)
 *          % (k+1)]); iterate a[0..n). splitmix64: state += 0x9E3779B97F4A7C15;
 *          z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
 *          z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31.
 *   IF     e0 = condition (non-zero = taken)
 *   LET    slot = var, e0 = value          var is visible until the end of
 *                                          the enclosing body
 *   SEND   buf0 = source buffer, e0 = peer, e1 = offset, e2 = length, e3 = tag
 *   RECV   buf0 = destination buffer, e0 = peer, e1 = offset, e2 = length, e3 = tag
 *   COPY   buf0 -> buf1, e0 = source offset, e1 = destination offset, e2 = length
 *
 * Every transfer (SEND, RECV, COPY) may wait on an event (wait_event = id+1,
 * index e4, e5) and may signal one when it completes (signal_event = id+1,
 * index e6, e7). Unused index slots are NONE and read as 0. Every expression
 * slot a statement does not read (by kind, order and events) must be NONE;
 * buf0/buf1/slot fields a kind does not use must be 0. SEND reads any buffer;
 * RECV and COPY write only RECV or SCRATCH. An event (id, i, j)
 * is signalled by at most one transfer per rank, before (in program order)
 * any transfer that waits on it; this is how "forward chunk k once it has
 * arrived" is expressed. A transfer whose length evaluates to 0 is skipped
 * (both sides derive the same lengths), but still signals its event; a later
 * transfer waiting on that event then waits on whatever the skipped transfer
 * waited on (nothing, if it waited on nothing).
 *
 * Execution model: each FIFO is a pair of queues, like a network interface's
 * injection and reception FIFOs. SENDs and COPYs enter the injection queue and
 * RECVs the reception queue, each in program order. At most send_depth sends
 * and recv_depth receives (0 = no limit) are in flight per FIFO. A transfer
 * whose event has not been signalled holds back the later entries of its own
 * queue (head-of-line, as in hardware), never those of other queues or FIFOs.
 * Each FIFO matches only its own messages (a private communicator), in MPI's
 * non-overtaking order per (peer, tag). A send may complete only once its
 * receive is posted (rendezvous), so a program whose queue orders disagree
 * between peers can deadlock; collc's verifier simulates exactly this.
 *
 * A plan whose expressions use the topology (DIM, COORD, RANK_AT) only runs on
 * a communicator of exactly prod(shape) * ranks_per_node ranks; any other plan
 * is defined for every communicator size. Rank r lives on node
 * r / ranks_per_node; node coordinates run x fastest.
 * ---------------------------------------------------------------------------
 */
#ifndef COLLC_PLAN_FORMAT_H
#define COLLC_PLAN_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COLLRT_PLAN_MAGIC "COLLPLAN"
#define COLLRT_PLAN_FORMAT_VERSION 1
#define COLLRT_PLAN_HEADER_BYTES 64
#define COLLRT_PLAN_FIFO_BYTES 4
#define COLLRT_PLAN_STMT_BYTES 24
#define COLLRT_PLAN_CHECKSUM_OFFSET 16
#define COLLRT_PLAN_CHECKED_FROM 20

#define COLLRT_MAX_DIMS 3
#define COLLRT_MAX_FIFOS 16
#define COLLRT_MAX_EVENTS 16
#define COLLRT_MAX_VARS 64
#define COLLRT_MAX_STMTS 4096
#define COLLRT_MAX_EXPR_STACK 16
#define COLLRT_STMT_EXPRS 8
#define COLLRT_EXPR_NONE 0xFFFFu

typedef enum collrt_op {
  COLLRT_OP_ALLTOALL = 1,
  COLLRT_OP_ALLTOALLV = 2,
  COLLRT_OP_ALLGATHERV = 3,
} collrt_op_t;

typedef enum collrt_algorithm {
  COLLRT_ALG_DIRECT = 1,
  COLLRT_ALG_BLOCKED_RING = 2,
} collrt_algorithm_t;

typedef enum collrt_stmt_kind {
  COLLRT_STMT_PHASE = 1,
  COLLRT_STMT_FOR = 2,
  COLLRT_STMT_IF = 3,
  COLLRT_STMT_LET = 4,
  COLLRT_STMT_SEND = 5,
  COLLRT_STMT_RECV = 6,
  COLLRT_STMT_COPY = 7,
} collrt_stmt_kind_t;

typedef enum collrt_loop_order {
  COLLRT_ORDER_ASCENDING = 0,
  COLLRT_ORDER_RANDOM = 1,
} collrt_loop_order_t;

/* Buffers a transfer reads or writes. Offsets and lengths are in bytes. */
typedef enum collrt_buffer {
  COLLRT_BUF_SEND = 0,
  COLLRT_BUF_RECV = 1,
  COLLRT_BUF_SCRATCH = 2, /* per-rank, scratch_expr bytes, allocated at bind */
  COLLRT_BUF_COUNT_ = 3,
} collrt_buffer_t;

/* Expression slots of a statement (stmt.expr[i]). */
enum {
  COLLRT_E_PEER = 0, COLLRT_E_SRC_OFF = 0, COLLRT_E_COND = 0, COLLRT_E_VALUE = 0,
  COLLRT_E_LO = 0,
  COLLRT_E_OFF = 1, COLLRT_E_DST_OFF = 1, COLLRT_E_HI = 1,
  COLLRT_E_LEN = 2, COLLRT_E_SEED = 2,
  COLLRT_E_TAG = 3,
  COLLRT_E_WAIT_I = 4, COLLRT_E_WAIT_J = 5,
  COLLRT_E_SIGNAL_I = 6, COLLRT_E_SIGNAL_J = 7,
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
  uint16_t nstmts;
  uint16_t expr_bytes;
  uint16_t scratch_expr;
  const collrt_fifo_desc_t *fifos;
  const collrt_stmt_t *stmts;
  const uint8_t *exprs;
} collrt_plan_desc_t;

#ifdef __cplusplus
}
#endif

#endif /* COLLC_PLAN_FORMAT_H */

/* Postfix expression interpreter: int64, overflow-checked, floor division. */
#include <stdio.h>

#include "expr_eval.h"
#include "plan_internal.h"

int64_t collrt_floordiv(int64_t a, int64_t b, int *ok) {
  if (b == 0 || (a == INT64_MIN && b == -1)) {
    *ok = 0;
    return 0;
  }
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t collrt_floormod(int64_t a, int64_t b, int *ok) {
  if (b == 0) {
    *ok = 0;
    return 0;
  }
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

/* The arithmetic of the binary opcodes, shared by the interpreter (inlined
 * on its hot path: the exported name is interposable in a shared library)
 * and by collrt_expr_fold, the compiler's constant folding. */
static inline int fold_binary(unsigned opcode, int64_t a, int64_t b, int64_t *out) {
  int ok = 1;
  int64_t v = 0;
  switch (opcode) {
  case COLLRT_X_ADD: ok = !__builtin_add_overflow(a, b, &v); break;
  case COLLRT_X_SUB: ok = !__builtin_sub_overflow(a, b, &v); break;
  case COLLRT_X_MUL: ok = !__builtin_mul_overflow(a, b, &v); break;
  case COLLRT_X_MOD: v = collrt_floormod(a, b, &ok); break;
  case COLLRT_X_DIV: v = collrt_floordiv(a, b, &ok); break;
  case COLLRT_X_CEILDIV:
    v = collrt_floordiv(a, b, &ok);
    if (ok && v * b != a)
      ++v;
    break;
  case COLLRT_X_MIN: v = a < b ? a : b; break;
  case COLLRT_X_MAX: v = a > b ? a : b; break;
  case COLLRT_X_EQ: v = a == b; break;
  case COLLRT_X_NE: v = a != b; break;
  case COLLRT_X_LT: v = a < b; break;
  case COLLRT_X_LE: v = a <= b; break;
  case COLLRT_X_GT: v = a > b; break;
  case COLLRT_X_GE: v = a >= b; break;
  case COLLRT_X_AND: v = a && b; break;
  case COLLRT_X_OR: v = a || b; break;
  default: ok = 0;
  }
  if (ok)
    *out = v;
  return ok;
}

int collrt_expr_fold(unsigned opcode, int64_t a, int64_t b, int64_t *out) {
  return fold_binary(opcode, a, b, out);
}

static int64_t isqrt64(int64_t a) {
  int64_t lo = 0, hi = 3037000499; /* floor(sqrt(INT64_MAX)) */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (mid * mid <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

#define FAIL(...)                                                              \
  do {                                                                         \
    snprintf(why, why_len, __VA_ARGS__);                                       \
    return COLLRT_ERR_BOUNDS;                                                  \
  } while (0)

static collrt_status_t array_index(const collrt_expand_input_t *in, int64_t i,
                                   const char *name, char *why, size_t why_len) {
  if (i < 0 || i >= in->size)
    FAIL("%s(%lld) is outside [0, %d)", name, (long long)i, in->size);
  return COLLRT_OK;
}

/* TABLE(t, from, index): binary search of the sorted entries. */
/* The first entry at or after (t, index, from) in the order
 * collrt_tables_sort leaves them in: by table, index, then sender. */
static size_t table_first(const collrt_expand_input_t *in, unsigned t, int64_t index,
                          int64_t from) {
  const collrt_table_entry_t *e = in->tables ? in->tables->entries : NULL;
  size_t lo = 0, hi = in->tables ? in->tables->count : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const collrt_table_entry_t *m = &e[mid];
    int less = m->table != t ? m->table < t : m->index != index ? m->index < index : m->from < from;
    if (less)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The sum of the values PUT in table t below `index`; 0 if it does not fit
 * in int64. */
static int table_prefix(const collrt_expand_input_t *in, unsigned t, int64_t index,
                        int64_t *out) {
  size_t n = in->tables ? in->tables->count : 0;
  const collrt_table_entry_t *e = n ? in->tables->entries : NULL;
  size_t at = n ? table_first(in, t, index, INT32_MIN) : 0;
  *out = 0;
  if (at < n && e[at].table == t) {
    *out = e[at].before;
    return !e[at].overflow;
  }
  /* past table t's last entry: its running sum plus its value */
  if (at == 0 || e[at - 1].table != t)
    return 1;
  return !e[at - 1].overflow && !__builtin_add_overflow(e[at - 1].before, e[at - 1].value, out);
}

static collrt_status_t table_lookup(const collrt_expand_input_t *in, unsigned t, int64_t from,
                                    int64_t index, int64_t *out, char *why, size_t why_len) {
  if (from < 0 || from >= in->size)
    FAIL("TABLE %u: rank %lld is outside [0, %d)", t, (long long)from, in->size);
  size_t at = table_first(in, t, index, from);
  const collrt_table_entry_t *e = in->tables ? in->tables->entries : NULL;
  if (in->tables && at < in->tables->count && e[at].table == t && e[at].index == index &&
      e[at].from == from) {
    *out = e[at].value;
    return COLLRT_OK;
  }
  FAIL("TABLE %u: rank %lld PUT no entry %lld to rank %d in the bind-time exchange", t,
       (long long)from, (long long)index, in->rank);
}

static collrt_status_t table_any(const collrt_expand_input_t *in, unsigned t, int64_t index,
                                 int64_t *out, char *why, size_t why_len) {
  size_t at = table_first(in, t, index, INT32_MIN);
  size_t n = in->tables ? in->tables->count : 0;
  const collrt_table_entry_t *e = in->tables ? in->tables->entries : NULL;
  if (at >= n || e[at].table != t || e[at].index != index)
    FAIL("TABLE_ANY %u: no rank PUT entry %lld to rank %d in the bind-time exchange", t,
         (long long)index, in->rank);
  if (at + 1 < n && e[at + 1].table == t && e[at + 1].index == index)
    FAIL("TABLE_ANY %u: ranks %d and %d both PUT entry %lld to rank %d; it needs one", t,
         e[at].from, e[at + 1].from, (long long)index, in->rank);
  *out = e[at].value;
  return COLLRT_OK;
}

/* Evaluates the code at `pc` up to END (end = 0) or up to `end` (a SUM's
 * summand), leaving the value in *out and the position after it in *pcp. */
static collrt_status_t eval_code(const collrt_expr_ctx_t *ctx, unsigned *pcp, unsigned end,
                                 int64_t *out, char *why, size_t why_len) {
  const collrt_plan_desc_t *d = ctx->desc;
  const collrt_expand_input_t *in = ctx->in;
  const uint8_t *x = d->exprs;
  int64_t st[COLLRT_MAX_EXPR_STACK];
  int sp = 0;
  unsigned pc = *pcp;
  collrt_status_t s;
  for (;;) {
    if (end && pc == end) {
      *out = st[0];
      *pcp = pc;
      return COLLRT_OK;
    }
    uint8_t op = x[pc++];
    int64_t a, b, c, v = 0;
    if (op >= COLLRT_X_SMALL && op < COLLRT_X_SMALL_END_) {
      st[sp++] = op - COLLRT_X_SMALL;
      continue;
    }
    if (op >= COLLRT_X_VAR_SHORT && op < COLLRT_X_VAR_SHORT_END_) {
      st[sp++] = ctx->vars[op - COLLRT_X_VAR_SHORT];
      continue;
    }
    switch (op) {
    case COLLRT_X_END:
      *out = st[0];
      *pcp = pc;
      return COLLRT_OK;
    case COLLRT_X_TABLE: {
      unsigned t = x[pc++];
      b = st[--sp];
      a = st[--sp];
      if ((s = table_lookup(in, t, a, b, &v, why, why_len)))
        return s;
      break;
    }
    case COLLRT_X_TABLE_SUM: {
      /* the running sums collrt_tables_sort left: O(log entries) */
      unsigned t = x[pc++];
      b = st[--sp];
      a = st[--sp];
      int64_t hi_sum, lo_sum;
      if (b > a && (!table_prefix(in, t, b, &hi_sum) || !table_prefix(in, t, a, &lo_sum) ||
                    __builtin_sub_overflow(hi_sum, lo_sum, &v)))
        FAIL("TABLE_SUM %u over [%lld, %lld) overflows int64", t, (long long)a, (long long)b);
      break;
    }
    case COLLRT_X_TABLE_ANY: {
      unsigned t = x[pc++];
      a = st[--sp];
      if ((s = table_any(in, t, a, &v, why, why_len)))
        return s;
      break;
    }
    case COLLRT_X_SUM:
    case COLLRT_X_SUM_MAX: {
      unsigned var = x[pc], n = collrt_rd16(x + pc + 1);
      pc += 3;
      b = st[--sp]; /* hi */
      a = st[--sp]; /* lo */
      if (b > a) {
        uint64_t iters = (uint64_t)b - (uint64_t)a;
        if (iters > *ctx->sum_budget)
          FAIL("SUM over [%lld, %lld) exceeds the bind budget (COLLRT_STEP_BUDGET)", (long long)a,
               (long long)b);
        *ctx->sum_budget -= iters;
        int64_t saved = ctx->vars[var];
        for (int64_t k = a; k < b; ++k) {
          unsigned body = pc;
          int64_t term;
          ctx->vars[var] = k;
          if ((s = eval_code(ctx, &body, pc + n, &term, why, why_len)))
            return s;
          if (op == COLLRT_X_SUM_MAX)
            v = k == a || term > v ? term : v;
          else if (__builtin_add_overflow(v, term, &v))
            FAIL("SUM over [%lld, %lld) overflows int64", (long long)a, (long long)b);
        }
        ctx->vars[var] = saved;
      }
      pc += n;
      break;
    }
    case COLLRT_X_CONST32: v = (int32_t)collrt_rd32(x + pc); pc += 4; break;
    case COLLRT_X_CONST64: v = (int64_t)collrt_rd64(x + pc); pc += 8; break;
    case COLLRT_X_RANK: v = in->rank; break;
    case COLLRT_X_SIZE: v = in->size; break;
    case COLLRT_X_VAR: v = ctx->vars[x[pc++]]; break;
    case COLLRT_X_DIM: v = d->shape[x[pc++]]; break;
    case COLLRT_X_RPN: v = d->ranks_per_node; break;
    case COLLRT_X_COORD: {
      unsigned dim = x[pc++];
      a = st[--sp];
      if (a < 0 || a >= in->size)
        FAIL("COORD(%u) of rank %lld, outside [0, %d)", dim, (long long)a, in->size);
      int64_t node = a / d->ranks_per_node;
      for (unsigned k = 0; k < dim; ++k)
        node /= d->shape[k];
      v = node % d->shape[dim];
      break;
    }
    case COLLRT_X_RANK_AT: {
      int64_t local = st[--sp], node = 0;
      if (local < 0 || local >= d->ranks_per_node)
        FAIL("RANK_AT local index %lld is outside [0, %u)", (long long)local, d->ranks_per_node);
      for (int k = d->ndims - 1; k >= 0; --k) {
        c = st[--sp];
        if (c < 0 || c >= d->shape[k])
          FAIL("RANK_AT coordinate %d is %lld, outside [0, %u)", k, (long long)c, d->shape[k]);
      }
      /* the coordinates are st[sp .. sp+ndims), x first */
      for (int k = d->ndims - 1; k >= 0; --k)
        node = node * d->shape[k] + st[sp + k];
      v = node * d->ranks_per_node + local;
      break;
    }
    case COLLRT_X_SCOUNT: case COLLRT_X_SDISPL: case COLLRT_X_RCOUNT:
    case COLLRT_X_RDISPL: {
      static const char *names[] = {"SCOUNT", "SDISPL", "RCOUNT", "RDISPL"};
      a = st[--sp];
      if ((s = array_index(in, a, names[op - COLLRT_X_SCOUNT], why, why_len)))
        return s;
      const int64_t *arr = op == COLLRT_X_SCOUNT ? in->scounts
                           : op == COLLRT_X_SDISPL ? in->sdispls
                           : op == COLLRT_X_RCOUNT ? in->rcounts
                                                   : in->rdispls;
      v = arr[a];
      break;
    }
    case COLLRT_X_RCOUNT_SUM:
      for (int i = 0; i < in->size; ++i)
        if (__builtin_add_overflow(v, in->rcounts[i], &v))
          FAIL("RCOUNT_SUM overflows int64");
      break;
    case COLLRT_X_RCOUNT_MINPOS:
      for (int i = 0; i < in->size; ++i)
        if (in->rcounts[i] > 0 && (v == 0 || in->rcounts[i] < v))
          v = in->rcounts[i];
      break;
    case COLLRT_X_RCOUNT_ZEROS:
      for (int i = 0; i < in->size; ++i)
        v += in->rcounts[i] == 0;
      break;
    case COLLRT_X_NOT: v = !st[--sp]; break;
    case COLLRT_X_ISQRT:
      a = st[--sp];
      if (a < 0)
        FAIL("ISQRT of negative value %lld", (long long)a);
      v = isqrt64(a);
      break;
    case COLLRT_X_SELECT:
      b = st[--sp];
      a = st[--sp];
      c = st[--sp];
      v = c ? a : b;
      break;
    default:
      b = st[--sp];
      a = st[--sp];
      if (!fold_binary(op, a, b, &v)) {
        switch (op) {
        case COLLRT_X_ADD: FAIL("%lld + %lld overflows int64", (long long)a, (long long)b);
        case COLLRT_X_SUB: FAIL("%lld - %lld overflows int64", (long long)a, (long long)b);
        case COLLRT_X_MUL: FAIL("%lld * %lld overflows int64", (long long)a, (long long)b);
        case COLLRT_X_DIV: case COLLRT_X_MOD: case COLLRT_X_CEILDIV:
          FAIL("%s of %lld by %lld %s", op == COLLRT_X_MOD ? "modulo" : "division",
               (long long)a, (long long)b, b == 0 ? "(division by zero)" : "overflows int64");
        default: FAIL("opcode 0x%02x is not valid", op);
        }
      }
    }
    st[sp++] = v;
  }
}

collrt_status_t collrt_expr_eval(const collrt_expr_ctx_t *ctx, uint16_t ref,
                                 int64_t *out, char *why, size_t why_len) {
  unsigned pc = ref;
  return eval_code(ctx, &pc, 0, out, why, why_len);
}

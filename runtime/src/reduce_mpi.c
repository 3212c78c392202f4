/* MPI's handles for the REDUCE table (COLLRT_REDUCE_OPS, COLLRT_REDUCE_TYPES
 * in plan_format.h): which MPI_Op and MPI_Datatype a plan's operation and
 * element type are.
 *
 * The lookups below are expanded from the table itself: every row needs its
 * COLLRT_MPI_OP_<NAME> or COLLRT_MPI_TYPE_<NAME> here, so a row added to the
 * table without its MPI handle does not compile, and there is no second
 * list of names to keep in step. Bind checks the caller's datatype against
 * the plan with them (bind.c), and libcollc_pmpi maps an intercepted call's
 * datatype and operation to the plan it needs (runtime/pmpi).
 *
 * Only MPI's predefined handles map: a user-defined operation (MPI_Op_create)
 * or a derived datatype has no row, whatever it computes. Aliases that are
 * the same handle in MPI (MPI_LONG_LONG_INT, MPI_LONG_LONG) need no row of
 * their own; MPI types the table has no kernel for (MPI_CHAR, MPI_BYTE,
 * MPI_C_BOOL, the complex types) map to 0. */
#include "collc/collrt.h"

#define COLLRT_MPI_OP_SUM MPI_SUM
#define COLLRT_MPI_OP_PROD MPI_PROD
#define COLLRT_MPI_OP_MIN MPI_MIN
#define COLLRT_MPI_OP_MAX MPI_MAX
#define COLLRT_MPI_OP_LAND MPI_LAND
#define COLLRT_MPI_OP_LOR MPI_LOR
#define COLLRT_MPI_OP_LXOR MPI_LXOR
#define COLLRT_MPI_OP_BAND MPI_BAND
#define COLLRT_MPI_OP_BOR MPI_BOR
#define COLLRT_MPI_OP_BXOR MPI_BXOR
#define COLLRT_MPI_OP_MINLOC MPI_MINLOC
#define COLLRT_MPI_OP_MAXLOC MPI_MAXLOC

#define COLLRT_MPI_TYPE_SCHAR MPI_SIGNED_CHAR
#define COLLRT_MPI_TYPE_UCHAR MPI_UNSIGNED_CHAR
#define COLLRT_MPI_TYPE_SHORT MPI_SHORT
#define COLLRT_MPI_TYPE_USHORT MPI_UNSIGNED_SHORT
#define COLLRT_MPI_TYPE_INT MPI_INT
#define COLLRT_MPI_TYPE_UNSIGNED MPI_UNSIGNED
#define COLLRT_MPI_TYPE_LONG MPI_LONG
#define COLLRT_MPI_TYPE_ULONG MPI_UNSIGNED_LONG
#define COLLRT_MPI_TYPE_LONG_LONG MPI_LONG_LONG
#define COLLRT_MPI_TYPE_ULONG_LONG MPI_UNSIGNED_LONG_LONG
#define COLLRT_MPI_TYPE_INT8 MPI_INT8_T
#define COLLRT_MPI_TYPE_UINT8 MPI_UINT8_T
#define COLLRT_MPI_TYPE_INT16 MPI_INT16_T
#define COLLRT_MPI_TYPE_UINT16 MPI_UINT16_T
#define COLLRT_MPI_TYPE_INT32 MPI_INT32_T
#define COLLRT_MPI_TYPE_UINT32 MPI_UINT32_T
#define COLLRT_MPI_TYPE_INT64 MPI_INT64_T
#define COLLRT_MPI_TYPE_UINT64 MPI_UINT64_T
#define COLLRT_MPI_TYPE_FLOAT MPI_FLOAT
#define COLLRT_MPI_TYPE_DOUBLE MPI_DOUBLE
#define COLLRT_MPI_TYPE_LONG_DOUBLE MPI_LONG_DOUBLE
#define COLLRT_MPI_TYPE_FLOAT_INT MPI_FLOAT_INT
#define COLLRT_MPI_TYPE_DOUBLE_INT MPI_DOUBLE_INT
#define COLLRT_MPI_TYPE_LONG_INT MPI_LONG_INT
#define COLLRT_MPI_TYPE_2INT MPI_2INT
#define COLLRT_MPI_TYPE_SHORT_INT MPI_SHORT_INT
#define COLLRT_MPI_TYPE_LONG_DOUBLE_INT MPI_LONG_DOUBLE_INT

unsigned collrt_reduce_op_of_mpi(MPI_Op op) {
  if (op == MPI_OP_NULL)
    return 0;
#define ROW(NAME, ID, SPELLING, CLASSES)                                       \
  if (op == COLLRT_MPI_OP_##NAME)                                              \
    return ID;
  COLLRT_REDUCE_OPS(ROW)
#undef ROW
  return 0;
}

unsigned collrt_reduce_type_of_mpi(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL)
    return 0;
#define ROW(NAME, ID, SPELLING, CTYPE, CLASS)                                  \
  if (type == COLLRT_MPI_TYPE_##NAME)                                          \
    return ID;
  COLLRT_REDUCE_TYPES(ROW)
#undef ROW
  return 0;
}

MPI_Op collrt_reduce_op_to_mpi(unsigned op) {
  switch (op) {
#define ROW(NAME, ID, SPELLING, CLASSES)                                       \
  case ID:                                                                     \
    return COLLRT_MPI_OP_##NAME;
    COLLRT_REDUCE_OPS(ROW)
#undef ROW
  }
  return MPI_OP_NULL;
}

MPI_Datatype collrt_reduce_type_to_mpi(unsigned type) {
  switch (type) {
#define ROW(NAME, ID, SPELLING, CTYPE, CLASS)                                  \
  case ID:                                                                     \
    return COLLRT_MPI_TYPE_##NAME;
    COLLRT_REDUCE_TYPES(ROW)
#undef ROW
  }
  return MPI_DATATYPE_NULL;
}

int collrt_plan_reduce_kind(const collrt_plan_t *plan, unsigned *out_op, unsigned *out_type) {
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  unsigned op = 0, type = 0;
  for (uint32_t i = 0; i < d->nstmts; ++i) {
    const collrt_stmt_t *s = &d->stmts[i];
    if (s->kind != COLLRT_STMT_REDUCE)
      continue;
    if (op && (s->rop != op || s->rtype != type))
      return -1;
    op = s->rop;
    type = s->rtype;
  }
  if (out_op)
    *out_op = op;
  if (out_type)
    *out_type = type;
  return op ? 1 : 0;
}

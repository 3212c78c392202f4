//===- PlanImporter.cpp - plan bytes -> sched.plan ------------------------===//
//
// The inverse of PlanEmitter: LET statements become the expression ops they
// name, postfix code becomes ops in evaluation order. The plan was validated
// by the runtime on load, so malformed input cannot reach here.
//
//===----------------------------------------------------------------------===//
#include "lib/Plan/PlanImporter.h"

#include "collc/Dialect/Sched/SchedOps.h"
#include "mlir/IR/Builders.h"

#include <cstring>

using namespace mlir;
using namespace collc;
using namespace collc::sched;

namespace {

class Importer {
public:
  Importer(const collrt_plan_desc_t &desc, OpBuilder &builder, Location loc)
      : desc(desc), builder(builder), loc(loc), vars(COLLRT_MAX_VARS) {}

  void importBody(size_t first, size_t count);
  void importScratch(uint16_t offset) {
    builder.create<ScratchOp>(loc, decode(offset));
  }

private:
  Value decode(uint16_t offset) {
    const uint8_t *p = desc.exprs + offset;
    return decodeCode(p, nullptr);
  }
  /// Decodes up to END (end == nullptr) or up to `end` (a SUM's summand).
  Value decodeCode(const uint8_t *&p, const uint8_t *end);
  Value expr(const collrt_stmt_t &stmt, int slot) {
    return stmt.expr[slot] == COLLRT_EXPR_NONE ? Value()
                                               : decode(stmt.expr[slot]);
  }
  /// Creates an expression op; every expression has one index result.
  template <typename OpTy, typename... Args>
  Value make(Args &&...args) {
    return builder.create<OpTy>(loc, builder.getIndexType(),
                                std::forward<Args>(args)...);
  }
  Value constant(int64_t v) { return make<ConstOp>(v); }
  void importTransfer(size_t index);
  FlatSymbolRefAttr eventRef(uint8_t event) {
    return event ? FlatSymbolRefAttr::get(builder.getContext(),
                                          "e" + std::to_string(event - 1))
                 : FlatSymbolRefAttr();
  }
  SmallVector<Value> eventIndex(const collrt_stmt_t &stmt, uint8_t event,
                                int slot);

  const collrt_plan_desc_t &desc;
  OpBuilder &builder;
  Location loc;
  std::vector<Value> vars;
};

} // namespace

template <typename T>
static T readImm(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T)); // plans are little-endian, as is the host
  return v;
}

Value Importer::decodeCode(const uint8_t *&p, const uint8_t *end) {
  SmallVector<Value, COLLRT_MAX_EXPR_STACK> stack;
  auto pop = [&]() { return stack.pop_back_val(); };
  for (;;) {
    if (end && p == end)
      return stack.back();
    uint8_t opcode = *p++;
    switch (opcode) {
    case COLLRT_X_END:
      return stack.back();
    case COLLRT_X_TABLE_SUM: {
      Value upper = pop(), lower = pop();
      stack.push_back(make<TableSumOp>(static_cast<int64_t>(*p++), lower, upper));
      break;
    }
    case COLLRT_X_TABLE_ANY: {
      Value index = pop();
      stack.push_back(make<TableAnyOp>(static_cast<int64_t>(*p++), index));
      break;
    }
    case COLLRT_X_TABLE: {
      Value index = pop(), from = pop();
      stack.push_back(make<TableOp>(static_cast<int64_t>(*p++), from, index));
      break;
    }
    case COLLRT_X_SUM:
    case COLLRT_X_SUM_MAX: {
      Value upper = pop(), lower = pop();
      uint8_t var = p[0];
      uint16_t n = readImm<uint16_t>(p + 1);
      p += 3;
      auto sum = builder.create<SumOp>(loc, builder.getIndexType(), lower, upper,
                                       opcode == COLLRT_X_SUM_MAX);
      Block &body = sum.getBody().emplaceBlock();
      Value saved = vars[var];
      vars[var] = body.addArgument(builder.getIndexType(), loc);
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(&body);
        const uint8_t *summandEnd = p + n;
        Value term = decodeCode(p, summandEnd);
        builder.create<YieldOp>(loc, term);
      }
      vars[var] = saved;
      stack.push_back(sum.getResult());
      break;
    }
    case COLLRT_X_SMALL ... COLLRT_X_SMALL_END_ - 1:
      stack.push_back(constant(opcode - COLLRT_X_SMALL));
      break;
    case COLLRT_X_VAR_SHORT ... COLLRT_X_VAR_SHORT_END_ - 1:
      stack.push_back(vars[opcode - COLLRT_X_VAR_SHORT]);
      break;
    case COLLRT_X_CONST32:
      stack.push_back(constant(readImm<int32_t>(p)));
      p += 4;
      break;
    case COLLRT_X_CONST64:
      stack.push_back(constant(readImm<int64_t>(p)));
      p += 8;
      break;
    case COLLRT_X_RANK:
      stack.push_back(make<RankOp>());
      break;
    case COLLRT_X_SIZE:
      stack.push_back(make<SizeOp>());
      break;
    case COLLRT_X_RPN:
      stack.push_back(make<RanksPerNodeOp>());
      break;
    case COLLRT_X_VAR:
      stack.push_back(vars[*p++]);
      break;
    case COLLRT_X_DIM:
      stack.push_back(make<DimOp>(*p++));
      break;
    case COLLRT_X_COORD:
      stack.push_back(make<CoordOp>(pop(), *p++));
      break;
    case COLLRT_X_RANK_AT: {
      Value local = pop();
      SmallVector<Value, 3> coords(desc.ndims);
      for (int d = desc.ndims - 1; d >= 0; --d)
        coords[d] = pop();
      stack.push_back(make<RankAtOp>(coords, local));
      break;
    }
    case COLLRT_X_SCOUNT:
    case COLLRT_X_SDISPL:
    case COLLRT_X_RCOUNT:
    case COLLRT_X_RDISPL:
      stack.push_back(make<CountOp>(static_cast<CountArray>(opcode), pop()));
      break;
    case COLLRT_X_RCOUNT_SUM:
    case COLLRT_X_RCOUNT_MINPOS:
    case COLLRT_X_RCOUNT_ZEROS:
      stack.push_back(
          make<CountStatOp>(static_cast<CountStat>(opcode)));
      break;
    case COLLRT_X_NOT:
      stack.push_back(make<NotOp>(pop()));
      break;
    case COLLRT_X_ISQRT:
      stack.push_back(make<IsqrtOp>(pop()));
      break;
    case COLLRT_X_SELECT: {
      Value falseValue = pop(), trueValue = pop(), condition = pop();
      stack.push_back(
          make<SelectOp>(condition, trueValue, falseValue));
      break;
    }
    default: {
      Value rhs = pop(), lhs = pop();
      Value result;
      switch (opcode) {
#define BINARY(OP)                                                             \
  case OP::kOpcode:                                                            \
    result = make<OP>(lhs, rhs);                                \
    break;
        BINARY(AddOp)
        BINARY(SubOp)
        BINARY(MulOp)
        BINARY(FloorDivOp)
        BINARY(ModOp)
        BINARY(MinOp)
        BINARY(MaxOp)
        BINARY(CeilDivOp)
        BINARY(EqOp)
        BINARY(NeOp)
        BINARY(LtOp)
        BINARY(LeOp)
        BINARY(GtOp)
        BINARY(GeOp)
        BINARY(AndOp)
        BINARY(OrOp)
#undef BINARY
      }
      stack.push_back(result);
      break;
    }
    }
  }
}

SmallVector<Value> Importer::eventIndex(const collrt_stmt_t &stmt,
                                        uint8_t event, int slot) {
  SmallVector<Value> index;
  if (!event)
    return index;
  for (int i = slot; i < slot + 2; ++i)
    if (stmt.expr[i] != COLLRT_EXPR_NONE)
      index.push_back(decode(stmt.expr[i]));
  if (index.empty())
    index.push_back(constant(0));
  return index;
}

void Importer::importTransfer(size_t index) {
  const collrt_stmt_t &stmt = desc.stmts[index];
  SmallVector<Value> wait =
      eventIndex(stmt, stmt.wait_event, COLLRT_E_WAIT_I);
  SmallVector<Value> signal =
      eventIndex(stmt, stmt.signal_event, COLLRT_E_SIGNAL_I);
  FlatSymbolRefAttr waitRef = eventRef(stmt.wait_event);
  FlatSymbolRefAttr signalRef = eventRef(stmt.signal_event);
  // A gathered side has no buffer (its segments are in the body).
  auto buffer = [&](uint8_t field, unsigned gatherBit) {
    return stmt.slot & gatherBit
               ? BufferAttr()
               : BufferAttr::get(builder.getContext(),
                                 static_cast<Buffer>(field));
  };
  Operation *op;
  if (stmt.kind == COLLRT_STMT_NOTIFY || stmt.kind == COLLRT_STMT_AWAIT) {
    Value counter = expr(stmt, COLLRT_E_COUNTER);
    if (stmt.kind == COLLRT_STMT_NOTIFY)
      op = builder.create<NotifyOp>(loc, counter, waitRef, wait, signalRef, signal);
    else
      op = builder.create<AwaitOp>(loc, counter, waitRef, wait, signalRef, signal);
  } else if (stmt.kind == COLLRT_STMT_COPY) {
    Value srcOffset = expr(stmt, COLLRT_E_SRC_OFF);
    Value dstOffset = expr(stmt, COLLRT_E_DST_OFF);
    Value length = expr(stmt, COLLRT_E_LEN);
    op = builder.create<CopyOp>(loc, buffer(stmt.buf0, COLLRT_GATHER_SRC),
                                srcOffset, buffer(stmt.buf1, COLLRT_GATHER_DST),
                                dstOffset, length, waitRef, wait, signalRef,
                                signal);
  } else if (stmt.kind == COLLRT_STMT_REDUCE) {
    Value srcOffset = expr(stmt, COLLRT_E_SRC_OFF);
    Value dstOffset = expr(stmt, COLLRT_E_DST_OFF);
    Value length = expr(stmt, COLLRT_E_LEN);
    op = builder.create<ReduceOp>(
        loc, builder.getStringAttr(collrt_reduce_op_name(stmt.rop)),
        builder.getStringAttr(collrt_reduce_type_name(stmt.rtype)),
        static_cast<Buffer>(stmt.buf0), srcOffset, static_cast<Buffer>(stmt.buf1),
        dstOffset, length, waitRef, wait, signalRef, signal);
  } else {
    // SEND and RECV share their operands; values are created in slot order.
    BufferAttr attr = buffer(stmt.buf0, COLLRT_GATHER_SRC);
    Value peer = expr(stmt, COLLRT_E_PEER);
    Value offset = expr(stmt, COLLRT_E_OFF);
    Value length = expr(stmt, COLLRT_E_LEN);
    Value tag = expr(stmt, COLLRT_E_TAG);
    if (stmt.kind == COLLRT_STMT_SEND)
      op = builder.create<SendOp>(loc, attr, offset, length, peer, tag,
                                  waitRef, wait, signalRef, signal);
    else
      op = builder.create<RecvOp>(loc, attr, offset, length, peer, tag,
                                  waitRef, wait, signalRef, signal);
  }
  if (!stmt.body)
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&op->getRegion(0).emplaceBlock());
  importBody(index + 1, stmt.body);
}

void Importer::importBody(size_t first, size_t count) {
  for (size_t i = first; i < first + count; ++i) {
    const collrt_stmt_t &stmt = desc.stmts[i];
    OpBuilder::InsertionGuard guard(builder);
    switch (stmt.kind) {
    case COLLRT_STMT_PHASE: {
      Value offset = stmt.expr[COLLRT_E_FIFO_OFFSET] != COLLRT_EXPR_NONE
                         ? expr(stmt, COLLRT_E_FIFO_OFFSET)
                         : Value();
      auto phase = builder.create<PhaseOp>(
          loc, builder.getStringAttr("phase" + std::to_string(i)),
          builder.getI64IntegerAttr(stmt.slot), offset);
      builder.setInsertionPointToStart(&phase.getBody().emplaceBlock());
      importBody(i + 1, stmt.body);
      break;
    }
    case COLLRT_STMT_FOR: {
      bool random = stmt.buf0 != COLLRT_ORDER_ASCENDING;
      Value seed = random ? expr(stmt, COLLRT_E_SEED) : Value();
      auto loop = builder.create<ForOp>(
          loc, expr(stmt, COLLRT_E_LO), expr(stmt, COLLRT_E_HI), random,
          stmt.buf0 == COLLRT_ORDER_SHARED_RANDOM, seed);
      Block &body = loop.getBody().emplaceBlock();
      vars[stmt.slot] = body.addArgument(builder.getIndexType(), loc);
      builder.setInsertionPointToStart(&body);
      importBody(i + 1, stmt.body);
      break;
    }
    case COLLRT_STMT_IF: {
      auto branch = builder.create<IfOp>(loc, expr(stmt, COLLRT_E_COND));
      builder.setInsertionPointToStart(&branch.getBody().emplaceBlock());
      importBody(i + 1, stmt.body);
      break;
    }
    case COLLRT_STMT_LET:
      vars[stmt.slot] = expr(stmt, COLLRT_E_VALUE);
      break;
    case COLLRT_STMT_SEG: {
      Value offset = expr(stmt, COLLRT_E_SEG_OFF);
      Value length = expr(stmt, COLLRT_E_SEG_LEN);
      builder.create<SegmentOp>(loc, stmt.slot == COLLRT_SIDE_DST,
                                static_cast<Buffer>(stmt.buf0), offset, length);
      break;
    }
    case COLLRT_STMT_EXCHANGE: {
      auto exchange = builder.create<ExchangeOp>(loc);
      builder.setInsertionPointToStart(&exchange.getBody().emplaceBlock());
      importBody(i + 1, stmt.body);
      break;
    }
    case COLLRT_STMT_PUT: {
      Value peer = expr(stmt, COLLRT_E_PEER);
      Value index = expr(stmt, COLLRT_E_PUT_INDEX);
      Value value = expr(stmt, COLLRT_E_PUT_VALUE);
      builder.create<PutOp>(loc, static_cast<int64_t>(stmt.slot), index, value, peer);
      break;
    }
    case COLLRT_STMT_DEP:
      builder.create<AfterOp>(loc, eventRef(stmt.wait_event),
                              eventIndex(stmt, stmt.wait_event, COLLRT_E_WAIT_I));
      break;
    case COLLRT_STMT_ARENA: {
      Value bytes = expr(stmt, COLLRT_E_ARENA_BYTES);
      Value counters = expr(stmt, COLLRT_E_ARENA_COUNTERS);
      builder.create<ArenaOp>(loc, bytes, counters);
      break;
    }
    default:
      importTransfer(i);
      break;
    }
    i += stmt.body;
  }
}

static StringRef collectiveName(uint8_t op) { return collrt_op_name(op); }

static StringRef algorithmName(uint8_t algorithm) {
  return collrt_algorithm_name(algorithm);
}

OwningOpRef<ModuleOp> collc::importPlan(const collrt_plan_t *plan,
                                        MLIRContext *context, Location loc) {
  context->loadDialect<SchedDialect>();
  const collrt_plan_desc_t &desc = *collrt_plan_desc(plan);
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToStart(module->getBody());

  SmallVector<int64_t, 3> shape;
  SmallVector<bool, 3> wrap;
  for (unsigned d = 0; d < desc.ndims; ++d) {
    shape.push_back(desc.shape[d]);
    wrap.push_back(desc.wrap_mask & (1u << d));
  }
  auto topology = coll::TopologyAttr::get(
      context, shape, wrap, desc.ranks_per_node, desc.alpha_ps,
      desc.beta_ps_per_byte, desc.gamma_ps_per_byte,
      // a plan does not record the routing, fabric or NIC it was chosen for
      /*adaptive=*/false, /*switched=*/false, /*header_bytes=*/48, /*proto_bytes=*/8,
      /*shm_latency_ps=*/100000, /*hop_latency_ps=*/1000000, /*nic=*/"", /*nic_link_ps=*/0,
      /*nic_core_ps=*/0, /*nic_contexts=*/16, /*nic_congestion_ppm=*/0,
      /*reverse_load_ppm=*/50000);
  SmallVector<Attribute> fifos;
  for (unsigned f = 0; f < desc.nfifos; ++f)
    fifos.push_back(FifoAttr::get(context, desc.fifos[f].send_depth,
                                  desc.fifos[f].recv_depth));
  // The format keeps no names: events are e0, e1, ... as eventRef spells them.
  SmallVector<Attribute> eventNames;
  for (unsigned e = 0; e < desc.nevents; ++e)
    eventNames.push_back(builder.getStringAttr("e" + std::to_string(e)));

  auto planOp = builder.create<PlanOp>(
      loc, builder.getStringAttr("plan"),
      builder.getStringAttr(collectiveName(desc.op)),
      builder.getStringAttr(algorithmName(desc.algorithm)), topology,
      builder.getArrayAttr(fifos), builder.getArrayAttr(eventNames),
      (desc.flags & COLLRT_PLAN_F_UNVERIFIED) ? builder.getUnitAttr() : UnitAttr(),
      desc.block_bytes_min == 0 && desc.block_bytes_max == UINT64_MAX
          ? DenseI64ArrayAttr()
          : builder.getDenseI64ArrayAttr(
                {static_cast<int64_t>(desc.block_bytes_min),
                 static_cast<int64_t>(std::min<uint64_t>(desc.block_bytes_max, INT64_MAX))}));
  builder.setInsertionPointToStart(&planOp.getBody().emplaceBlock());
  Importer importer(desc, builder, loc);
  // The scratch size may read what the bind-time exchange delivered (a
  // TABLE_SUM over the lengths of staged items), so it goes after the last
  // top-level EXCHANGE; the emitter would otherwise put a TABLE-reading LET
  // before the exchange, which the runtime rejects.
  size_t split = 0;
  for (size_t i = 0; i < desc.nstmts; i += 1 + desc.stmts[i].body)
    if (desc.stmts[i].kind == COLLRT_STMT_EXCHANGE)
      split = i + 1 + desc.stmts[i].body;
  importer.importBody(0, split);
  if (desc.scratch_expr != COLLRT_EXPR_NONE)
    importer.importScratch(desc.scratch_expr);
  importer.importBody(split, desc.nstmts - split);
  return module;
}

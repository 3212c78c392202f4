//===- PlanEmitter.cpp - sched.plan -> plan bytes -------------------------===//
//
// Statements are emitted in pre-order. Expressions become postfix bytecode in
// a pool where identical expressions are stored once. An expression op with
// several uses (or a costly one: count_stat is O(P)) is bound once to a plan
// variable with LET at its position; everything else is inlined where used.
// Variable slots are released at the end of the body that defined them.
//
//===----------------------------------------------------------------------===//
#include "lib/Plan/PlanEmitter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/SwapByteOrder.h"

#include <cstring>
#include <vector>

using namespace mlir;
using namespace collc;
using namespace collc::sched;

namespace {

class Emitter {
public:
  /// compact: a value used several times is inlined where that saves bytes
  /// (else every such value is a LET, as before plan format 3).
  Emitter(PlanOp plan, bool compact) : plan(plan), compact(compact) {}

  FailureOr<PlanPtr> run();
  /// A compact emission failed only because some expression, with its
  /// inlined values, needs more than COLLRT_MAX_EXPR_STACK entries.
  bool tooDeep() const { return deep; }

private:
  LogicalResult emitBlock(Block &block);
  /// Emits `block` as the body of statement `index` (opened by `owner`) and
  /// records its statement count there.
  LogicalResult emitBody(size_t index, Block &block, Operation *owner);
  LogicalResult emitOp(Operation &op);
  LogicalResult emitTransfer(Operation *op, collrt_stmt_t &stmt,
                             std::optional<StringRef> waitEvent,
                             OperandRange waitIndex,
                             std::optional<StringRef> signalEvent,
                             OperandRange signalIndex);

  /// Appends the postfix code of `value` to `code`.
  LogicalResult encode(Value value, std::string &code);
  /// Interns a complete expression (END appended) and returns its offset.
  FailureOr<uint16_t> intern(Value value, Operation *user);
  FailureOr<uint8_t> allocateVar(Value value, Operation *at);
  bool wantsVariable(Operation *op);
  unsigned stackDepth(Value value);
  /// Deepest code inlined at several uses (of COLLRT_MAX_EXPR_STACK).
  static constexpr unsigned kInlineDepth = 4;
  /// A LET statement's encoding: kind, masks, its variable, its expression.
  static constexpr size_t kLetBytes = 6;

  size_t openStatement(const collrt_stmt_t &stmt) {
    stmts.push_back(stmt);
    return stmts.size() - 1;
  }

  PlanOp plan;
  bool compact;
  bool deep = false;
  std::vector<collrt_stmt_t> stmts;
  std::string pool;
  llvm::StringMap<uint16_t> internedExprs;
  DenseMap<Value, uint8_t> variables;
  unsigned liveVars = 0, maxVars = 0;
  /// sched.sum bodies being encoded: a summation variable takes the slot
  /// liveVars + depth, above every variable its expression can read.
  unsigned sumDepth = 0;
};

} // namespace

static collrt_stmt_t makeStmt(collrt_stmt_kind_t kind) {
  collrt_stmt_t stmt;
  std::memset(&stmt, 0, sizeof(stmt));
  stmt.kind = kind;
  for (uint16_t &e : stmt.expr)
    e = COLLRT_EXPR_NONE;
  return stmt;
}

static void appendImm(std::string &code, const void *bytes, size_t n) {
  // Immediates are little-endian; collc only targets little-endian hosts
  // (checked in run()).
  code.append(static_cast<const char *>(bytes), n);
}

/// Stack entries the postfix code of `value` needs (as encode() writes it,
/// and as the runtime's validator counts them: a SUM's summand on top of
/// what is below the sum's bounds).
unsigned Emitter::stackDepth(Value value) {
  if (variables.count(value) || !value.getDefiningOp())
    return 1;
  Operation *def = value.getDefiningOp();
  if (auto sum = dyn_cast<SumOp>(def))
    return std::max({stackDepth(sum.getLower()), 1 + stackDepth(sum.getUpper()),
                     stackDepth(sum.getYielded())});
  unsigned depth = 1;
  for (auto [i, operand] : llvm::enumerate(def->getOperands()))
    depth = std::max(depth, static_cast<unsigned>(i) + stackDepth(operand));
  return depth;
}

bool Emitter::wantsVariable(Operation *op) {
  if (isa<ConstOp, RankOp, SizeOp, RanksPerNodeOp, DimOp>(op))
    return false;
  if (isa<CountStatOp>(op))
    return true;
  if (op->hasOneUse() || op->use_empty())
    return false;
  if (!compact || isa<SumOp, TableOp, TableAnyOp, TableSumOp>(op))
    return true; // costly to evaluate more than once
  // A LET costs a statement (and a variable); inlining costs the code once
  // per use. Bind only when that saves plan bytes, and keep inlined code
  // shallow so the expressions it lands in stay within the stack limit.
  std::string code;
  if (failed(encode(op->getResult(0), code)))
    return true;
  size_t uses = std::distance(op->use_begin(), op->use_end());
  size_t inlined = code.size() * uses;
  size_t bound = kLetBytes + code.size() + uses; /* a variable reference is 1 byte */
  return inlined > bound || stackDepth(op->getResult(0)) > kInlineDepth;
}

FailureOr<uint8_t> Emitter::allocateVar(Value value, Operation *at) {
  if (liveVars >= COLLRT_MAX_VARS)
    return at->emitError("schedule needs more than ")
           << COLLRT_MAX_VARS << " live plan variables";
  uint8_t slot = liveVars++;
  maxVars = std::max(maxVars, liveVars);
  variables[value] = slot;
  return slot;
}

LogicalResult Emitter::encode(Value value, std::string &code) {
  auto var = variables.find(value);
  if (var != variables.end()) {
    code.push_back(static_cast<char>(COLLRT_X_VAR_SHORT + var->second));
    return success();
  }
  Operation *def = value.getDefiningOp();
  if (!def)
    return plan.emitError("a block argument is used outside its loop");
  auto emitOperands = [&]() -> LogicalResult {
    for (Value operand : def->getOperands())
      if (failed(encode(operand, code)))
        return failure();
    return success();
  };
  auto op1 = [&](uint8_t opcode) -> LogicalResult {
    if (failed(emitOperands()))
      return failure();
    code.push_back(static_cast<char>(opcode));
    return success();
  };
  auto opDim = [&](uint8_t opcode, int64_t dim) -> LogicalResult {
    if (failed(emitOperands()))
      return failure();
    code.push_back(static_cast<char>(opcode));
    code.push_back(static_cast<char>(dim));
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(def)
      .Case([&](ConstOp op) {
        int64_t v = static_cast<int64_t>(op.getValue());
        if (v >= 0 && v < COLLRT_X_SMALL_END_ - COLLRT_X_SMALL) {
          code.push_back(static_cast<char>(COLLRT_X_SMALL + v));
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
          int32_t v32 = static_cast<int32_t>(v);
          code.push_back(COLLRT_X_CONST32);
          appendImm(code, &v32, 4);
        } else {
          code.push_back(COLLRT_X_CONST64);
          appendImm(code, &v, 8);
        }
        return success();
      })
      .Case([&](RankOp) { return op1(COLLRT_X_RANK); })
      .Case([&](SizeOp) { return op1(COLLRT_X_SIZE); })
      .Case([&](RanksPerNodeOp) { return op1(COLLRT_X_RPN); })
      .Case([&](DimOp op) { return opDim(COLLRT_X_DIM, op.getDim()); })
      .Case([&](CoordOp op) { return opDim(COLLRT_X_COORD, op.getDim()); })
      .Case([&](RankAtOp) { return op1(COLLRT_X_RANK_AT); })
      .Case([&](CountOp op) {
        return op1(static_cast<uint8_t>(op.getArray()));
      })
      .Case([&](CountStatOp op) {
        return op1(static_cast<uint8_t>(op.getStat()));
      })
      .Case<AddOp, SubOp, MulOp, FloorDivOp, ModOp, MinOp, MaxOp, CeilDivOp,
            EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, AndOp, OrOp>(
          [&](auto op) { return op1(decltype(op)::kOpcode); })
      .Case([&](TableOp op) {
        if (failed(emitOperands()))
          return failure();
        code.push_back(static_cast<char>(COLLRT_X_TABLE));
        code.push_back(static_cast<char>(op.getTable()));
        return success();
      })
      .Case([&](TableSumOp op) {
        if (failed(emitOperands()))
          return failure();
        code.push_back(static_cast<char>(COLLRT_X_TABLE_SUM));
        code.push_back(static_cast<char>(op.getTable()));
        return success();
      })
      .Case([&](TableAnyOp op) {
        if (failed(emitOperands()))
          return failure();
        code.push_back(static_cast<char>(COLLRT_X_TABLE_ANY));
        code.push_back(static_cast<char>(op.getTable()));
        return success();
      })
      .Case([&](SumOp op) -> LogicalResult {
        if (failed(encode(op.getLower(), code)) ||
            failed(encode(op.getUpper(), code)))
          return failure();
        unsigned slot = liveVars + sumDepth;
        if (slot >= COLLRT_MAX_VARS)
          return op.emitError("schedule needs more than ")
                 << COLLRT_MAX_VARS << " live plan variables";
        maxVars = std::max(maxVars, slot + 1);
        std::string summand;
        variables[op.getInductionVar()] = slot;
        ++sumDepth;
        LogicalResult inner = encode(op.getYielded(), summand);
        --sumDepth;
        variables.erase(op.getInductionVar());
        if (failed(inner))
          return failure();
        if (summand.size() > UINT16_MAX)
          return op.emitError("sched.sum body encodes to more than 64 KiB");
        uint16_t n = summand.size();
        code.push_back(static_cast<char>(op.getMax() ? COLLRT_X_SUM_MAX : COLLRT_X_SUM));
        code.push_back(static_cast<char>(slot));
        appendImm(code, &n, 2);
        code += summand;
        return success();
      })
      .Case([&](NotOp) { return op1(COLLRT_X_NOT); })
      .Case([&](IsqrtOp) { return op1(COLLRT_X_ISQRT); })
      .Case([&](SelectOp) { return op1(COLLRT_X_SELECT); })
      .Default([&](Operation *op) {
        return op->emitError("cannot encode '")
               << op->getName() << "' in a plan expression";
      });
}

FailureOr<uint16_t> Emitter::intern(Value value, Operation *user) {
  if (compact && stackDepth(value) > COLLRT_MAX_EXPR_STACK) {
    deep = true; // emitPlan tries again with every shared value a LET
    return failure();
  }
  std::string code;
  if (failed(encode(value, code)))
    return failure();
  code.push_back(COLLRT_X_END);
  auto it = internedExprs.find(code);
  if (it != internedExprs.end())
    return it->second;
  if (pool.size() + code.size() >= COLLRT_EXPR_NONE)
    return user->emitError("plan expressions exceed 64 KiB");
  uint16_t offset = pool.size();
  pool += code;
  internedExprs[code] = offset;
  return offset;
}

LogicalResult Emitter::emitBlock(Block &block) {
  unsigned liveAtEntry = liveVars;
  for (Operation &op : block)
    if (failed(emitOp(op)))
      return failure();
  // Variables defined in this body are out of scope after it.
  for (auto it = variables.begin(); it != variables.end();) {
    auto current = it++;
    if (current->second >= liveAtEntry)
      variables.erase(current);
  }
  liveVars = liveAtEntry;
  return success();
}

LogicalResult Emitter::emitTransfer(Operation *op, collrt_stmt_t &stmt,
                                    std::optional<StringRef> waitEvent,
                                    OperandRange waitIndex,
                                    std::optional<StringRef> signalEvent,
                                    OperandRange signalIndex) {
  auto setEvent = [&](std::optional<StringRef> event, OperandRange index,
                      uint8_t &field, int slot) -> LogicalResult {
    if (!event)
      return success();
    field = static_cast<uint8_t>(plan.lookupEvent(*event) + 1);
    for (auto [i, value] : llvm::enumerate(index)) {
      FailureOr<uint16_t> e = intern(value, op);
      if (failed(e))
        return failure();
      stmt.expr[slot + i] = *e;
    }
    return success();
  };
  if (failed(setEvent(waitEvent, waitIndex, stmt.wait_event,
                      COLLRT_E_WAIT_I)) ||
      failed(setEvent(signalEvent, signalIndex, stmt.signal_event,
                      COLLRT_E_SIGNAL_I)))
    return failure();
  // The body (segments, extra waits and the loops producing them) follows
  // the transfer statement, counted in its `body` field.
  size_t index = openStatement(stmt);
  Region &body = op->getRegion(0);
  return body.empty() ? success() : emitBody(index, body.front(), op);
}

LogicalResult Emitter::emitBody(size_t index, Block &block, Operation *owner) {
  if (failed(emitBlock(block)))
    return failure();
  size_t count = stmts.size() - index - 1;
  if (count > UINT16_MAX)
    return owner->emitError("body has more than 65535 statements");
  stmts[index].body = count;
  return success();
}

LogicalResult Emitter::emitOp(Operation &op) {
  auto setExpr = [&](collrt_stmt_t &stmt, int slot,
                     Value value) -> LogicalResult {
    FailureOr<uint16_t> e = intern(value, &op);
    if (failed(e))
      return failure();
    stmt.expr[slot] = *e;
    return success();
  };
  if (isPure(&op) && op.getNumResults() == 1) {
    if (!wantsVariable(&op))
      return success(); // inlined at its uses
    collrt_stmt_t stmt = makeStmt(COLLRT_STMT_LET);
    if (failed(setExpr(stmt, COLLRT_E_VALUE, op.getResult(0))))
      return failure();
    FailureOr<uint8_t> slot = allocateVar(op.getResult(0), &op);
    if (failed(slot))
      return failure();
    stmt.slot = *slot;
    stmts.push_back(stmt);
    return success();
  }

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](ScratchOp) { return success(); }) // in the header
      .Case([&](ExchangeOp exchange) {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_EXCHANGE);
        return emitBody(openStatement(stmt), exchange.getBody().front(),
                        exchange);
      })
      .Case([&](PutOp put) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_PUT);
        stmt.slot = static_cast<uint8_t>(put.getTable());
        if (failed(setExpr(stmt, COLLRT_E_PEER, put.getPeer())) ||
            failed(setExpr(stmt, COLLRT_E_PUT_INDEX, put.getIndex())) ||
            failed(setExpr(stmt, COLLRT_E_PUT_VALUE, put.getValue())))
          return failure();
        stmts.push_back(stmt);
        return success();
      })
      .Case([&](PhaseOp phase) {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_PHASE);
        stmt.slot = phase.getFifo();
        if (phase.getOffset() &&
            failed(setExpr(stmt, COLLRT_E_FIFO_OFFSET, phase.getOffset())))
          return failure();
        return emitBody(openStatement(stmt), phase.getBody().front(), phase);
      })
      .Case([&](ForOp loop) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_FOR);
        stmt.buf0 = !loop.getRandom() ? COLLRT_ORDER_ASCENDING
                    : loop.getShared() ? COLLRT_ORDER_SHARED_RANDOM
                                       : COLLRT_ORDER_RANDOM;
        if (failed(setExpr(stmt, COLLRT_E_LO, loop.getLower())) ||
            failed(setExpr(stmt, COLLRT_E_HI, loop.getUpper())) ||
            (loop.getSeed() &&
             failed(setExpr(stmt, COLLRT_E_SEED, loop.getSeed()))))
          return failure();
        size_t index = openStatement(stmt);
        unsigned liveAtEntry = liveVars;
        FailureOr<uint8_t> slot = allocateVar(loop.getInductionVar(), loop);
        if (failed(slot))
          return failure();
        stmts[index].slot = *slot;
        if (failed(emitBody(index, loop.getBody().front(), loop)))
          return failure();
        variables.erase(loop.getInductionVar());
        liveVars = liveAtEntry;
        return success();
      })
      .Case([&](IfOp branch) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_IF);
        if (failed(setExpr(stmt, COLLRT_E_COND, branch.getCondition())))
          return failure();
        return emitBody(openStatement(stmt), branch.getBody().front(), branch);
      })
      .Case<SendOp, RecvOp>([&](auto transfer) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(isa<SendOp>(transfer.getOperation())
                                          ? COLLRT_STMT_SEND
                                          : COLLRT_STMT_RECV);
        std::optional<Buffer> buffer = transfer.getBuffer();
        stmt.buf0 = buffer ? static_cast<uint8_t>(*buffer) : 0;
        stmt.slot = buffer ? 0 : COLLRT_GATHER_SRC;
        if (failed(setExpr(stmt, COLLRT_E_PEER, transfer.getPeer())) ||
            (buffer &&
             (failed(setExpr(stmt, COLLRT_E_OFF, transfer.getOffset())) ||
              failed(setExpr(stmt, COLLRT_E_LEN, transfer.getLength())))) ||
            failed(setExpr(stmt, COLLRT_E_TAG, transfer.getTag())))
          return failure();
        return emitTransfer(transfer, stmt, transfer.getWaitEvent(),
                            transfer.getWaitIndex(), transfer.getSignalEvent(),
                            transfer.getSignalIndex());
      })
      .Case([&](CopyOp copy) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_COPY);
        std::optional<Buffer> src = copy.getSrcBuffer(),
                              dst = copy.getDstBuffer();
        stmt.buf0 = src ? static_cast<uint8_t>(*src) : 0;
        stmt.buf1 = dst ? static_cast<uint8_t>(*dst) : 0;
        stmt.slot = (src ? 0 : COLLRT_GATHER_SRC) | (dst ? 0 : COLLRT_GATHER_DST);
        if ((src &&
             failed(setExpr(stmt, COLLRT_E_SRC_OFF, copy.getSrcOffset()))) ||
            (dst &&
             failed(setExpr(stmt, COLLRT_E_DST_OFF, copy.getDstOffset()))) ||
            (copy.getLength() &&
             failed(setExpr(stmt, COLLRT_E_LEN, copy.getLength()))))
          return failure();
        return emitTransfer(copy, stmt, copy.getWaitEvent(),
                            copy.getWaitIndex(), copy.getSignalEvent(),
                            copy.getSignalIndex());
      })
      .Case([&](ReduceOp reduce) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_REDUCE);
        stmt.buf0 = static_cast<uint8_t>(reduce.getSrcBuffer());
        stmt.buf1 = static_cast<uint8_t>(reduce.getDstBuffer());
        // the one table's numbers (the op verifier checked the spellings)
        stmt.rop = static_cast<uint8_t>(
            collrt_reduce_op_from_name(reduce.getReduceOp().str().c_str()));
        stmt.rtype = static_cast<uint8_t>(
            collrt_reduce_type_from_name(reduce.getElemType().str().c_str()));
        if (failed(setExpr(stmt, COLLRT_E_SRC_OFF, reduce.getSrcOffset())) ||
            failed(setExpr(stmt, COLLRT_E_DST_OFF, reduce.getDstOffset())) ||
            failed(setExpr(stmt, COLLRT_E_LEN, reduce.getLength())))
          return failure();
        return emitTransfer(reduce, stmt, reduce.getWaitEvent(),
                            reduce.getWaitIndex(), reduce.getSignalEvent(),
                            reduce.getSignalIndex());
      })
      .Case([&](ArenaOp arena) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_ARENA);
        if (failed(setExpr(stmt, COLLRT_E_ARENA_BYTES, arena.getBytes())) ||
            failed(setExpr(stmt, COLLRT_E_ARENA_COUNTERS, arena.getCounters())))
          return failure();
        stmts.push_back(stmt);
        return success();
      })
      .Case<NotifyOp, AwaitOp>([&](auto signal) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(isa<NotifyOp>(signal.getOperation())
                                          ? COLLRT_STMT_NOTIFY
                                          : COLLRT_STMT_AWAIT);
        if (failed(setExpr(stmt, COLLRT_E_COUNTER, signal.getCounter())))
          return failure();
        return emitTransfer(signal, stmt, signal.getWaitEvent(),
                            signal.getWaitIndex(), signal.getSignalEvent(),
                            signal.getSignalIndex());
      })
      .Case([&](SegmentOp segment) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_SEG);
        stmt.buf0 = static_cast<uint8_t>(segment.getBuffer());
        stmt.slot = segment.getDst() ? COLLRT_SIDE_DST : COLLRT_SIDE_SRC;
        if (failed(setExpr(stmt, COLLRT_E_SEG_OFF, segment.getOffset())) ||
            failed(setExpr(stmt, COLLRT_E_SEG_LEN, segment.getLength())))
          return failure();
        stmts.push_back(stmt);
        return success();
      })
      .Case([&](AfterOp after) -> LogicalResult {
        collrt_stmt_t stmt = makeStmt(COLLRT_STMT_DEP);
        stmt.wait_event =
            static_cast<uint8_t>(plan.lookupEvent(after.getEvent()) + 1);
        for (auto [i, value] : llvm::enumerate(after.getIndex()))
          if (failed(setExpr(stmt, COLLRT_E_WAIT_I + i, value)))
            return failure();
        stmts.push_back(stmt);
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitError("cannot encode '")
               << other->getName() << "' in a plan";
      });
}

/// Ids from the one table of plan_format.h (COLLRT_OPS, COLLRT_ALGORITHMS).
static std::optional<collrt_op_t> planOpFor(StringRef collective) {
  unsigned id = collrt_op_from_name(collective.str().c_str());
  return id ? std::optional<collrt_op_t>(static_cast<collrt_op_t>(id))
            : std::nullopt;
}

static std::optional<collrt_algorithm_t> planAlgorithmFor(StringRef name) {
  unsigned id = collrt_algorithm_from_name(name.str().c_str());
  return id ? std::optional<collrt_algorithm_t>(
                  static_cast<collrt_algorithm_t>(id))
            : std::nullopt;
}

FailureOr<PlanPtr> Emitter::run() {
  if (!llvm::sys::IsLittleEndianHost)
    return plan.emitError("plan emission needs a little-endian host");

  std::optional<collrt_op_t> op = planOpFor(plan.getCollective());
  if (!op)
    return plan.emitError("unknown collective '")
           << plan.getCollective() << "'";
  std::optional<collrt_algorithm_t> algorithm =
      planAlgorithmFor(plan.getAlgorithm());
  if (!algorithm)
    return plan.emitError("unknown algorithm '") << plan.getAlgorithm() << "'";

  collrt_plan_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.producer_version = (COLLC_VERSION_MAJOR << 8) | COLLC_VERSION_MINOR;
  desc.op = *op;
  desc.algorithm = *algorithm;
  desc.flags = plan.getUnverified() ? COLLRT_PLAN_F_UNVERIFIED : 0;
  coll::TopologyAttr topology = plan.getTopology();
  desc.ndims = topology.getShape().size();
  for (unsigned d = 0; d < COLLRT_MAX_DIMS; ++d) {
    desc.shape[d] = d < desc.ndims ? topology.getShape()[d] : 1;
    if (d < desc.ndims && topology.getWrap()[d])
      desc.wrap_mask |= 1u << d;
  }
  desc.ranks_per_node = topology.getRanksPerNode();
  desc.alpha_ps = topology.getAlphaPs();
  desc.beta_ps_per_byte = topology.getBetaPs();
  desc.gamma_ps_per_byte = topology.getGammaPs();

  std::vector<collrt_fifo_desc_t> fifos;
  for (FifoAttr fifo : plan.getFifos().getAsRange<FifoAttr>())
    fifos.push_back({static_cast<uint16_t>(fifo.getSendDepth()),
                     static_cast<uint16_t>(fifo.getRecvDepth())});
  desc.nfifos = fifos.size();
  desc.nevents = plan.getEvents().size();
  plan.walk([&](Operation *op) {
    int64_t table = -1;
    if (auto put = dyn_cast<PutOp>(op))
      table = put.getTable();
    else if (auto read = dyn_cast<TableOp>(op))
      table = read.getTable();
    else if (auto any = dyn_cast<TableAnyOp>(op))
      table = any.getTable();
    else if (auto sum = dyn_cast<TableSumOp>(op))
      table = sum.getTable();
    desc.ntables = std::max<int64_t>(desc.ntables, table + 1);
  });
  desc.block_bytes_min = 0;
  desc.block_bytes_max = UINT64_MAX;
  if (std::optional<ArrayRef<int64_t>> range = plan.getBlockBytes()) {
    desc.block_bytes_min = (*range)[0];
    // INT64_MAX, the most an i64 range holds, is "and up" (the importer
    // reads UINT64_MAX back as INT64_MAX)
    desc.block_bytes_max = (*range)[1] == INT64_MAX ? UINT64_MAX : (*range)[1];
  }

  desc.scratch_expr = COLLRT_EXPR_NONE;
  Block &body = plan.getBody().front();
  auto scratchOps = body.getOps<ScratchOp>();
  if (!scratchOps.empty()) {
    // Evaluated at bind time before any statement: no variables in scope.
    FailureOr<uint16_t> e = intern((*scratchOps.begin()).getBytes(), plan);
    if (failed(e))
      return failure();
    desc.scratch_expr = *e;
  }
  if (failed(emitBlock(body)))
    return failure();
  if (stmts.empty())
    return plan.emitError("plan has no statements");
  if (stmts.size() > COLLRT_MAX_STMTS)
    return plan.emitError("plan has ")
           << stmts.size() << " statements; at most " << COLLRT_MAX_STMTS
           << " are allowed";
  desc.nvars = maxVars;
  desc.nstmts = stmts.size();
  desc.expr_bytes = pool.size();
  desc.fifos = fifos.data();
  desc.stmts = stmts.data();
  desc.exprs = reinterpret_cast<const uint8_t *>(pool.data());

  collrt_plan_t *encoded = nullptr;
  collrt_diag_t diag;
  diag.message[0] = '\0';
  collrt_status_t status = collrt_plan_encode(&desc, &encoded, &diag);
  if (status != COLLRT_OK)
    return plan.emitError("runtime rejected the encoded plan: ")
           << collrt_strerror(status) << ": " << diag.message;
  return PlanPtr(encoded);
}

FailureOr<PlanPtr> collc::emitPlan(PlanOp plan) {
  Emitter compact(plan, /*compact=*/true);
  FailureOr<PlanPtr> bytes = compact.run();
  if (succeeded(bytes) || !compact.tooDeep())
    return bytes;
  return Emitter(plan, /*compact=*/false).run();
}

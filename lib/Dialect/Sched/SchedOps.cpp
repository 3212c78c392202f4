//===- SchedOps.cpp - sched operation verifiers and syntax ----------------===//
#include "collc/Dialect/Sched/SchedOps.h"

#include "collc/plan.h"
#include "collc/plan_format.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace collc;
using namespace collc::sched;

//===----------------------------------------------------------------------===//
// PlanOp
//===----------------------------------------------------------------------===//

/// A sched.for outside phases (a phase loop) holds only phases, more phase
/// loops and expressions.
static LogicalResult verifyPhaseLoop(ForOp loop) {
  for (Operation &op : loop.getBody().front()) {
    if (auto inner = dyn_cast<ForOp>(op)) {
      if (failed(verifyPhaseLoop(inner)))
        return failure();
      continue;
    }
    if (isa<PhaseOp>(op) || isPure(&op))
      continue;
    return op.emitOpError("(P3) cannot appear in a phase loop (a sched.for "
                          "outside phases); only phases, phase loops and "
                          "expressions can");
  }
  return success();
}

LogicalResult PlanOp::verify() {
  size_t numFifos = getFifos().size();
  if (numFifos < 1 || numFifos > 16)
    return emitOpError("(P1) declares ")
           << numFifos << " FIFOs; a plan needs 1 to 16";
  ArrayAttr events = getEvents();
  if (events.size() > 16)
    return emitOpError("(P2) declares ")
           << events.size() << " events; at most 16 are allowed";
  llvm::StringSet<> seen;
  for (StringAttr name : events.getAsRange<StringAttr>())
    if (!seen.insert(name.getValue()).second)
      return emitOpError("(P2) event '") << name.getValue()
                                         << "' is declared twice";
  Operation *firstPhase = nullptr, *arena = nullptr;
  for (Operation &op : getBody().front()) {
    if (isa<PhaseOp, ForOp>(op) && !firstPhase)
      firstPhase = &op;
    if (isa<ArenaOp>(op) && firstPhase)
      return op.emitOpError("(N1) comes after a phase; the arena is declared "
                            "before the first phase")
                 .attachNote(firstPhase->getLoc())
             << "the first phase";
    if (isa<ExchangeOp>(op) && arena)
      return op.emitOpError("(N1) comes after the sched.arena; the arena is "
                            "declared after every exchange")
                 .attachNote(arena->getLoc())
             << "the arena";
    if (isa<ArenaOp>(op))
      arena = &op;
    if (isa<ExchangeOp>(op) && firstPhase)
      return op.emitOpError("(P3) comes after a phase; every sched.exchange "
                            "runs before the program, so it precedes the "
                            "first phase")
                 .attachNote(firstPhase->getLoc())
             << "the first phase";
    if (auto loop = dyn_cast<ForOp>(op)) {
      if (failed(verifyPhaseLoop(loop)))
        return failure();
      continue;
    }
    if (isa<PhaseOp, ScratchOp, ExchangeOp, ArenaOp>(op) ||
        op.hasTrait<OpTrait::ConstantLike>() || isPure(&op))
      continue;
    return op.emitOpError("(P3) cannot appear directly in a plan; only "
                          "exchanges, phases, phase loops, sched.scratch, "
                          "sched.arena and expressions can")
               .attachNote(getLoc())
           << "in this plan";
  }
  if (std::optional<ArrayRef<int64_t>> range = getBlockBytes())
    if (range->size() != 2 || (*range)[0] < 0 || (*range)[0] > (*range)[1])
      return emitOpError("(P5) block_bytes must be [min, max] with 0 <= min <= max");
  return success();
}

int64_t PlanOp::lookupEvent(StringRef event) {
  for (auto [i, name] : llvm::enumerate(getEvents().getAsRange<StringAttr>()))
    if (name.getValue() == event)
      return i;
  return -1;
}

LogicalResult ScratchOp::verify() {
  auto plan = dyn_cast<PlanOp>((*this)->getParentOp());
  if (!plan)
    return emitOpError("(S1) must be directly inside a sched.plan");
  if (!plan.getBody().front().getOps<ScratchOp>().empty() &&
      *plan.getBody().front().getOps<ScratchOp>().begin() != *this)
    return emitOpError("(S1) a plan declares its scratch buffer at most once");
  return success();
}

LogicalResult ArenaOp::verify() {
  auto plan = dyn_cast<PlanOp>((*this)->getParentOp());
  if (!plan)
    return emitOpError("(N1) must be directly inside a sched.plan");
  if (*plan.getBody().front().getOps<ArenaOp>().begin() != *this)
    return emitOpError("(N1) a plan declares its arena at most once");
  return success();
}

static bool hasArena(PlanOp plan) {
  return !plan.getBody().front().getOps<ArenaOp>().empty();
}

LogicalResult PhaseOp::verify() {
  Operation *parent = (*this)->getParentOp();
  bool inLoop = false;
  for (; isa_and_nonnull<ForOp>(parent); parent = parent->getParentOp())
    inLoop = true;
  auto plan = dyn_cast_or_null<PlanOp>(parent);
  if (!plan)
    return emitOpError("(PH1) must be directly inside a sched.plan or in a "
                       "phase loop (sched.for ops directly inside it)");
  if (getOffset() && !inLoop)
    return emitOpError("(PH3) a FIFO offset needs a phase loop; a phase "
                       "outside one names its FIFO");
  int64_t numFifos = plan.getFifos().size();
  int64_t fifo = getFifo();
  if (fifo < 0 || fifo >= numFifos)
    return emitOpError("(PH2) uses FIFO ")
           << fifo << " but the plan declares " << numFifos;
  return success();
}

//===----------------------------------------------------------------------===//
// ForOp: sched.for %k = %lo to %hi [random(%seed) [shared]] { ... }
//===----------------------------------------------------------------------===//

ParseResult ForOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument inductionVar;
  OpAsmParser::UnresolvedOperand lower, upper, seed;
  Type index = parser.getBuilder().getIndexType();
  inductionVar.type = index;
  if (parser.parseArgument(inductionVar) || parser.parseEqual() ||
      parser.parseOperand(lower) || parser.parseKeyword("to") ||
      parser.parseOperand(upper) ||
      parser.resolveOperand(lower, index, result.operands) ||
      parser.resolveOperand(upper, index, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("random"))) {
    result.addAttribute(getRandomAttrName(result.name),
                        parser.getBuilder().getUnitAttr());
    if (parser.parseLParen() || parser.parseOperand(seed) ||
        parser.parseRParen() ||
        parser.resolveOperand(seed, index, result.operands))
      return failure();
    if (succeeded(parser.parseOptionalKeyword("shared")))
      result.addAttribute(getSharedAttrName(result.name),
                          parser.getBuilder().getUnitAttr());
  }
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {inductionVar}) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void ForOp::print(OpAsmPrinter &p) {
  p << " " << getInductionVar() << " = " << getLower() << " to " << getUpper();
  if (getRandom())
    p << " random(" << getSeed() << ")";
  if (getShared())
    p << " shared";
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getRandomAttrName(), getSharedAttrName()});
}

void ForOp::getAsmBlockArgumentNames(Region &region,
                                     OpAsmSetValueNameFn setNameFn) {
  if (!region.empty() && region.front().getNumArguments() == 1)
    setNameFn(region.front().getArgument(0), "k");
}

LogicalResult ForOp::verify() {
  if (getRandom() != static_cast<bool>(getSeed()))
    return emitOpError("(L1) a seed is given exactly when the order is random");
  if (getShared() && !getRandom())
    return emitOpError("(L3) 'shared' qualifies a random order");
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("(L2) the body takes one index induction variable");
  return success();
}

//===----------------------------------------------------------------------===//
// The bind-time exchange
//===----------------------------------------------------------------------===//

LogicalResult ExchangeOp::verify() {
  if (!isa<PlanOp>((*this)->getParentOp()))
    return emitOpError("(E1) must be directly inside a sched.plan");
  WalkResult walk = getBody().walk([&](Operation *inner) {
    if (isa<ForOp, IfOp, PutOp, TableOp, TableAnyOp, TableSumOp>(inner) || isPure(inner))
      return WalkResult::advance();
    inner->emitOpError("(E2) cannot appear in a sched.exchange");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

static LogicalResult verifyTableIndex(Operation *op, int64_t table) {
  if (table < 0 || table >= COLLRT_MAX_TABLES)
    return op->emitOpError("(T2) table ")
           << table << " is outside [0, " << COLLRT_MAX_TABLES << ")";
  return success();
}

LogicalResult PutOp::verify() {
  if (!(*this)->getParentOfType<ExchangeOp>())
    return emitOpError("(T1) must be inside a sched.exchange");
  return verifyTableIndex(*this, getTable());
}

/// T2 and T3 for the ops that read the exchange's result (table,
/// table_any, table_sum).
static LogicalResult verifyTableRead(Operation *op, int64_t table) {
  if (op->getParentOfType<ExchangeOp>())
    return op->emitOpError("(T3) reads the exchange's result inside the exchange");
  return verifyTableIndex(op, table);
}

LogicalResult TableOp::verify() { return verifyTableRead(*this, getTable()); }
LogicalResult TableSumOp::verify() { return verifyTableRead(*this, getTable()); }
LogicalResult TableAnyOp::verify() { return verifyTableRead(*this, getTable()); }

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

/// (X2)/(X3): an event named by a transfer or sched.after.
static LogicalResult verifyEventRef(Operation *op, PlanOp plan,
                                    std::optional<StringRef> event,
                                    size_t count) {
  if (!event) {
    if (count != 0)
      return op->emitOpError("(X3) an event index without an event");
    return success();
  }
  if (plan.lookupEvent(*event) < 0)
    return op->emitOpError("(X2) event '")
           << *event << "' is not declared by the plan";
  if (count < 1 || count > 2)
    return op->emitOpError("(X3) event '")
           << *event << "' is indexed by " << count
           << " values; it takes 1 or 2";
  return success();
}

static bool isTransfer(Operation *op) {
  return isa<SendOp, RecvOp, CopyOp, ReduceOp, NotifyOp, AwaitOp>(op);
}

/// (X1)-(X3), shared by every transfer: inside a phase, with declared events.
static LogicalResult verifyPlacedWithEvents(Operation *op, std::optional<StringRef> waitEvent,
                                            size_t numWaitIndices,
                                            std::optional<StringRef> signalEvent,
                                            size_t numSignalIndices) {
  if (!op->getParentOfType<PhaseOp>())
    return op->emitOpError("(X1) must be inside a sched.phase");
  auto plan = op->getParentOfType<PlanOp>();
  if (failed(verifyEventRef(op, plan, waitEvent, numWaitIndices)) ||
      failed(verifyEventRef(op, plan, signalEvent, numSignalIndices)))
    return failure();
  return success();
}

/// Constraints X1-X8 shared by send, recv and copy. A side is gathered when
/// its buffer is absent.
static LogicalResult
verifyTransfer(Operation *op, std::optional<StringRef> waitEvent,
               size_t numWaitIndices, std::optional<StringRef> signalEvent,
               size_t numSignalIndices,
               ArrayRef<std::pair<std::optional<Buffer>, Value>> sides,
               Value length, std::optional<Buffer> written) {
  if (failed(verifyPlacedWithEvents(op, waitEvent, numWaitIndices, signalEvent,
                                    numSignalIndices)))
    return failure();
  auto plan = op->getParentOfType<PlanOp>();
  bool anyGathered = false, usesScratch = false, usesArena = false;
  for (auto [buffer, offset] : sides) {
    anyGathered |= !buffer;
    usesScratch |= buffer == Buffer::scratch;
    usesArena |= buffer == Buffer::arena;
    if (static_cast<bool>(buffer) != static_cast<bool>(offset))
      return op->emitOpError("(X6) a side has ")
             << (buffer ? "a buffer but no offset" : "an offset but no buffer");
  }
  if (anyGathered == static_cast<bool>(length))
    return op->emitOpError("(X6) ")
           << (anyGathered ? "a gathered transfer takes its length from its "
                             "segments; drop the length"
                           : "a contiguous transfer needs a length");
  if (written && *written == Buffer::sendbuf)
    return op->emitOpError("(X7) writes the send buffer; receives and "
                           "copies write recvbuf, scratch or arena");
  Region &body = op->getRegion(0);
  if (!body.empty()) {
    for (Operation &inner : body.front()) {
      if (!isa<ForOp, IfOp, SegmentOp, AfterOp>(inner) &&
          !isPure(&inner))
        return inner.emitOpError("(X5) cannot appear in a transfer's body");
    }
    WalkResult nested = body.walk([&](Operation *inner) {
      if (isTransfer(inner) || isa<PhaseOp>(inner)) {
        inner->emitOpError("(X5) cannot appear in a transfer's body");
        return WalkResult::interrupt();
      }
      usesScratch |= isa<SegmentOp>(inner) &&
                     cast<SegmentOp>(inner).getBuffer() == Buffer::scratch;
      usesArena |= isa<SegmentOp>(inner) &&
                   cast<SegmentOp>(inner).getBuffer() == Buffer::arena;
      return WalkResult::advance();
    });
    if (nested.wasInterrupted())
      return failure();
  }
  if (usesScratch && plan.getBody().front().getOps<ScratchOp>().empty())
    return op->emitOpError("(X4) uses the scratch buffer but the plan has "
                           "no sched.scratch");
  if (usesArena && !hasArena(plan))
    return op->emitOpError("(X8) uses the arena buffer but the plan has no "
                           "sched.arena");
  return success();
}

/// sched.notify and sched.await: transfers that move no data.
static LogicalResult verifySignal(Operation *op, std::optional<StringRef> waitEvent,
                                  size_t numWaitIndices,
                                  std::optional<StringRef> signalEvent,
                                  size_t numSignalIndices) {
  if (failed(verifyPlacedWithEvents(op, waitEvent, numWaitIndices, signalEvent,
                                    numSignalIndices)))
    return failure();
  auto plan = op->getParentOfType<PlanOp>();
  Region &body = op->getRegion(0);
  if (!body.empty())
    for (Operation &inner : body.front())
      if (!isa<ForOp, IfOp, AfterOp>(inner) && !isPure(&inner))
        return inner.emitOpError("(X5) cannot appear in the body of a "
                                 "sched.notify or sched.await");
  if (!hasArena(plan))
    return op->emitOpError("(X8) counts on the node arena but the plan has "
                           "no sched.arena");
  return success();
}

LogicalResult NotifyOp::verify() {
  return verifySignal(*this, getWaitEvent(), getWaitIndex().size(), getSignalEvent(),
                      getSignalIndex().size());
}

LogicalResult AwaitOp::verify() {
  return verifySignal(*this, getWaitEvent(), getWaitIndex().size(), getSignalEvent(),
                      getSignalIndex().size());
}

LogicalResult SendOp::verify() {
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {{getBuffer(), getOffset()}}, getLength(),
                        std::nullopt);
}

LogicalResult RecvOp::verify() {
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {{getBuffer(), getOffset()}}, getLength(), getBuffer());
}

LogicalResult CopyOp::verify() {
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {{getSrcBuffer(), getSrcOffset()},
                         {getDstBuffer(), getDstOffset()}},
                        getLength(), getDstBuffer());
}

LogicalResult ReduceOp::verify() {
  unsigned op = collrt_reduce_op_from_name(getReduceOp().str().c_str());
  unsigned type = collrt_reduce_type_from_name(getElemType().str().c_str());
  if (!op)
    return emitOpError("(R1) '") << getReduceOp()
                                 << "' is not a reduction operation (sum, prod, min, max, land, lor, "
                                    "lxor, band, bor, bxor, minloc, maxloc)";
  if (!type)
    return emitOpError("(R1) '") << getElemType() << "' is not an element type of the plan's table";
  char why[200];
  if (!collrt_reduce_valid(op, type, why, sizeof why))
    return emitOpError("(R1) ") << why;
  Region &body = getBody();
  if (!body.empty() && !body.front().getOps<SegmentOp>().empty())
    return emitOpError("(R2) a sched.reduce is contiguous on both sides; its body holds no segments");
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {{getSrcBuffer(), getSrcOffset()},
                         {getDstBuffer(), getDstOffset()}},
                        getLength(), getDstBuffer());
}

/// The transfer whose body holds `op`, through sched.for / sched.if.
static Operation *enclosingTransfer(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isTransfer(parent))
      return parent;
    if (!isa<ForOp, IfOp>(parent))
      return nullptr;
  }
  return nullptr;
}

LogicalResult SegmentOp::verify() {
  Operation *transfer = enclosingTransfer(*this);
  if (!transfer)
    return emitOpError("(G1) must be inside the body of a sched.send, "
                       "sched.recv or sched.copy");
  bool gathered;
  bool writes = getDst() || isa<RecvOp>(transfer);
  if (isa<NotifyOp, AwaitOp>(transfer))
    return emitOpError("(G1) a sched.notify or sched.await moves no data");
  if (isa<ReduceOp>(transfer))
    return emitOpError("(R2) a sched.reduce is contiguous on both sides");
  if (auto copy = dyn_cast<CopyOp>(transfer))
    gathered = getDst() ? !copy.getDstBuffer() : !copy.getSrcBuffer();
  else if (getDst())
    return emitOpError("(G1) a 'dst' segment belongs to a sched.copy");
  else if (auto send = dyn_cast<SendOp>(transfer))
    gathered = !send.getBuffer();
  else
    gathered = !cast<RecvOp>(transfer).getBuffer();
  if (!gathered)
    return emitOpError("(G1) the enclosing transfer does not gather this "
                       "side (it names a buffer)");
  if (writes && getBuffer() == Buffer::sendbuf)
    return emitOpError("(G2) the transfer writes this segment, so it must be "
                       "recvbuf, scratch or arena");
  return success();
}

LogicalResult AfterOp::verify() {
  if (!enclosingTransfer(*this))
    return emitOpError("(A1) must be inside the body of a sched.send, "
                       "sched.recv or sched.copy");
  return verifyEventRef(*this, (*this)->getParentOfType<PlanOp>(), getEvent(),
                        getIndex().size());
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

OpFoldResult ConstOp::fold(FoldAdaptor) { return getValueAttr(); }

/// A binary expression of two constants: the value the runtime gives it
/// (collrt_expr_fold), so the compiler and every rank agree on it; nothing
/// where the runtime's evaluation would fail (the plan keeps the expression
/// and binding reports the error, as before).
template <typename OpTy>
static OpFoldResult foldBinary(OpTy op, Attribute lhs, Attribute rhs) {
  auto a = dyn_cast_or_null<IntegerAttr>(lhs);
  auto b = dyn_cast_or_null<IntegerAttr>(rhs);
  int64_t value = 0;
  if (!a || !b || !collrt_expr_fold(OpTy::kOpcode, a.getInt(), b.getInt(), &value))
    return {};
  return IntegerAttr::get(IntegerType::get(op.getContext(), 64), value);
}

#define SCHED_FOLD_BINARY(OP)                                                  \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldBinary(*this, adaptor.getLhs(), adaptor.getRhs());              \
  }
SCHED_FOLD_BINARY(AddOp)
SCHED_FOLD_BINARY(SubOp)
SCHED_FOLD_BINARY(MulOp)
SCHED_FOLD_BINARY(FloorDivOp)
SCHED_FOLD_BINARY(ModOp)
SCHED_FOLD_BINARY(MinOp)
SCHED_FOLD_BINARY(MaxOp)
SCHED_FOLD_BINARY(CeilDivOp)
SCHED_FOLD_BINARY(EqOp)
SCHED_FOLD_BINARY(NeOp)
SCHED_FOLD_BINARY(LtOp)
SCHED_FOLD_BINARY(LeOp)
SCHED_FOLD_BINARY(GtOp)
SCHED_FOLD_BINARY(GeOp)
SCHED_FOLD_BINARY(AndOp)
SCHED_FOLD_BINARY(OrOp)
#undef SCHED_FOLD_BINARY

ParseResult SumOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument inductionVar;
  OpAsmParser::UnresolvedOperand lower, upper;
  Type index = parser.getBuilder().getIndexType();
  inductionVar.type = index;
  Region *body = result.addRegion();
  if (succeeded(parser.parseOptionalKeyword("max")))
    result.addAttribute(getMaxAttrName(result.name), parser.getBuilder().getUnitAttr());
  if (parser.parseArgument(inductionVar) || parser.parseEqual() ||
      parser.parseOperand(lower) || parser.parseKeyword("to") ||
      parser.parseOperand(upper) ||
      parser.resolveOperand(lower, index, result.operands) ||
      parser.resolveOperand(upper, index, result.operands) ||
      parser.parseRegion(*body, {inductionVar}) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes(index);
  return success();
}

void SumOp::print(OpAsmPrinter &p) {
  p << (getMax() ? " max " : " ") << getInductionVar() << " = " << getLower() << " to "
    << getUpper() << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(), {getMaxAttrName()});
}

void SumOp::getAsmBlockArgumentNames(Region &region,
                                     OpAsmSetValueNameFn setNameFn) {
  if (!region.empty() && region.front().getNumArguments() == 1)
    setNameFn(region.front().getArgument(0), "t");
}

Value SumOp::getYielded() {
  return cast<YieldOp>(getBody().front().getTerminator()).getValue();
}

LogicalResult SumOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("(U1) the body takes one index summation variable");
  unsigned depth = 1;
  for (Operation *parent = (*this)->getParentOp(); parent;
       parent = parent->getParentOp())
    depth += isa<SumOp>(parent);
  if (depth > COLLRT_MAX_SUM_NESTING)
    return emitOpError("(U2) sums nest at most ")
           << COLLRT_MAX_SUM_NESTING << " deep";
  return success();
}

// Readable IR: %rank, %size and %c4096 instead of numbered values.
void ConstOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  int64_t value = static_cast<int64_t>(getValue());
  setNameFn(getResult(), value < 0 ? "c_neg" + std::to_string(-value)
                                   : "c" + std::to_string(value));
}
void RankOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "rank");
}
void SizeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "size");
}

static coll::TopologyAttr getTopology(Operation *op) {
  auto plan = op->getParentOfType<PlanOp>();
  return plan ? plan.getTopology() : coll::TopologyAttr();
}

/// (D1) a dimension index must name a topology dimension.
static LogicalResult verifyDimIndex(Operation *op, int64_t dim) {
  coll::TopologyAttr topology = getTopology(op);
  if (!topology)
    return success();
  int64_t numDims = topology.getShape().size();
  if (dim < 0 || dim >= numDims)
    return op->emitOpError("(D1) dimension ")
           << dim << " is outside a " << numDims << "-dimensional topology";
  return success();
}

LogicalResult DimOp::verify() { return verifyDimIndex(*this, getDim()); }
LogicalResult CoordOp::verify() { return verifyDimIndex(*this, getDim()); }

LogicalResult RankAtOp::verify() {
  coll::TopologyAttr topology = getTopology(*this);
  if (topology && getCoords().size() != topology.getShape().size())
    return emitOpError("(D2) takes ")
           << topology.getShape().size() << " coordinates, got "
           << getCoords().size();
  return success();
}

#define GET_OP_CLASSES
#include "collc/Dialect/Sched/SchedOps.cpp.inc"

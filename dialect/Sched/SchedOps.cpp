//===- SchedOps.cpp - sched operation verifiers and syntax ----------------===//
#include "dialect/Sched/SchedOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace collc;
using namespace collc::sched;

//===----------------------------------------------------------------------===//
// PlanOp
//===----------------------------------------------------------------------===//

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
  for (Operation &op : getBody().front()) {
    if (isa<PhaseOp, ScratchOp>(op) || op.hasTrait<OpTrait::ConstantLike>() ||
        isPure(&op))
      continue;
    return op.emitOpError("(P3) cannot appear directly in a plan; only "
                          "phases, sched.scratch and expressions can")
               .attachNote(getLoc())
           << "in this plan";
  }
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

LogicalResult PhaseOp::verify() {
  auto plan = dyn_cast<PlanOp>((*this)->getParentOp());
  if (!plan)
    return emitOpError("(PH1) must be directly inside a sched.plan");
  int64_t numFifos = plan.getFifos().size();
  int64_t fifo = getFifo();
  if (fifo < 0 || fifo >= numFifos)
    return emitOpError("(PH2) uses FIFO ")
           << fifo << " but the plan declares " << numFifos;
  return success();
}

//===----------------------------------------------------------------------===//
// ForOp: sched.for %k = %lo to %hi [random(%seed)] { ... }
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
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getRandomAttrName()});
}

void ForOp::getAsmBlockArgumentNames(Region &region,
                                     OpAsmSetValueNameFn setNameFn) {
  if (!region.empty() && region.front().getNumArguments() == 1)
    setNameFn(region.front().getArgument(0), "k");
}

LogicalResult ForOp::verify() {
  if (getRandom() != static_cast<bool>(getSeed()))
    return emitOpError("(L1) a seed is given exactly when the order is random");
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("(L2) the body takes one index induction variable");
  return success();
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

/// Constraints X1-X4 shared by send, recv and copy.
static LogicalResult verifyTransfer(Operation *op,
                                    std::optional<StringRef> waitEvent,
                                    size_t numWaitIndices,
                                    std::optional<StringRef> signalEvent,
                                    size_t numSignalIndices,
                                    ArrayRef<Buffer> buffers) {
  if (!op->getParentOfType<PhaseOp>())
    return op->emitOpError("(X1) must be inside a sched.phase");
  auto plan = op->getParentOfType<PlanOp>();
  for (auto [event, count] : {std::make_pair(waitEvent, numWaitIndices),
                              std::make_pair(signalEvent, numSignalIndices)}) {
    if (!event) {
      if (count != 0)
        return op->emitOpError("(X3) an event index without an event");
      continue;
    }
    if (plan.lookupEvent(*event) < 0)
      return op->emitOpError("(X2) event '")
             << *event << "' is not declared by the plan";
    if (count < 1 || count > 2)
      return op->emitOpError("(X3) event '")
             << *event << "' is indexed by " << count
             << " values; it takes 1 or 2";
  }
  if (llvm::is_contained(buffers, Buffer::scratch) &&
      plan.getBody().front().getOps<ScratchOp>().empty())
    return op->emitOpError("(X4) uses the scratch buffer but the plan has "
                           "no sched.scratch");
  return success();
}

LogicalResult SendOp::verify() {
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {getBuffer()});
}

LogicalResult RecvOp::verify() {
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {getBuffer()});
}

LogicalResult CopyOp::verify() {
  return verifyTransfer(*this, getWaitEvent(), getWaitIndex().size(),
                        getSignalEvent(), getSignalIndex().size(),
                        {getSrcBuffer(), getDstBuffer()});
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

OpFoldResult ConstOp::fold(FoldAdaptor) { return getValueAttr(); }

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
#include "dialect/Sched/SchedOps.cpp.inc"

//===- CollOps.cpp - coll operation verifiers -----------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "collc/Dialect/Coll/CollAlgorithms.h"

#include "collc/plan.h"
#include "collc/plan_format.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace collc::coll;

/// The constraints every collective op shares (CollOps.td, C1-C3).
template <typename OpTy>
static LogicalResult verifyCollective(OpTy op) {
  // I64Attr accessors return uint64_t; the constraints are on signed values.
  int64_t minBytes = op.getMinBytes(), maxBytes = op.getMaxBytes();
  if (minBytes < 0 || minBytes > maxBytes)
    return op.emitOpError("(C1) byte range [")
           << minBytes << ", " << maxBytes
           << "] is empty or negative";
  StringRef algorithm = op.getAlgorithm().getName();
  ArrayRef<StringLiteral> supported = OpTy::getSupportedAlgorithms();
  if (algorithm != "auto" && !llvm::is_contained(supported, algorithm)) {
    std::string names;
    for (StringLiteral name : supported)
      names += (names.empty() ? "" : ", ") + name.str();
    return op.emitOpError("(C2) algorithm '")
           << algorithm << "' is not one of auto, " << names;
  }
  // the option's own check (#coll.algorithm, A3) cannot see the topology
  if (DictionaryAttr options = op.getAlgorithm().getOptions())
    if (options.get("mesh")) {
      ArrayRef<int64_t> parts = op.getAlgorithm().getInts("mesh");
      ArrayRef<int64_t> shape = op.getTopology().getShape();
      bool fits = parts.size() == shape.size();
      for (size_t d = 0; fits && d < shape.size(); ++d)
        fits = parts[d] >= 1 && shape[d] % parts[d] == 0;
      if (!fits)
        return op.emitOpError("(C3) mesh has ")
               << parts.size() << " part counts for a topology of " << shape.size()
               << " dimensions, or one that does not divide its extent";
    }
  if (std::optional<int64_t> parts = op.getAlgorithm().getInt("parts")) {
    int64_t most = collc::algorithms::dimRingsMaxParts(op.getTopology().getShape());
    if (*parts > most)
      return op.emitOpError("(C3) parts is ")
             << *parts << ", but dim-rings cuts a block into at most " << most
             << " on this topology (one per dimension longer than 1)";
  }
  return success();
}

/// The algorithms of CollAlgorithms.def that lower op `column` (0
/// alltoall, 1 alltoallv, 2 allgatherv, 3 allreduce, 4 bcast), in the
/// table's order.
static SmallVector<StringLiteral> supportedBy(int column) {
  SmallVector<StringLiteral> names;
  for (const collc::algorithms::AlgorithmRow &row : collc::algorithms::kAlgorithms)
    if (row.lowers[column])
      names.push_back(row.name);
  return names;
}

ArrayRef<StringLiteral> AlltoallOp::getSupportedAlgorithms() {
  static const SmallVector<StringLiteral> names = supportedBy(0);
  return names;
}
ArrayRef<StringLiteral> AlltoallvOp::getSupportedAlgorithms() {
  static const SmallVector<StringLiteral> names = supportedBy(1);
  return names;
}
ArrayRef<StringLiteral> AllgathervOp::getSupportedAlgorithms() {
  static const SmallVector<StringLiteral> names = supportedBy(2);
  return names;
}

ArrayRef<StringLiteral> AllreduceOp::getSupportedAlgorithms() {
  static const SmallVector<StringLiteral> names = supportedBy(3);
  return names;
}
ArrayRef<StringLiteral> BcastOp::getSupportedAlgorithms() {
  static const SmallVector<StringLiteral> names = supportedBy(4);
  return names;
}

LogicalResult AlltoallOp::verify() { return verifyCollective(*this); }
LogicalResult AlltoallvOp::verify() { return verifyCollective(*this); }
LogicalResult AllgathervOp::verify() { return verifyCollective(*this); }
LogicalResult AllreduceOp::verify() {
  // the runtime's own table and rule (collrt_reduce_valid), as sched.reduce's
  unsigned rop = collrt_reduce_op_from_name(getReduceOp().str().c_str());
  unsigned rtype = collrt_reduce_type_from_name(getDatatype().str().c_str());
  if (!rop)
    return emitOpError("(C4) '") << getReduceOp() << "' is not a reduction operation";
  if (!rtype)
    return emitOpError("(C4) '") << getDatatype() << "' is not an element type of the plan's table";
  char why[200];
  if (!collrt_reduce_valid(rop, rtype, why, sizeof why))
    return emitOpError("(C4) ") << why;
  return verifyCollective(*this);
}
LogicalResult BcastOp::verify() {
  if (getRoot() != 0)
    return emitOpError("(C4) root is ")
           << getRoot() << "; a bcast plan broadcasts from rank 0 (the plan format records no root)";
  return verifyCollective(*this);
}

#define GET_OP_CLASSES
#include "collc/Dialect/Coll/CollOps.cpp.inc"

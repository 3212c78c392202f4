//===- CollOps.cpp - coll operation verifiers -----------------------------===//
#include "dialect/Coll/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace collc::coll;

/// The constraints every collective op shares (CollOps.td, C1-C2).
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
  return success();
}

LogicalResult AlltoallOp::verify() { return verifyCollective(*this); }
LogicalResult AlltoallvOp::verify() { return verifyCollective(*this); }
LogicalResult AllgathervOp::verify() { return verifyCollective(*this); }

#define GET_OP_CLASSES
#include "dialect/Coll/CollOps.cpp.inc"

//===- CollOps.cpp - coll operation verifiers -----------------------------===//
#include "dialect/Coll/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace collc::coll;

/// The constraints every collective op shares (CollOps.td, C1-C5).
template <typename OpTy>
static LogicalResult verifyCollective(OpTy op) {
  // I64Attr accessors return uint64_t; the constraints are on signed values.
  int64_t minBytes = op.getMinBytes(), maxBytes = op.getMaxBytes();
  if (minBytes < 0 || minBytes > maxBytes)
    return op.emitOpError("(C1) byte range [")
           << minBytes << ", " << maxBytes
           << "] is empty or negative";
  StringRef algorithm = op.getAlgorithm();
  ArrayRef<StringLiteral> supported = OpTy::getSupportedAlgorithms();
  if (algorithm != "auto" && !llvm::is_contained(supported, algorithm)) {
    std::string names;
    for (StringLiteral name : supported)
      names += (names.empty() ? "" : ", ") + name.str();
    return op.emitOpError("(C2) algorithm '")
           << algorithm << "' is not one of auto, " << names;
  }
  bool mayBeDirect = algorithm == "auto" || algorithm == "direct";
  if (op.getOrder() != "shift" && op.getOrder() != "random")
    return op.emitOpError("(C3) order '")
           << op.getOrder() << "' is not shift or random";
  if (op.getOrder() == "random" && !mayBeDirect)
    return op.emitOpError("(C3) order random needs algorithm direct, not ")
           << algorithm;
  if (std::optional<uint64_t> block = op.getBlockBytes()) {
    if (static_cast<int64_t>(*block) < 1)
      return op.emitOpError("(C4) block_bytes is ")
             << static_cast<int64_t>(*block)
                                                     << "; it must be >= 1";
    if (algorithm != "auto" && algorithm != "blocked-ring")
      return op.emitOpError("(C4) block_bytes needs algorithm blocked-ring, "
                            "not ")
             << algorithm;
  }
  if (std::optional<uint64_t> depth = op.getFifoDepth())
    if (static_cast<int64_t>(*depth) < 1 || *depth > 65535)
      return op.emitOpError("(C5) fifo_depth is ")
             << static_cast<int64_t>(*depth) << "; it must be in [1, 65535]";
  return success();
}

LogicalResult AlltoallOp::verify() { return verifyCollective(*this); }
LogicalResult AlltoallvOp::verify() { return verifyCollective(*this); }
LogicalResult AllgathervOp::verify() { return verifyCollective(*this); }

#define GET_OP_CLASSES
#include "dialect/Coll/CollOps.cpp.inc"

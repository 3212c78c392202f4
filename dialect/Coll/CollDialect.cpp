//===- CollDialect.cpp - coll dialect and the topology attribute ----------===//
#include "dialect/Coll/CollDialect.h"
#include "dialect/Coll/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace collc::coll;

#include "dialect/Coll/CollDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/Coll/CollAttrs.cpp.inc"

void CollDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/Coll/CollAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/Coll/CollOps.cpp.inc"
      >();
}

LogicalResult
TopologyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> shape, ArrayRef<bool> wrap,
                     int64_t ranksPerNode, int64_t alphaPs, int64_t betaPs,
                     int64_t gammaPs) {
  if (shape.empty() || shape.size() > 3)
    return emitError() << "(T1) topology needs 1 to 3 dimensions, got "
                       << shape.size();
  int64_t nodes = 1;
  for (auto [i, extent] : llvm::enumerate(shape)) {
    if (extent < 1)
      return emitError() << "(T1) dimension " << i << " has " << extent
                         << " nodes; every dimension needs at least 1";
    if (extent > INT32_MAX / nodes)
      return emitError() << "(T3) topology has more than 2^31-1 nodes";
    nodes *= extent;
  }
  if (wrap.size() != shape.size())
    return emitError() << "(T2) wrap has " << wrap.size()
                       << " entries but shape has " << shape.size();
  if (ranksPerNode < 1)
    return emitError() << "(T3) ranks_per_node is " << ranksPerNode
                       << "; it must be at least 1";
  // Divide rather than multiply: nodes * ranksPerNode can overflow int64_t.
  if (ranksPerNode > INT32_MAX / nodes)
    return emitError() << "(T3) " << nodes << " nodes x " << ranksPerNode
                       << " ranks per node exceeds 2^31-1 ranks";
  for (int64_t ps : {alphaPs, betaPs, gammaPs})
    if (ps < 0 || ps > UINT32_MAX)
      return emitError() << "(T4) cost parameter " << ps
                         << " ps is outside [0, 2^32)";
  return success();
}

int64_t TopologyAttr::getNumNodes() const {
  int64_t nodes = 1;
  for (int64_t extent : getShape())
    nodes *= extent;
  return nodes;
}

int64_t TopologyAttr::getLongestDim() const {
  int64_t longest = 1;
  for (int64_t extent : getShape())
    longest = std::max(longest, extent);
  return longest;
}

//===- DimRingsAddressing.cpp - where dim-rings items sit, stage by stage -===//
#include "lib/Passes/DimRingsAddressing.h"

using namespace mlir;
using namespace collc;

LogicalResult dimrings::checkTopology(Operation *op, coll::TopologyAttr topology,
                                      StringRef opName) {
  if (topology.getRanksPerNode() != 1)
    return op->emitError("the dim-rings ")
           << opName << " schedules one rank per torus node; this topology has "
           << topology.getRanksPerNode() << " ranks per node (use algorithm: direct)";
  for (auto [d, wraps] : llvm::enumerate(topology.getWrap()))
    if (!wraps)
      return op->emitError("the dim-rings ")
             << opName << " needs a torus (every dimension wrapped); dimension " << d
             << " does not wrap (use algorithm: direct or balanced)";
  return success();
}

std::string dimrings::partsPhaseName(ArrayRef<SmallVector<int64_t, 3>> orders) {
  static const char *const names[] = {"x", "y", "z"};
  std::string name = "parts:";
  for (auto [part, order] : llvm::enumerate(orders)) {
    name += part ? " |" : "";
    for (int64_t d : order)
      name += std::string(" ") + names[d];
  }
  return name;
}

SmallVector<Value, 3> dimrings::decode(ScheduleBuilder &b, Value index, ArrayRef<Value> radix) {
  SmallVector<Value, 3> digits;
  for (Value r : radix) {
    digits.push_back(b.mod(index, r));
    index = b.floordiv(index, r);
  }
  return digits;
}

Value dimrings::rankOf(ScheduleBuilder &b, ArrayRef<Value> digits, ArrayRef<Value> strides) {
  Value rank = b.c(0);
  for (size_t i = 0; i < digits.size(); ++i)
    rank = b.add(rank, b.mul(digits[i], strides[i]));
  return rank;
}

Value dimrings::previousIndex(ScheduleBuilder &b, ArrayRef<Value> digits, Value j,
                              ArrayRef<Value> atStage, ArrayRef<Value> prevSkipped,
                              ArrayRef<Value> prevRadix) {
  Value index = b.c(0);
  for (int64_t i = static_cast<int64_t>(digits.size()) - 1; i >= 0; --i) {
    Value digit = b.select(prevSkipped[i], b.c(0), b.select(atStage[i], j, digits[i]));
    index = b.add(b.mul(index, prevRadix[i]), digit);
  }
  return index;
}

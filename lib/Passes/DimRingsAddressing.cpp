//===- DimRingsAddressing.cpp - where dim-rings items sit, stage by stage -===//
#include "lib/Passes/DimRingsAddressing.h"

using namespace mlir;
using namespace collc;

LogicalResult dimrings::checkTopology(Operation *op, coll::TopologyAttr topology,
                                      bool lines) {
  if (failed(requireOneRankPerNode(op, "dim-rings")))
    return failure();
  if (lines)
    return success();
  for (auto [d, wraps] : llvm::enumerate(topology.getWrap()))
    if (!wraps)
      return op->emitError("the dim-rings ")
             << op->getName().stripDialect() << " needs a torus (every dimension wrapped); dimension " << d
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

// The source's coordinates at positions before k are q's digits there (s),
// the others this rank's; the destination's are this rank's before k, j at
// k, q's digits after k (t). Out_l is keyed by s before l and t after it, l
// skipped: q's digits before l, this rank's between l and k (where source,
// destination and this rank agree: no stage in between moved the item),
// j at k, q's digits after k. With l = −1 that is the destination.
void dimrings::itemHome(ScheduleBuilder &b, ArrayRef<Value> digits, Value j, Value k,
                        ArrayRef<Value> mine, ArrayRef<Value> atStage, ArrayRef<Value> extents,
                        ArrayRef<Value> strides, function_ref<void(Value dest)> inSendbuf,
                        function_ref<void(Value stage, Value position)> inOut) {
  int64_t ndims = static_cast<int64_t>(digits.size());
  Value zero = b.c(0), one = b.c(1), none = b.c(-1);
  Value l = none;
  for (int64_t i = 0; i < ndims; ++i)
    l = b.select(b.logicalAnd(b.lt(b.c(i), k), b.ne(digits[i], mine[i])), b.c(i), l);
  SmallVector<Value, 3> keyed;
  for (int64_t i = 0; i < ndims; ++i) {
    Value beforeK = b.select(b.lt(b.c(i), l), digits[i], mine[i]);
    keyed.push_back(b.select(atStage[i], j, b.select(b.lt(b.c(i), k), beforeK, digits[i])));
  }
  // Each branch computes only what it reads: bind evaluates this per item.
  OpBuilder &builder = b.getBuilder();
  {
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.eq(l, none));
    inSendbuf(rankOf(b, keyed, strides));
  }
  OpBuilder::InsertionGuard guard(builder);
  b.ifThen(b.ne(l, none));
  Value index = zero;
  for (int64_t i = ndims - 1; i >= 0; --i) {
    Value skipped = b.eq(b.c(i), l);
    index = b.add(b.mul(index, b.select(skipped, one, extents[i])),
                  b.select(skipped, zero, keyed[i]));
  }
  Value rows = b.floordiv(b.nodes(ndims), b.pick(l, extents));
  inOut(l, b.add(b.mul(b.pick(l, digits), rows), index));
}

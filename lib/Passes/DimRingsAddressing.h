//===- DimRingsAddressing.h - where dim-rings items sit, stage by stage ---===//
//
// The dim-rings alltoall (LowerDimRings.cpp) and alltoallv
// (LowerDimRingsV.cpp) lay out items the same way: at stage k of a part, an
// item waiting at a rank is keyed by q, the mixed-radix index of its free
// coordinates by position in the part's order (s along positions before k,
// t along those after, first digit fastest, position k skipped with radix
// 1). These helpers are that one addressing, as sched expressions.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PASSES_DIMRINGSADDRESSING_H
#define COLLC_PASSES_DIMRINGSADDRESSING_H

#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/ScheduleBuilder.h"

#include <string>

namespace collc::dimrings {

/// One rank per node on a torus, each dimension wrapped unless `lines`
/// (the alltoall runs a line's stage too; the alltoallv rings only), or an
/// error naming the op, what is wrong and what to use instead.
mlir::LogicalResult checkTopology(mlir::Operation *op, coll::TopologyAttr topology,
                                  bool lines);

/// The phase loop's name: every part's order, e.g. "parts: z x y | y z x".
std::string partsPhaseName(llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> orders);

/// The digits of q by position, each position's radix given (1 at the
/// stage's own position, whose digit is then 0).
llvm::SmallVector<mlir::Value, 3> decode(ScheduleBuilder &b, mlir::Value index,
                                         llvm::ArrayRef<mlir::Value> radix);

/// The rank whose coordinate at position i is digits[i] (plus the stage's
/// own coordinate, added by the caller): Σ digits[i]·strides[i].
mlir::Value rankOf(ScheduleBuilder &b, llvm::ArrayRef<mlir::Value> digits,
                   llvm::ArrayRef<mlir::Value> strides);

/// Where item (j, q) of stage k's input is (q's digits given). No stage
/// copies a rank's own items on to the next (the last copies them to the
/// receive buffer): an item sits in Out_l of the latest stage l < k that
/// moved it, the latest position before k where its source differs from
/// this rank, or in the send buffer if no stage did. Emits the two cases
/// as branches: `inSendbuf(dest)` with the item's destination rank, or
/// `inOut(l, position)` with its position in Out_l, origin·(P/n_l) + q_l.
/// `mine`, `extents` and `strides` by position: this rank's coordinates,
/// the extents, the strides; `atStage[i]`: whether position i is k's.
void itemHome(ScheduleBuilder &b, llvm::ArrayRef<mlir::Value> digits, mlir::Value j,
              mlir::Value k, llvm::ArrayRef<mlir::Value> mine,
              llvm::ArrayRef<mlir::Value> atStage, llvm::ArrayRef<mlir::Value> extents,
              llvm::ArrayRef<mlir::Value> strides,
              llvm::function_ref<void(mlir::Value dest)> inSendbuf,
              llvm::function_ref<void(mlir::Value stage, mlir::Value position)> inOut);

} // namespace collc::dimrings

#endif // COLLC_PASSES_DIMRINGSADDRESSING_H

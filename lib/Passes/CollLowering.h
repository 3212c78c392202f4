//===- CollLowering.h - coll ops to sched plans as conversion patterns -*- C++ -*-===//
//
// Every algorithm's lowering is a dialect-conversion pattern: it matches the
// coll ops whose recorded algorithm is its own, builds their sched.plan with
// the rewriter and erases them. `coll-lower-<name>` applies one algorithm's
// patterns (its ops must lower, others stay); `coll-lower` applies them all
// with the coll dialect illegal, so a collective nothing lowered is the
// conversion's error, not a check of the driver's.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PASSES_COLLLOWERING_H
#define COLLC_PASSES_COLLLOWERING_H

#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/ScheduleBuilder.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace collc {

/// Builds the plan of `op` with `builder` (placed before the op), or emits
/// an error on the op naming what does not fit and fails. It decides
/// nothing: its parameters are on the op's #coll.algorithm.
template <typename OpTy>
using LowerFn = std::function<mlir::LogicalResult(OpTy op, mlir::OpBuilder &builder)>;

/// The pattern of one lowering: the `OpTy` ops whose algorithm is one of
/// `algorithms` and whose parameters are decided (an error names the first
/// missing one), lowered by `lower`.
template <typename OpTy>
class CollLoweringPattern : public mlir::OpConversionPattern<OpTy> {
public:
  CollLoweringPattern(mlir::MLIRContext *context, llvm::ArrayRef<llvm::StringRef> algorithms,
                      LowerFn<OpTy> lower)
      : mlir::OpConversionPattern<OpTy>(context), algorithms(algorithms), lower(std::move(lower)) {}

  mlir::LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                      mlir::ConversionPatternRewriter &rewriter) const override {
    if (!llvm::is_contained(algorithms, op.getAlgorithm().getName()))
      return rewriter.notifyMatchFailure(op, "another algorithm's op");
    if (!hasDecidedParameters(op))
      return mlir::failure();
    rewriter.setInsertionPoint(op);
    if (mlir::failed(lower(op, rewriter)))
      return mlir::failure();
    rewriter.eraseOp(op);
    return mlir::success();
  }

private:
  llvm::SmallVector<llvm::StringRef, 2> algorithms;
  LowerFn<OpTy> lower;
};

template <typename OpTy>
void addCollLowering(mlir::RewritePatternSet &patterns,
                     llvm::ArrayRef<llvm::StringRef> algorithms, LowerFn<OpTy> lower) {
  patterns.add<CollLoweringPattern<OpTy>>(patterns.getContext(), algorithms, std::move(lower));
}

/// Each algorithm's patterns, one function per module of CollAlgorithms.def
/// (populateDirectLowering, populateDimRingsLowering, ...).
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, ALLREDUCE,     \
                       BCAST, DEPTH)                                               \
  void populate##MODULE##Lowering(mlir::RewritePatternSet &patterns);
#include "collc/Dialect/Coll/CollAlgorithms.def"
/// dim-rings' alltoallv (LowerDimRingsV.cpp), a part of populateDimRingsLowering.
void populateDimRingsVLowering(mlir::RewritePatternSet &patterns);

/// Every algorithm's patterns, in the table's order.
void populateCollLowerings(mlir::RewritePatternSet &patterns);

/// Lowers the coll ops of `module` with `patterns`. With `algorithms`, the
/// ops of those algorithms must lower and the others are left as they are;
/// without, every coll op must lower.
mlir::LogicalResult
applyCollLowerings(mlir::ModuleOp module, mlir::RewritePatternSet &&patterns,
                   std::optional<llvm::ArrayRef<llvm::StringRef>> algorithms = std::nullopt);

} // namespace collc

#endif // COLLC_PASSES_COLLLOWERING_H

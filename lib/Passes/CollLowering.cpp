//===- CollLowering.cpp - applying the lowering patterns ------------------===//
#include "lib/Passes/CollLowering.h"

#include "collc/Dialect/Sched/SchedDialect.h"
#include "collc/Passes/Passes.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWER
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;

void collc::populateCollLowerings(RewritePatternSet &patterns) {
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, ALLREDUCE,     \
                       BCAST, DEPTH)                                               \
  populate##MODULE##Lowering(patterns);
#include "collc/Dialect/Coll/CollAlgorithms.def"
}

LogicalResult collc::applyCollLowerings(ModuleOp module, RewritePatternSet &&patterns,
                                        std::optional<ArrayRef<StringRef>> algorithms) {
  ConversionTarget target(*module.getContext());
  target.addLegalDialect<sched::SchedDialect>();
  if (algorithms) {
    SmallVector<StringRef> names(algorithms->begin(), algorithms->end());
    target.addDynamicallyLegalDialect<coll::CollDialect>([names](Operation *op) {
      auto algorithm = op->getAttrOfType<coll::AlgorithmAttr>("algorithm");
      return !algorithm || !llvm::is_contained(names, algorithm.getName());
    });
  } else {
    target.addIllegalDialect<coll::CollDialect>();
  }
  return applyPartialConversion(module, target, std::move(patterns));
}

namespace {
struct CollLowerPass : public collc::impl::CollLowerBase<CollLowerPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateCollLowerings(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

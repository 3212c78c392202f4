//===- Pipeline.cpp - collc's pass pipeline, shared with collc-opt --------===//
#include "collc/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void collc::buildCollcPipeline(OpPassManager &pm, int64_t verifyRanks) {
  pm.addPass(createCollSelectAlgorithm());
  pm.addPass(createCollLower());
  // constant expressions folded as the runtime evaluates them, then shared
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (verifyRanks > 0)
    pm.addPass(createSchedVerify(SchedVerifyOptions{verifyRanks}));
}

namespace {
struct CollcPipelineOptions : public PassPipelineOptions<CollcPipelineOptions> {
  Option<int64_t> verifyRanks{*this, "verify-ranks",
                              llvm::cl::desc("verify every communicator size from 1 to "
                                             "this (0: do not verify)"),
                              llvm::cl::init(16)};
};
} // namespace

void collc::registerCollcPipeline() {
  PassPipelineRegistration<CollcPipelineOptions>(
      "collc-pipeline", "what collc runs on a module: select, lower, canonicalize, CSE, verify",
      [](OpPassManager &pm, const CollcPipelineOptions &options) {
        buildCollcPipeline(pm, options.verifyRanks);
      });
}

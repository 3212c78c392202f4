//===- SelectAlgorithm.cpp - cost-model choice of algorithm ---------------===//
//
// For every collective left at algorithm = "auto", asks the cost model
// (lib/Cost) for the predicted time of each applicable algorithm, records the
// fastest, and attaches the prediction (predicted_us) and a remark listing
// every candidate so the user can see why it won.
//
//===----------------------------------------------------------------------===//
#include "dialect/Coll/CollOps.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace collc {
#define GEN_PASS_DEF_COLLSELECTALGORITHM
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;

namespace {

/// The spec the cost model reasons about, rebuilt from the op's attributes.
template <typename OpTy>
Spec specOf(OpTy op, CollectiveKind kind) {
  coll::TopologyAttr topology = op.getTopology();
  Spec spec;
  spec.topology.shape.assign(topology.getShape().begin(),
                             topology.getShape().end());
  spec.topology.wrap.assign(topology.getWrap().begin(),
                            topology.getWrap().end());
  spec.topology.ranksPerNode = topology.getRanksPerNode();
  spec.topology.routing = topology.getAdaptive() ? Routing::Adaptive
                                                 : Routing::DimensionOrder;
  spec.topology.fabric = topology.getSwitched() ? Fabric::Switch : Fabric::Torus;
  spec.topology.network.alphaUs = topology.getAlphaPs() * 1e-6;
  spec.topology.network.betaNsPerByte = topology.getBetaPs() * 1e-3;
  spec.topology.network.copyNsPerByte = topology.getGammaPs() * 1e-3;
  spec.collective.kind = kind;
  spec.collective.minBytes = static_cast<int64_t>(op.getMinBytes());
  spec.collective.maxBytes = static_cast<int64_t>(op.getMaxBytes());
  spec.collective.blockBytes = op.getAlgorithm().getInt("block_bytes");
  return spec;
}

template <typename OpTy>
void select(OpTy op, CollectiveKind kind) {
  if (op.getAlgorithm().getName() != "auto")
    return;
  std::vector<AlgorithmEstimate> estimates =
      estimateAlgorithms(specOf(op, kind));
  // Only algorithms this op can be lowered with compete.
  llvm::erase_if(estimates, [](const AlgorithmEstimate &e) {
    return !llvm::is_contained(OpTy::getSupportedAlgorithms(), e.algorithm);
  });
  if (estimates.empty()) {
    op.emitError("cost model has no algorithm for this collective");
    return;
  }
  const AlgorithmEstimate &best = estimates.front();
  Builder builder(op.getContext());
  op.setAlgorithmAttr(op.getAlgorithm().selectAs(best.algorithm));
  op->setAttr("predicted_us", builder.getF64FloatAttr(best.timeUs));
  InFlightDiagnostic remark = op.emitRemark("selected ")
                              << best.algorithm << " by the cost model";
  for (const AlgorithmEstimate &estimate : estimates)
    remark.attachNote() << explainEstimate(estimate);
}

struct CollSelectAlgorithmPass
    : public collc::impl::CollSelectAlgorithmBase<CollSelectAlgorithmPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (auto a2a = dyn_cast<coll::AlltoallOp>(op))
        select(a2a, CollectiveKind::Alltoall);
      else if (auto a2av = dyn_cast<coll::AlltoallvOp>(op))
        select(a2av, CollectiveKind::Alltoallv);
      else if (auto agv = dyn_cast<coll::AllgathervOp>(op))
        select(agv, CollectiveKind::Allgatherv);
    });
  }
};

} // namespace

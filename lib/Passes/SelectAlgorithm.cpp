//===- SelectAlgorithm.cpp - choose an algorithm, decide its parameters ---===//
//
// For every collective left at algorithm = "auto", asks the algorithm
// modules (lib/Algorithms) for the predicted time of each one the cost model
// weighs, records the fastest, and attaches the prediction (predicted_us)
// and a remark listing every candidate, and every algorithm not weighed
// with the reason, so the user can see why it won. Then, for every
// collective, the chosen or named algorithm's module decides the parameters
// the spec left open (FIFO depth, order, parts, mesh) and they are recorded
// in #coll.algorithm: the lowerings read them, and --emit=coll shows what
// will run.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Algorithms/Algorithm.h"
#include "lib/Cost/CostModel.h"
#include "collc/Passes/Passes.h"

#include "mlir/IR/Builders.h"

#include <type_traits>

namespace collc {
#define GEN_PASS_DEF_COLLSELECTALGORITHM
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;

TopologySpec collc::topologySpecOf(coll::TopologyAttr topology) {
  TopologySpec topo;
  topo.shape.assign(topology.getShape().begin(), topology.getShape().end());
  topo.wrap.assign(topology.getWrap().begin(), topology.getWrap().end());
  topo.ranksPerNode = topology.getRanksPerNode();
  topo.routing = topology.getAdaptive() ? Routing::Adaptive : Routing::DimensionOrder;
  topo.fabric = topology.getSwitched() ? Fabric::Switch : Fabric::Torus;
  topo.network.alphaUs = topology.getAlphaPs() * 1e-6;
  topo.network.betaNsPerByte = topology.getBetaPs() * 1e-3;
  topo.network.copyNsPerByte = topology.getGammaPs() * 1e-3;
  topo.network.headerBytes = topology.getHeaderBytes();
  topo.network.protoBytes = topology.getProtoBytes();
  topo.network.shmLatencyUs = topology.getShmLatencyPs() * 1e-6;
  topo.network.hopLatencyUs = topology.getHopLatencyPs() * 1e-6;
  topo.network.reverseLoad = static_cast<double>(topology.getReverseLoadPpm()) * 1e-6;
  // the attribute's verifier (T5) admits only the spellings symbolizeNicKind knows
  topo.nic.kind = symbolizeNicKind(topology.getNic()).value_or(NicKind::None);
  if (topo.nic.kind != NicKind::None) {
    topo.network.linkMBPerS = 1e6 / static_cast<double>(topology.getNicLinkPs());
    if (topology.getNicCorePs() > 0)
      topo.nic.coreMBPerS = 1e6 / static_cast<double>(topology.getNicCorePs());
    topo.nic.contexts = topology.getNicContexts();
    topo.nic.congestion = static_cast<double>(topology.getNicCongestionPpm()) * 1e-6;
  }
  return topo;
}

namespace {

/// The spec the cost model reasons about, rebuilt from the op's attributes.
template <typename OpTy>
Spec specOf(OpTy op, CollectiveKind kind) {
  Spec spec;
  spec.topology = topologySpecOf(op.getTopology());
  CollectiveSpec &coll = spec.collective;
  coll.kind = kind;
  coll.algorithm = op.getAlgorithm().getName().str();
  coll.minBytes = static_cast<int64_t>(op.getMinBytes());
  coll.maxBytes = static_cast<int64_t>(op.getMaxBytes());
  coll.evenCounts = op.getEvenCounts();
  coll::AlgorithmAttr options = op.getAlgorithm();
  coll.blockBytes = options.getInt("block_bytes");
  coll.fifoDepth = options.getInt("fifo_depth");
  coll.dimRingsParts = options.getInt("parts");
  llvm::ArrayRef<int64_t> mesh = options.getInts("mesh");
  coll.meshParts.assign(mesh.begin(), mesh.end());
  if (StringRef order = options.getString("order", ""); !order.empty())
    coll.order = order.str();
  if (StringRef throttle = options.getString("throttle", ""); !throttle.empty())
    coll.throttle = throttle.str();
  coll.seed = static_cast<uint64_t>(options.getInt("seed").value_or(1));
  if constexpr (std::is_same_v<OpTy, coll::AllreduceOp>) {
    coll.reduceOp = op.getReduceOp().str();
    coll.datatype = op.getDatatype().str();
  }
  if constexpr (std::is_same_v<OpTy, coll::BcastOp>)
    coll.root = static_cast<int64_t>(op.getRoot());
  return spec;
}

/// `chosen` with the decision's parameters recorded; a throttle is
/// recorded as the FIFO depth it decided.
coll::AlgorithmAttr record(coll::AlgorithmAttr chosen, const Decision &decision) {
  MLIRContext *ctx = chosen.getContext();
  Builder builder(ctx);
  llvm::StringMap<Attribute> decided;
  decided["fifo_depth"] = builder.getI64IntegerAttr(decision.fifoDepth);
  if (decision.order)
    decided["order"] = builder.getStringAttr(*decision.order);
  if (decision.seed)
    decided["seed"] = builder.getI64IntegerAttr(*decision.seed);
  if (decision.parts)
    decided["parts"] = builder.getI64IntegerAttr(*decision.parts);
  if (!decision.mesh.empty())
    decided["mesh"] = builder.getDenseI64ArrayAttr(decision.mesh);
  SmallVector<NamedAttribute> options;
  if (DictionaryAttr given = chosen.getOptions())
    for (NamedAttribute option : given)
      if (!decided.count(option.getName().getValue()) &&
          option.getName().getValue() != "throttle")
        options.push_back(option);
  for (auto &entry : decided)
    options.push_back(builder.getNamedAttr(entry.getKey(), entry.getValue()));
  return coll::AlgorithmAttr::get(ctx, chosen.getName(), builder.getDictionaryAttr(options));
}

template <typename OpTy>
void select(OpTy op, CollectiveKind kind) {
  Spec spec = specOf(op, kind);
  coll::AlgorithmAttr chosen = op.getAlgorithm();
  if (chosen.getName() != "auto") {
    op.setAlgorithmAttr(record(chosen, decideParameters(spec, chosen.getName())));
    return;
  }
  Weighing weighing = weighAlgorithms(spec);
  if (weighing.weighed.empty()) {
    op.emitError("cost model has no algorithm for this collective");
    return;
  }
  // the winner's decision, priced as it will run (spec.collective.algorithm
  // is "auto": a module may decide differently for a choice the user did
  // not make)
  const Candidate &best = weighing.weighed.front();
  op.setAlgorithmAttr(record(chosen.selectAs(best.estimate.algorithm), best.decision));
  op->setAttr("predicted_us", Builder(op.getContext()).getF64FloatAttr(best.estimate.timeUs));
  InFlightDiagnostic remark = op.emitRemark("selected ")
                              << best.estimate.algorithm << " by the cost model";
  for (const Candidate &candidate : weighing.weighed)
    remark.attachNote() << explainEstimate(candidate.estimate);
  for (const auto &[name, why] : weighing.notWeighed)
    remark.attachNote() << "not weighed: " << name << ": " << why;
  if (kind == CollectiveKind::Alltoall || kind == CollectiveKind::Alltoallv) {
    AlltoallBound bound = alltoallBound(spec.topology, estimateBytes(spec));
    if (!bound.cut.empty())
      remark.attachNote() << explainBound(bound);
  } else if (kind == CollectiveKind::Allreduce || kind == CollectiveKind::Bcast) {
    if (std::optional<std::string> bound = explainReductionBound(spec))
      remark.attachNote() << *bound;
  }
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
      else if (auto ar = dyn_cast<coll::AllreduceOp>(op))
        select(ar, CollectiveKind::Allreduce);
      else if (auto bc = dyn_cast<coll::BcastOp>(op))
        select(bc, CollectiveKind::Bcast);
    });
  }
};

} // namespace

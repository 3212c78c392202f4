//===- SpecToColl.cpp - a parsed spec as coll IR --------------------------===//
#include "lib/Frontend/SpecToColl.h"

#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/Dialect/Coll/CollOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>
#include <type_traits>

using namespace mlir;
using namespace collc;

static int64_t picoseconds(double value, double perUnit) {
  return static_cast<int64_t>(std::llround(value * perUnit));
}

/// Fails (with a diagnostic at `loc`) when the spec names an algorithm and
/// an option it does not take: the dialect's one option table decides.
template <typename OpTy>
static LogicalResult buildOp(OpBuilder &builder, Location loc, const Spec &spec,
                             StringRef name, coll::TopologyAttr topology) {
  const CollectiveSpec &c = spec.collective;
  // The spec's algorithm options travel with the algorithm; with "auto",
  // selection keeps those the chosen algorithm takes.
  SmallVector<NamedAttribute> options;
  if (c.order)
    options.push_back(builder.getNamedAttr("order", builder.getStringAttr(*c.order)));
  if (c.order.value_or(algorithms::defaultOrder(c.algorithm).str()) == "random")
    options.push_back(builder.getNamedAttr(
        "seed", builder.getI64IntegerAttr(static_cast<int64_t>(c.seed))));
  if (c.blockBytes)
    options.push_back(
        builder.getNamedAttr("block_bytes", builder.getI64IntegerAttr(*c.blockBytes)));
  if (c.stages)
    options.push_back(
        builder.getNamedAttr("stages", builder.getI64IntegerAttr(*c.stages)));
  if (c.waves)
    options.push_back(builder.getNamedAttr("waves", builder.getI64IntegerAttr(*c.waves)));
  if (c.dimRingsParts)
    options.push_back(builder.getNamedAttr("parts", builder.getI64IntegerAttr(*c.dimRingsParts)));
  if (c.throttle)
    options.push_back(builder.getNamedAttr("throttle", builder.getStringAttr(*c.throttle)));
  if (c.fifoDepth)
    options.push_back(
        builder.getNamedAttr("fifo_depth", builder.getI64IntegerAttr(*c.fifoDepth)));
  if (!c.meshParts.empty())
    options.push_back(builder.getNamedAttr("mesh", builder.getDenseI64ArrayAttr(c.meshParts)));
  auto algorithm = coll::AlgorithmAttr::getChecked(
      [&] { return emitError(loc); }, builder.getContext(), StringRef(c.algorithm),
      options.empty() ? DictionaryAttr() : builder.getDictionaryAttr(options));
  if (!algorithm)
    return failure();
  auto op = builder.create<OpTy>(
      loc, builder.getStringAttr(name), topology,
      builder.getI64IntegerAttr(c.minBytes.value_or(c.maxBytes.value_or(4096))),
      builder.getI64IntegerAttr(c.maxBytes.value_or(4096)), algorithm,
      c.evenCounts ? builder.getUnitAttr() : UnitAttr());
  // the collective's own attributes (the reduction, the root)
  if constexpr (std::is_same_v<OpTy, coll::AllreduceOp>) {
    op.setReduceOp(c.reduceOp);
    op.setDatatype(c.datatype);
  }
  if constexpr (std::is_same_v<OpTy, coll::BcastOp>)
    op.setRoot(c.root);
  return success();
}

OwningOpRef<ModuleOp> collc::buildCollModule(const Spec &spec, StringRef name,
                                             MLIRContext *context,
                                             Location loc) {
  context->loadDialect<coll::CollDialect>();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToStart(module->getBody());
  const TopologySpec &t = spec.topology;
  auto topology = coll::TopologyAttr::get(
      context, t.shape, t.wrap, t.ranksPerNode,
      picoseconds(t.network.alphaUs, 1e6),
      picoseconds(t.network.betaNsPerByte, 1e3),
      picoseconds(t.network.copyNsPerByte, 1e3),
      t.routing == Routing::Adaptive, t.fabric == Fabric::Switch,
      t.network.headerBytes, t.network.protoBytes,
      picoseconds(t.network.shmLatencyUs, 1e6), picoseconds(t.network.hopLatencyUs, 1e6),
      stringifyNicKind(t.nic.kind),
      t.nic.kind == NicKind::None ? 0 : picoseconds(1 / t.network.linkMBPerS, 1e6),
      t.nic.kind == NicKind::Onload ? picoseconds(1 / t.nic.coreMBPerS, 1e6) : 0,
      t.nic.contexts,
      t.nic.kind == NicKind::Offload ? std::llround(t.nic.congestion * 1e6) : 0,
      std::llround(t.network.reverseLoad * 1e6));
  LogicalResult built = failure();
  switch (spec.collective.kind) {
  case CollectiveKind::Alltoall:
    built = buildOp<coll::AlltoallOp>(builder, loc, spec, name, topology);
    break;
  case CollectiveKind::Alltoallv:
    built = buildOp<coll::AlltoallvOp>(builder, loc, spec, name, topology);
    break;
  case CollectiveKind::Allgatherv:
    built = buildOp<coll::AllgathervOp>(builder, loc, spec, name, topology);
    break;
  case CollectiveKind::Allreduce:
    built = buildOp<coll::AllreduceOp>(builder, loc, spec, name, topology);
    break;
  case CollectiveKind::Bcast:
    built = buildOp<coll::BcastOp>(builder, loc, spec, name, topology);
    break;
  }
  if (failed(built))
    return nullptr;
  return module;
}

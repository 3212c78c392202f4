//===- CollDialect.cpp - coll dialect and the topology attribute ----------===//
#include "collc/Dialect/Coll/CollDialect.h"
#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "collc/Dialect/Coll/CollOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "collc/plan_format.h"

using namespace mlir;
using namespace collc::coll;

#include "collc/Dialect/Coll/CollDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "collc/Dialect/Coll/CollAttrs.cpp.inc"

void CollDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "collc/Dialect/Coll/CollAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "collc/Dialect/Coll/CollOps.cpp.inc"
      >();
}

LogicalResult
TopologyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> shape, ArrayRef<bool> wrap,
                     int64_t ranksPerNode, int64_t alphaPs, int64_t betaPs,
                     int64_t gammaPs, bool adaptive, bool switched,
                     int64_t headerBytes, int64_t protoBytes, int64_t shmLatencyPs,
                     int64_t hopLatencyPs,
                     StringRef nic, int64_t nicLinkPs, int64_t nicCorePs,
                     int64_t nicContexts, int64_t nicCongestionPpm,
                     int64_t reverseLoadPpm) {
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
  if (headerBytes < 0 || protoBytes < 0 || shmLatencyPs < 0 || hopLatencyPs < 0)
    return emitError() << "(T4') header_bytes, proto_bytes, shm_latency_ps and hop_latency_ps "
                          "cannot be negative, got "
                       << headerBytes << ", " << protoBytes << ", " << shmLatencyPs << " and "
                       << hopLatencyPs;
  if (!nic.empty() && nic != "onload" && nic != "offload")
    return emitError() << "(T5) nic is '" << nic
                       << "'; expected onload or offload";
  if (!nic.empty() && !switched)
    return emitError() << "(T5) an " << nic
                       << " nic needs switched = true (a node's one link to a switch)";
  if (nic == "onload" && (nicCorePs <= 0 || nicLinkPs <= 0))
    return emitError() << "(T5) an onload nic needs nic_core_ps and nic_link_ps above 0, got "
                       << nicCorePs << " and " << nicLinkPs;
  if (nic == "offload" && nicContexts < 1)
    return emitError() << "(T5) an offload nic needs nic_contexts >= 1, got " << nicContexts;
  if (nicCongestionPpm < 0)
    return emitError() << "(T5) nic_congestion_ppm is " << nicCongestionPpm
                       << "; it cannot be negative";
  if (reverseLoadPpm < 0 || reverseLoadPpm > 1000000)
    return emitError() << "(T6) reverse_load_ppm is " << reverseLoadPpm
                       << "; it must be in [0, 1000000]";
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

bool AlgorithmAttr::takes(StringRef algorithm, StringRef option) {
  return collc::algorithms::takesOption(algorithm, option);
}

LogicalResult
AlgorithmAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef name, DictionaryAttr options) {
  // Names come from the one table of plan_format.h (COLLRT_ALGORITHMS).
  bool known = name == "auto";
#define COLLC_X_NAME(NAME, ID, SPELLING) known |= name == SPELLING;
  COLLRT_ALGORITHMS(COLLC_X_NAME)
#undef COLLC_X_NAME
  if (!known)
    return emitError() << "(A1) algorithm '" << name << "' is not known";
  if (!options)
    return success();
  auto throttle = options.getAs<StringAttr>("throttle");
  if (throttle && throttle.getValue() == "bisection" && options.get("fifo_depth"))
    return emitError() << "(A3) fifo_depth and throttle = \"bisection\" both set the "
                          "FIFO depth; keep one";
  for (NamedAttribute option : options) {
    StringRef key = option.getName().getValue();
    if (!takes(name, key))
      return emitError() << "(A2) algorithm " << name
                         << " takes no option '" << key << "'";
    for (const collc::algorithms::OptionRow &o : collc::algorithms::kOptions) {
      if (o.option != key)
        continue;
      if (o.kind == collc::algorithms::OptionKind::Parts) {
        auto parts = llvm::dyn_cast<DenseI64ArrayAttr>(option.getValue());
        if (!parts || llvm::any_of(parts.asArrayRef(), [](int64_t p) { return p < 1; }))
          return emitError() << "(A3) " << key
                             << " must be an array of parts >= 1, one per dimension, got "
                             << option.getValue();
        break;
      }
      auto str = llvm::dyn_cast<StringAttr>(option.getValue());
      auto num = llvm::dyn_cast<IntegerAttr>(option.getValue());
      int64_t v = num ? num.getValue().getSExtValue() : 0;
      ArrayRef<llvm::StringLiteral> names = collc::algorithms::namesOf(o.kind);
      if (!names.empty()) {
        if (!str || !llvm::is_contained(names, str.getValue())) {
          InFlightDiagnostic diag = emitError() << "(A3) " << key << " must be one of";
          for (llvm::StringRef name : names)
            diag << " \"" << name << "\"";
          return diag << ", got " << option.getValue();
        }
      } else if (!num) {
        return emitError() << "(A3) " << key << " must be an integer, got "
                           << option.getValue();
      } else if (o.kind == collc::algorithms::OptionKind::Positive && v < 1) {
        return emitError() << "(A3) " << key << " is " << v
                           << "; it must be >= 1";
      } else if (o.kind == collc::algorithms::OptionKind::Depth && (v < 1 || v > 65535)) {
        return emitError() << "(A3) " << key << " is " << v
                           << "; it must be in [1, 65535]";
      }
      break;
    }
  }
  return success();
}

std::optional<int64_t> AlgorithmAttr::getInt(StringRef option) const {
  if (DictionaryAttr options = getOptions())
    if (auto value = options.getAs<IntegerAttr>(option))
      return value.getValue().getSExtValue();
  return std::nullopt;
}

ArrayRef<int64_t> AlgorithmAttr::getInts(StringRef option) const {
  if (DictionaryAttr options = getOptions())
    if (auto value = options.getAs<DenseI64ArrayAttr>(option))
      return value.asArrayRef();
  return {};
}

StringRef AlgorithmAttr::getString(StringRef option, StringRef otherwise) const {
  if (DictionaryAttr options = getOptions())
    if (auto value = options.getAs<StringAttr>(option))
      return value.getValue();
  return otherwise;
}

AlgorithmAttr AlgorithmAttr::selectAs(StringRef algorithm) const {
  SmallVector<NamedAttribute> kept;
  if (DictionaryAttr options = getOptions())
    for (NamedAttribute option : options)
      if (takes(algorithm, option.getName().getValue()))
        kept.push_back(option);
  DictionaryAttr dict =
      kept.empty() ? DictionaryAttr() : DictionaryAttr::get(getContext(), kept);
  return AlgorithmAttr::get(getContext(), algorithm, dict);
}

//===- Spec.cpp - spec helpers --------------------------------------------===//
//
// Small accessors of the in-memory spec; the parser is in SpecParser.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Spec/Spec.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace collc;

int64_t TopologySpec::numNodes() const {
  int64_t nodes = 1;
  for (int64_t dim : shape)
    nodes *= dim;
  return nodes;
}

llvm::StringRef collc::stringifyNicKind(NicKind kind) {
  switch (kind) {
  case NicKind::None:
    return "";
  case NicKind::Onload:
    return "onload";
  case NicKind::Offload:
    return "offload";
  }
  llvm_unreachable("unknown NIC kind");
}

std::optional<NicKind> collc::symbolizeNicKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<NicKind>>(name)
      .Case("", NicKind::None)
      .Case("onload", NicKind::Onload)
      .Case("offload", NicKind::Offload)
      .Default(std::nullopt);
}

double NicParams::linkShare(double linkMBPerS, double cores, double flows) const {
  switch (kind) {
  case NicKind::None:
    return 1;
  case NicKind::Onload:
    return std::min(1.0, cores * coreMBPerS / linkMBPerS);
  case NicKind::Offload:
    return 1 / (1 + congestion * std::max(0.0, flows - static_cast<double>(contexts)));
  }
  llvm_unreachable("unknown NIC kind");
}

llvm::StringRef collc::stringifyCollectiveKind(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::Alltoall:
    return "alltoall";
  case CollectiveKind::Alltoallv:
    return "alltoallv";
  case CollectiveKind::Allgatherv:
    return "allgatherv";
  case CollectiveKind::Allreduce:
    return "allreduce";
  case CollectiveKind::Bcast:
    return "bcast";
  }
  llvm_unreachable("unknown collective kind");
}

std::optional<CollectiveKind>
collc::symbolizeCollectiveKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveKind>>(name)
      .Case("alltoall", CollectiveKind::Alltoall)
      .Case("alltoallv", CollectiveKind::Alltoallv)
      .Case("allgatherv", CollectiveKind::Allgatherv)
      .Case("allreduce", CollectiveKind::Allreduce)
      .Case("bcast", CollectiveKind::Bcast)
      .Default(std::nullopt);
}

//===- Spec.cpp - spec helpers --------------------------------------------===//
//
// Small accessors of the in-memory spec; the parser is in SpecParser.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Spec/Spec.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace collc;

int64_t TopologySpec::numNodes() const {
  int64_t nodes = 1;
  for (int64_t dim : shape)
    nodes *= dim;
  return nodes;
}

llvm::StringRef collc::stringifyCollectiveKind(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::Alltoall:
    return "alltoall";
  case CollectiveKind::Alltoallv:
    return "alltoallv";
  case CollectiveKind::Allgatherv:
    return "allgatherv";
  }
  llvm_unreachable("unknown collective kind");
}

std::optional<CollectiveKind>
collc::symbolizeCollectiveKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveKind>>(name)
      .Case("alltoall", CollectiveKind::Alltoall)
      .Case("alltoallv", CollectiveKind::Alltoallv)
      .Case("allgatherv", CollectiveKind::Allgatherv)
      .Default(std::nullopt);
}

//===- CollAlgorithms.h - the table of CollAlgorithms.def, once ----------===//
//
// The rows of CollAlgorithms.def as constexpr arrays, without MLIR: the
// dialect (getSupportedAlgorithms, #coll.algorithm's option checks) and the
// spec parser, which sits below MLIR, read the same arrays and ask the same
// question (takesOption) of them.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_DIALECT_COLL_COLLALGORITHMS_H
#define COLLC_DIALECT_COLL_COLLALGORITHMS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace collc::algorithms {

/// An algorithm and the ops it lowers: lowers[0] alltoall, [1] alltoallv,
/// [2] allgatherv.
struct AlgorithmRow {
  llvm::StringLiteral name;
  bool lowers[3];
};
inline constexpr AlgorithmRow kAlgorithms[] = {
#define COLL_ALGORITHM(SPELLING, ALLTOALL, ALLTOALLV, ALLGATHERV)                  \
  {SPELLING, {ALLTOALL != 0, ALLTOALLV != 0, ALLGATHERV != 0}},
#include "dialect/Coll/CollAlgorithms.def"
};

/// An option an algorithm takes, and what its value must be.
enum class OptionKind { Order, Seed, Positive, Depth };
struct OptionRow {
  llvm::StringLiteral algorithm, option;
  OptionKind kind;
};
inline constexpr OptionRow kOptions[] = {
#define COLL_ALGORITHM_OPTION(SPELLING, OPTION, KIND) {SPELLING, OPTION, OptionKind::KIND},
#include "dialect/Coll/CollAlgorithms.def"
};

/// Whether `algorithm` takes `option`; "auto" takes any option some
/// algorithm takes (selection keeps those the chosen one takes).
inline bool takesOption(llvm::StringRef algorithm, llvm::StringRef option) {
  return llvm::any_of(kOptions, [&](const OptionRow &row) {
    return row.option == option && (algorithm == "auto" || row.algorithm == algorithm);
  });
}

} // namespace collc::algorithms

#endif // COLLC_DIALECT_COLL_COLLALGORITHMS_H

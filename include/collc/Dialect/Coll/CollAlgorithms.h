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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace collc::algorithms {

/// An algorithm, the ops it lowers (lowers[0] alltoall, [1] alltoallv,
/// [2] allgatherv, [3] allreduce, [4] bcast: CollectiveKind's order) and
/// its FIFO depth when the spec gives none.
struct AlgorithmRow {
  llvm::StringLiteral name;
  bool lowers[5];
  int64_t defaultDepth;
};
inline constexpr AlgorithmRow kAlgorithms[] = {
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, ALLREDUCE,     \
                       BCAST, DEPTH)                                               \
  {SPELLING,                                                                   \
   {ALLTOALL != 0, ALLTOALLV != 0, ALLGATHERV != 0, ALLREDUCE != 0, BCAST != 0},  \
   DEPTH},
#include "collc/Dialect/Coll/CollAlgorithms.def"
};

/// An option an algorithm takes, and what its value must be.
enum class OptionKind { Order, Seed, Positive, Depth, Throttle, Parts };
struct OptionRow {
  llvm::StringLiteral algorithm, option;
  OptionKind kind;
  bool decided; // recorded by selection for every op of the algorithm
  llvm::StringLiteral defaultValue; // a named option's default; "" if computed
};
inline constexpr OptionRow kOptions[] = {
#define COLL_ALGORITHM_OPTION(SPELLING, OPTION, KIND, DECIDED, DEFAULT)              \
  {SPELLING, OPTION, OptionKind::KIND, DECIDED != 0, DEFAULT},
#include "collc/Dialect/Coll/CollAlgorithms.def"
};

/// The values of the `order` option (the direct and balanced exchanges'
/// step orders), in the order "expected ..." lists them:
///   shift      step k: rank r sends to r + k, receives from r − k (mod P);
///   random     the steps k in a shuffled order every rank shares (seeded);
///   dimension  step k is a translation of the torus: every node sends along
///              the same offset, the digits of k by dimension (x fastest),
///              so a step loads every link of a dimension and direction
///              alike (the schedule side of seed 000's dimension-ordered DR).
inline constexpr llvm::StringLiteral kOrders[] = {"shift", "random", "dimension"};

/// The `order` an exchange runs when the spec names none: its option row's
/// DEFAULT ("shift" for a name without one).
inline llvm::StringRef defaultOrder(llvm::StringRef algorithm) {
  for (const OptionRow &row : kOptions)
    if (row.algorithm == algorithm && row.option == "order" && !row.defaultValue.empty())
      return row.defaultValue;
  return kOrders[0];
}

/// The values of the `throttle` option (direct and balanced):
///   none       the FIFO depth is fifo_depth, or the algorithm's default;
///   bisection  the FIFO depth is the fewest sends in flight that inject at
///              the rate the bisection drains (seed 000 eq. 2:
///              bisectionThrottleDepth in lib/Cost), so the network holds no
///              more than it can carry.
inline constexpr llvm::StringLiteral kThrottles[] = {"none", "bisection"};

/// The names an option of `kind` may take; empty for the integer kinds.
inline llvm::ArrayRef<llvm::StringLiteral> namesOf(OptionKind kind) {
  switch (kind) {
  case OptionKind::Order:
    return kOrders;
  case OptionKind::Throttle:
    return kThrottles;
  default:
    return {};
  }
}

/// Sends in flight per FIFO when the spec gives no fifo_depth: the table's
/// DEPTH column. Selection records it in the op; the cost model counts a
/// NIC's transfers in flight with it. 0 for a name not in the table.
inline int64_t defaultFifoDepth(llvm::StringRef algorithm) {
  for (const AlgorithmRow &row : kAlgorithms)
    if (row.name == algorithm)
      return row.defaultDepth;
  return 0;
}

/// The most parts dim-rings cuts a block into (its `parts` option): one
/// per torus dimension longer than 1, each part crossing the dimensions in
/// its own order; at least 1.
inline int64_t dimRingsMaxParts(llvm::ArrayRef<int64_t> shape) {
  int64_t active = llvm::count_if(shape, [](int64_t n) { return n > 1; });
  return active > 1 ? active : 1;
}

/// Whether `algorithm` takes `option`; "auto" takes any option some
/// algorithm takes (selection keeps those the chosen one takes).
inline bool takesOption(llvm::StringRef algorithm, llvm::StringRef option) {
  return llvm::any_of(kOptions, [&](const OptionRow &row) {
    return row.option == option && (algorithm == "auto" || row.algorithm == algorithm);
  });
}

} // namespace collc::algorithms

#endif // COLLC_DIALECT_COLL_COLLALGORITHMS_H

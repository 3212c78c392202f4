//===- Algorithm.h - what one algorithm module provides ---------*- C++ -*-===//
//
// An algorithm is one module: lib/Algorithms/<Name>.cpp says where the cost
// model weighs it (and why not where it does not), decides its parameters
// from the spec, and prices them; its lowering (lib/Passes/Lower<Name>.cpp)
// builds the schedule from the parameters selection recorded. The registry
// (Registry.cpp) lists the modules of CollAlgorithms.def, the one table of
// names, ops and defaults.
//
// Parameters are decided once: coll-select-algorithm asks the module of the
// chosen (or named) algorithm to decide what the spec left open and records
// the decision in the op's #coll.algorithm, so --emit=coll shows what will
// run and a lowering reads its parameters from the IR it is given.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_ALGORITHMS_ALGORITHM_H
#define COLLC_ALGORITHMS_ALGORITHM_H

#include "lib/Cost/CostModel.h"
#include "lib/Spec/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collc {

/// The parameters of one algorithm for one collective. Unset fields are
/// ones the algorithm does not take.
struct Decision {
  /// Sends in flight per FIFO: the spec's fifo_depth, the depth its
  /// `throttle: bisection` implies, or the algorithm's default.
  int64_t fifoDepth = 0;
  std::optional<std::string> order; // direct, balanced
  std::optional<int64_t> seed;      // order: random
  std::optional<int64_t> parts;     // dim-rings: parts of a block
  llvm::SmallVector<int64_t, 4> mesh; // vmesh: parts per dimension
};

/// The bytes decisions and estimates are made for: the spec's largest
/// `bytes`, kDefaultEstimateBytes when it gives none.
int64_t estimateBytes(const Spec &spec);

/// What a module provides; the registry pairs it with its row of
/// CollAlgorithms.def (name, ops, default depth).
struct AlgorithmModule {
  /// Why the cost model does not weigh this algorithm for the spec's op and
  /// topology; std::nullopt when it does. (A named algorithm may still be
  /// built where it is not weighed; its lowering refuses what it cannot.)
  std::optional<std::string> (*whyNotWeighed)(const Spec &spec);
  /// Fills the parameters the spec left open beyond those every algorithm
  /// shares (decided before: the FIFO depth, from the table or the
  /// throttle, and the order, the spec's or defaultOrder; a random order's
  /// seed is recorded after); nullptr when there are none.
  void (*decide)(const Spec &spec, Decision &decision);
  /// Prices the decision: fills timeUs and what --explain prints beside it.
  /// `estimate` arrives with ranks, bytes, contention and the algorithm set.
  void (*estimate)(const Spec &spec, const Decision &decision, AlgorithmEstimate &estimate);
};

/// The decision for `name` on the spec: what the spec gives, the rest from
/// the module.
Decision decideParameters(const Spec &spec, llvm::StringRef name);

/// An algorithm the cost model weighs, with the decision it was priced on.
struct Candidate {
  Decision decision;
  AlgorithmEstimate estimate;
};

/// The algorithms of the spec's op: those the cost model weighs, decided
/// and priced, best first (a tie keeps the table's order), and the others,
/// each with the reason it is not weighed (--explain prints both).
struct Weighing {
  std::vector<Candidate> weighed;
  std::vector<std::pair<std::string, std::string>> notWeighed;
};
Weighing weighAlgorithms(const Spec &spec);

/// The reason an SMP schedule (one that combines a node's blocks and then
/// crosses the network) is not weighed on the spec's topology, if any.
std::optional<std::string> whyNotSmpCluster(const Spec &spec);

/// Shared by the allreduce and bcast modules: the estimate's % of the
/// node-link bound of the spec's op (none on one node).
void finishReductionEstimate(const Spec &spec, AlgorithmEstimate &estimate);

/// Shared by the alltoall(v) modules: the estimate's % of the bisection
/// bound and, behind a NIC, the slowdown of the module's NIC load.
void finishAlltoallEstimate(const Spec &spec, AlgorithmEstimate &estimate,
                            const NicLoad *nic = nullptr);

} // namespace collc

#endif // COLLC_ALGORITHMS_ALGORITHM_H

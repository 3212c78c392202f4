//===- plan_set.h - collc --plan-set: the plans that serve an application -===//
//
// For a machine (a spec with a topology and no collective), the plans the
// cost model picks across the whole message-size range of every collective,
// each recording the byte range (band) it wins, plus generic plans that
// serve any communicator of any size. libcollc_pmpi picks the most specific
// plan that fits a call (runtime/pmpi/plans.c), so a directory holding the
// set serves an application whatever its sizes and communicators.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_TOOLS_COLLC_PLAN_SET_H
#define COLLC_TOOLS_COLLC_PLAN_SET_H

#include "lib/Spec/Spec.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Writes the plan set of `machine` into the directory `dir` (created if
/// missing), each plan verified up to `verifyRanks` ranks unless it is 0,
/// and prints one line per plan to `os`: the op, its band, the algorithm
/// and the file.
mlir::LogicalResult writePlanSet(mlir::MLIRContext &context, const Spec &machine,
                                 llvm::StringRef dir, int64_t verifyRanks, llvm::raw_ostream &os);

} // namespace collc

#endif // COLLC_TOOLS_COLLC_PLAN_SET_H

//===- SpecToColl.h - a parsed spec as coll IR ------------------*- C++ -*-===//
#ifndef COLLC_FRONTEND_SPECTOCOLL_H
#define COLLC_FRONTEND_SPECTOCOLL_H

#include "lib/Spec/Spec.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace collc {

/// A module holding the spec's collective as one coll op named `name`; null
/// (after a diagnostic at `loc`) when the spec gives its algorithm an option
/// that algorithm does not take.
mlir::OwningOpRef<mlir::ModuleOp> buildCollModule(const Spec &spec,
                                                  llvm::StringRef name,
                                                  mlir::MLIRContext *context,
                                                  mlir::Location loc);

} // namespace collc

#endif // COLLC_FRONTEND_SPECTOCOLL_H

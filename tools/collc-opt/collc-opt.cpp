//===- collc-opt.cpp - mlir-opt for the coll and sched dialects -----------===//
#include "dialect/Coll/CollDialect.h"
#include "dialect/Sched/SchedDialect.h"
#include "lib/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<collc::coll::CollDialect, collc::sched::SchedDialect>();
  collc::registerCollcPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "collc optimizer driver\n", registry));
}

//===- collc-opt.cpp - mlir-opt for the coll and sched dialects -----------===//
#include "collc/Dialect/Coll/CollDialect.h"
#include "collc/Dialect/Sched/SchedDialect.h"
#include "collc/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<collc::coll::CollDialect, collc::sched::SchedDialect>();
  collc::registerCollcPasses();
  collc::registerCollcPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "collc optimizer driver\n", registry));
}

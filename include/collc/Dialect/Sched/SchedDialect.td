//===- SchedDialect.td - sched dialect definition -------------*- tablegen -*-===//
#ifndef COLLC_SCHED_DIALECT_TD
#define COLLC_SCHED_DIALECT_TD

include "mlir/IR/OpBase.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let cppNamespace = "::collc::sched";
  let summary = "SPMD communication schedules over a symbolic rank";
  let dependentDialects = ["::collc::coll::CollDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits>;

#endif // COLLC_SCHED_DIALECT_TD

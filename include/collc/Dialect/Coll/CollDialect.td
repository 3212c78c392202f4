//===- CollDialect.td - coll dialect definition ---------------*- tablegen -*-===//
#ifndef COLLC_COLL_DIALECT_TD
#define COLLC_COLL_DIALECT_TD

include "mlir/IR/OpBase.td"

def Coll_Dialect : Dialect {
  let name = "coll";
  let cppNamespace = "::collc::coll";
  let summary = "Collective operations on a described machine";
  let description = [{
    One op per collective (alltoall, alltoallv, allgatherv) with the machine
    topology as an attribute. Counts of v-collectives are not part of the IR:
    they are bound at run time.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Coll_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coll_Dialect, mnemonic, traits>;

#endif // COLLC_COLL_DIALECT_TD

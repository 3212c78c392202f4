//===- CollOps.td - coll operations ---------------------------*- tablegen -*-===//
#ifndef COLLC_COLL_OPS_TD
#define COLLC_COLL_OPS_TD

include "dialect/Coll/CollDialect.td"
include "dialect/Coll/CollAttrs.td"
include "mlir/IR/SymbolInterfaces.td"

// Constraints shared by every collective (verifyCollective in CollOps.cpp):
//   (C1) min_bytes <= max_bytes, both >= 0
//   (C2) algorithm is "auto" or one this op supports
// The algorithm's options are checked by #coll.algorithm (A1-A3).
class Coll_CollectiveOp<string mnemonic, list<string> algorithms>
    : Coll_Op<mnemonic, [Symbol]> {
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Coll_TopologyAttr:$topology,
    DefaultValuedAttr<I64Attr, "0">:$min_bytes,
    DefaultValuedAttr<I64Attr, "4096">:$max_bytes,
    DefaultValuedAttr<Coll_AlgorithmAttr, "\"auto\"">:$algorithm
  );
  let assemblyFormat = "$sym_name attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Algorithms this op can be lowered with, besides "auto".
    static llvm::ArrayRef<llvm::StringLiteral> getSupportedAlgorithms() {
      static constexpr llvm::StringLiteral names[] = {}] # !interleave(!foreach(a, algorithms, "\"" # a # "\""), ", ") # [{};
      return names;
    }
  }];
}

def Coll_AlltoallOp : Coll_CollectiveOp<"alltoall", ["direct", "balanced", "dim-rings", "two-phase", "smp-leader", "vmesh", "smp-all-cores", "planned"]> {
  let summary = "personalized all-to-all exchange of equal blocks";
}

def Coll_AlltoallvOp : Coll_CollectiveOp<"alltoallv", ["direct", "vmesh", "smp-all-cores", "planned"]> {
  let summary = "all-to-all exchange with per-pair counts bound at run time";
}

def Coll_AllgathervOp
    : Coll_CollectiveOp<"allgatherv", ["direct", "blocked-ring", "smp-blocked-ring"]> {
  let summary = "all-gather of per-rank contributions sized at run time";
}

#endif // COLLC_COLL_OPS_TD

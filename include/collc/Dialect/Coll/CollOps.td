//===- CollOps.td - coll operations ---------------------------*- tablegen -*-===//
#ifndef COLLC_COLL_OPS_TD
#define COLLC_COLL_OPS_TD

include "collc/Dialect/Coll/CollDialect.td"
include "collc/Dialect/Coll/CollAttrs.td"
include "mlir/IR/SymbolInterfaces.td"

// Constraints shared by every collective (verifyCollective in CollOps.cpp):
//   (C1) min_bytes <= max_bytes, both >= 0
//   (C2) algorithm is "auto" or one this op supports
//   (C3) a `mesh` option (vmesh) has one part count per topology
//        dimension, each dividing that dimension's extent; a `parts`
//        option (dim-rings) is at most the dimensions longer than 1
//   (C4) allreduce: reduce_op and datatype are names of the plan's one
//        table (COLLRT_REDUCE_OPS, COLLRT_REDUCE_TYPES) and the operation
//        applies to the type; bcast: root is 0 (the plan format records
//        no root: a bcast plan broadcasts from rank 0)
// Which algorithms an op supports, and the options each takes, is the one
// table of CollAlgorithms.def (the spec parser reads it too); the options
// are checked by #coll.algorithm (A1-A3).
class Coll_CollectiveOp<string mnemonic, dag extraArgs = (ins)>
    : Coll_Op<mnemonic, [Symbol]> {
  let arguments = !con((ins
    SymbolNameAttr:$sym_name,
    Coll_TopologyAttr:$topology,
    DefaultValuedAttr<I64Attr, "0">:$min_bytes,
    DefaultValuedAttr<I64Attr, "4096">:$max_bytes,
    DefaultValuedAttr<Coll_AlgorithmAttr, "\"auto\"">:$algorithm,
    // alltoallv: the spec's `counts: even` (blocks about max_bytes each);
    // absent, counts are taken to vary (the cost model charges stage-wise
    // schedules for their most loaded link)
    UnitAttr:$even_counts
  ), extraArgs);
  let assemblyFormat = "$sym_name attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Algorithms this op can be lowered with, besides "auto"
    /// (CollAlgorithms.def, in its order).
    static llvm::ArrayRef<llvm::StringLiteral> getSupportedAlgorithms();
  }];
}

def Coll_AlltoallOp : Coll_CollectiveOp<"alltoall"> {
  let summary = "personalized all-to-all exchange of equal blocks";
}

def Coll_AlltoallvOp : Coll_CollectiveOp<"alltoallv"> {
  let summary = "all-to-all exchange with per-pair counts bound at run time";
}

def Coll_AllgathervOp : Coll_CollectiveOp<"allgatherv"> {
  let summary = "all-gather of per-rank contributions sized at run time";
}

// The reduction is a property of the collective, not of its algorithm:
// every REDUCE step of the plan combines with this operation and type.
def Coll_AllreduceOp : Coll_CollectiveOp<"allreduce", (ins
    DefaultValuedAttr<StrAttr, "\"sum\"">:$reduce_op,
    DefaultValuedAttr<StrAttr, "\"double\"">:$datatype)> {
  let summary = "every rank's contribution combined element by element, on every rank";
}

def Coll_BcastOp : Coll_CollectiveOp<"bcast", (ins
    DefaultValuedAttr<I64Attr, "0">:$root)> {
  let summary = "the root's message to every rank";
}

#endif // COLLC_COLL_OPS_TD

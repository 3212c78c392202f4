//===- CollAttrs.td - coll attributes -------------------------*- tablegen -*-===//
#ifndef COLLC_COLL_ATTRS_TD
#define COLLC_COLL_ATTRS_TD

include "dialect/Coll/CollDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

// Constraints (checked by TopologyAttr::verify):
//   (T1) 1 <= size(shape) <= 3 and every entry >= 1
//   (T2) size(wrap) == size(shape)
//   (T3) ranks_per_node >= 1 and prod(shape) * ranks_per_node < 2^31
//   (T4) alpha_ps, beta_ps, gamma_ps >= 0 and fit in 32 bits
def Coll_TopologyAttr : AttrDef<Coll_Dialect, "Topology"> {
  let mnemonic = "topology";
  let summary = "a torus/mesh of SMP nodes with its cost parameters";
  let description = [{
    Rank r lives on node r / ranks_per_node; node coordinates run x fastest.
    Cost parameters are in picoseconds (per message, per byte on the network,
    per byte copied in memory).
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    ArrayRefParameter<"bool">:$wrap,
    "int64_t":$ranks_per_node,
    "int64_t":$alpha_ps,
    "int64_t":$beta_ps,
    "int64_t":$gamma_ps
  );
  let assemblyFormat = [{
    `<` `shape` `=` `[` $shape `]` `,` `wrap` `=` `[` $wrap `]` `,`
    `ranks_per_node` `=` $ranks_per_node `,` `alpha_ps` `=` $alpha_ps `,`
    `beta_ps` `=` $beta_ps `,` `gamma_ps` `=` $gamma_ps `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumNodes() const;
    int64_t getNumRanks() const { return getNumNodes() * getRanksPerNode(); }
    /// Longest dimension M; contention C = M/8 on a torus (M/4 on a mesh).
    int64_t getLongestDim() const;
  }];
}

#endif // COLLC_COLL_ATTRS_TD

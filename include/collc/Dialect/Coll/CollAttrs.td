//===- CollAttrs.td - coll attributes -------------------------*- tablegen -*-===//
#ifndef COLLC_COLL_ATTRS_TD
#define COLLC_COLL_ATTRS_TD

include "collc/Dialect/Coll/CollDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

// Constraints (checked by TopologyAttr::verify):
//   (T1) 1 <= size(shape) <= 3 and every entry >= 1
//   (T2) size(wrap) == size(shape)
//   (T3) ranks_per_node >= 1 and prod(shape) * ranks_per_node < 2^31
//   (T4) alpha_ps, beta_ps, gamma_ps >= 0 and fit in 32 bits
//   (T4') header_bytes, proto_bytes, shm_latency_ps, hop_latency_ps >= 0
//   (T5) nic is "", "onload" or "offload", only with switched; onload needs
//        nic_core_ps > 0 and nic_link_ps > 0; offload needs nic_contexts >= 1;
//        nic_congestion_ppm >= 0
//   (T6) 0 <= reverse_load_ppm <= 1000000
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
    "int64_t":$gamma_ps,
    DefaultValuedParameter<"bool", "false",
        "routes adaptively (true) or dimension by dimension, the shorter way "
        "round with ties at half a ring going + (false)">:$adaptive,
    DefaultValuedParameter<"bool", "false",
        "nodes hang off a non-blocking switch (fabric: switch) instead of "
        "forming the torus of `shape`">:$switched,
    DefaultValuedParameter<"int64_t", "48",
        "h: bytes of header a network message carries">:$header_bytes,
    DefaultValuedParameter<"int64_t", "8",
        "proto: bytes of protocol a combined block carries">:$proto_bytes,
    DefaultValuedParameter<"int64_t", "100000",
        "ps a message within a node takes">:$shm_latency_ps,
    DefaultValuedParameter<"int64_t", "1000000",
        "ps a message takes per link it traverses (the hop latency)">:$hop_latency_ps,
    StringRefParameter<"the node's NIC (fabric: switch): \"\" none, onload "
        "or offload (lib/Spec/Spec.h, NicParams)", "\"\"">:$nic,
    DefaultValuedParameter<"int64_t", "0",
        "ps per byte of the node's link (what one core's rate is measured "
        "against)">:$nic_link_ps,
    DefaultValuedParameter<"int64_t", "0",
        "onload: ps per byte one core injects">:$nic_core_ps,
    DefaultValuedParameter<"int64_t", "16",
        "offload: transfers in flight served at full rate">:$nic_contexts,
    DefaultValuedParameter<"int64_t", "0",
        "offload: throughput lost per transfer beyond them, in millionths">:$nic_congestion_ppm,
    DefaultValuedParameter<"int64_t", "50000",
        "bytes a transfer loads the reverse direction of each link it "
        "crosses with (its acknowledgements), per forward byte, in "
        "millionths">:$reverse_load_ppm
  );
  let assemblyFormat = [{
    `<` `shape` `=` `[` $shape `]` `,` `wrap` `=` `[` $wrap `]` `,`
    `ranks_per_node` `=` $ranks_per_node `,` `alpha_ps` `=` $alpha_ps `,`
    `beta_ps` `=` $beta_ps `,` `gamma_ps` `=` $gamma_ps
    (`,` struct($adaptive, $switched, $header_bytes, $proto_bytes,
                $shm_latency_ps, $hop_latency_ps, $nic, $nic_link_ps, $nic_core_ps,
                $nic_contexts, $nic_congestion_ppm, $reverse_load_ppm)^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumNodes() const;
    int64_t getNumRanks() const { return getNumNodes() * getRanksPerNode(); }
    /// Longest dimension M; contention C = M/8 on a torus (M/4 on a mesh).
    int64_t getLongestDim() const;
  }];
}

// An algorithm with its options, e.g. #coll.algorithm<"direct", {order =
// "random", seed = 42 : i64}>: the options belong to the algorithm, so a
// new algorithm brings its own without touching the collective ops.
// Constraints (checked by AlgorithmAttr::verify, one table in
// CollDialect.cpp):
//   (A1) name is "auto" or an algorithm of the table
//   (A2) every option is one the algorithm takes ("auto": one some
//        algorithm takes; selection keeps those of the winner)
//   (A3) every option value has the option's type and range
def Coll_AlgorithmAttr : AttrDef<Coll_Dialect, "Algorithm"> {
  let mnemonic = "algorithm";
  let summary = "an algorithm and its options";
  let parameters = (ins
    StringRefParameter<"algorithm name">:$name,
    OptionalParameter<"mlir::DictionaryAttr">:$options
  );
  let assemblyFormat = "`<` $name (`,` $options^)? `>`";
  let genVerifyDecl = 1;
  // An algorithm by name, without options (the ops' default is "auto").
  let constBuilderCall =
      "::collc::coll::AlgorithmAttr::get($_builder.getContext(), $0, nullptr)";
  let extraClassDeclaration = [{
    /// An integer option, if set.
    std::optional<int64_t> getInt(llvm::StringRef option) const;
    /// An array option (vmesh's mesh), empty if unset.
    llvm::ArrayRef<int64_t> getInts(llvm::StringRef option) const;
    /// A string option, or `otherwise`.
    llvm::StringRef getString(llvm::StringRef option,
                              llvm::StringRef otherwise) const;
    /// The same options under another algorithm's name, keeping only those
    /// that algorithm takes.
    AlgorithmAttr selectAs(llvm::StringRef algorithm) const;
    /// Whether `algorithm` takes `option` (the table of A2).
    static bool takes(llvm::StringRef algorithm, llvm::StringRef option);
  }];
}

#endif // COLLC_COLL_ATTRS_TD

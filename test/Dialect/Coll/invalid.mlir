// Each coll constraint (CollAttrs.td T1-T4 and A1-A3, CollOps.td C1-C4) has a case
// named after it that breaks exactly that constraint.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{(T1) topology needs 1 to 3 dimensions, got 4}}
coll.alltoall @topology_t1 {topology = #coll.topology<shape = [2, 2, 2, 2], wrap = [true, true, true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{(T1) dimension 1 has 0 nodes; every dimension needs at least 1}}
coll.alltoall @topology_t1_extent {topology = #coll.topology<shape = [4, 0], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{(T2) wrap has 1 entries but shape has 2}}
coll.alltoall @topology_t2 {topology = #coll.topology<shape = [4, 4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{(T3) ranks_per_node is 0; it must be at least 1}}
coll.alltoall @topology_t3 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 0, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{(T3) 65536 nodes x 65536 ranks per node exceeds 2^31-1 ranks}}
coll.alltoall @topology_t3_ranks {topology = #coll.topology<shape = [256, 256], wrap = [true, true], ranks_per_node = 65536, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// 8 x 2^61 wraps to 0 in 64 bits; the check must not overflow.
// expected-error @+1 {{(T3) 8 nodes x 2305843009213693952 ranks per node exceeds 2^31-1 ranks}}
coll.alltoall @topology_t3_overflow {topology = #coll.topology<shape = [8], wrap = [true], ranks_per_node = 2305843009213693952, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{(T4) cost parameter -1 ps is outside [0, 2^32)}}
coll.alltoall @topology_t4 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = -1, gamma_ps = 0>}

// -----

// expected-error @+1 {{(T4) cost parameter 4294967296 ps is outside [0, 2^32)}}
coll.alltoall @topology_t4_large {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 4294967296, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{'coll.alltoall' op (C1) byte range [8, 4] is empty or negative}}
coll.alltoall @alltoall_c1 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, min_bytes = 8, max_bytes = 4}

// -----

// expected-error @+1 {{'coll.alltoallv' op (C1) byte range [-1, 4096] is empty or negative}}
coll.alltoallv @alltoallv_c1 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, min_bytes = -1}

// -----

// expected-error @+1 {{'coll.alltoall' op (C2) algorithm 'blocked-ring' is not one of auto, direct}}
coll.alltoall @alltoall_c2 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"blocked-ring">}

// -----

// expected-error @+1 {{'coll.allgatherv' op (C2) algorithm 'two-phase' is not one of auto, direct, blocked-ring}}
coll.allgatherv @allgatherv_c2 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"two-phase">}

// -----

// expected-error @+1 {{(A3) fifo_depth and throttle = "bisection" both set the FIFO depth; keep one}}
coll.alltoall @algorithm_a3_throttle_depth {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"direct", {throttle = "bisection", fifo_depth = 4 : i64}>}

// -----

// expected-error @+1 {{(A3) throttle must be one of "none" "bisection", got "fast"}}
coll.alltoall @algorithm_a3_throttle {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"direct", {throttle = "fast"}>}

// -----

// expected-error @+1 {{(A3) order must be one of "shift" "random" "dimension", got "zigzag"}}
coll.alltoall @algorithm_a3_order {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"auto", {order = "zigzag"}>}

// -----

// expected-error @+1 {{(A2) algorithm blocked-ring takes no option 'order'}}
coll.allgatherv @algorithm_a2_order {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"blocked-ring", {order = "random"}>}

// -----

// expected-error @+1 {{(A3) block_bytes is 0; it must be >= 1}}
coll.allgatherv @algorithm_a3_block {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"auto", {block_bytes = 0}>}

// -----

// expected-error @+1 {{(A2) algorithm direct takes no option 'block_bytes'}}
coll.allgatherv @algorithm_a2_block {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"direct", {block_bytes = 1024}>}

// -----

// expected-error @+1 {{(A3) fifo_depth is 0; it must be in [1, 65535]}}
coll.alltoall @algorithm_a3_depth {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"auto", {fifo_depth = 0}>}

// -----

// expected-error @+1 {{(A3) fifo_depth is 65536; it must be in [1, 65535]}}
coll.alltoallv @algorithm_a3_depth_high {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"auto", {fifo_depth = 65536}>}

// -----

// 2 x 2^62 wraps negative in 64 bits; the check must not overflow.
// expected-error @+1 {{(T3) topology has more than 2^31-1 nodes}}
coll.alltoall @topology_t3_nodes {topology = #coll.topology<shape = [2, 4611686018427387904], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>}

// -----

// expected-error @+1 {{(A1) algorithm 'fastest' is not known}}
coll.alltoall @algorithm_a1 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"fastest">}

// -----

// expected-error @+1 {{(T5) nic is 'smart'; expected onload or offload}}
coll.alltoall @topology_t5_kind {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0, switched = true, nic = "smart">}

// -----

// expected-error @+1 {{(T5) an offload nic needs switched = true (a node's one link to a switch)}}
coll.alltoall @topology_t5_torus {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0, nic = "offload">}

// -----

// expected-error @+1 {{(T5) an onload nic needs nic_core_ps and nic_link_ps above 0, got 0 and 5714}}
coll.alltoall @topology_t5_onload {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0, switched = true, nic = "onload", nic_link_ps = 5714>}

// -----

// expected-error @+1 {{(T4') header_bytes, proto_bytes, shm_latency_ps and hop_latency_ps cannot be negative, got -1, 8, 100000 and 1000000}}
coll.alltoall @topology_t4_header {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0, header_bytes = -1>}

// -----

// A mesh for a 2-D topology must give 2 part counts (the cost model would
// otherwise read past them); auto prices vmesh on it, so it is checked here.
// expected-error @+1 {{'coll.alltoall' op (C3) mesh has 1 part counts for a topology of 2 dimensions, or one that does not divide its extent}}
coll.alltoall @alltoall_c3 {topology = #coll.topology<shape = [4, 4], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"auto", {mesh = array<i64: 3>}>}

// -----

// expected-error @+1 {{'coll.alltoallv' op (C3) mesh has 2 part counts for a topology of 2 dimensions, or one that does not divide its extent}}
coll.alltoallv @alltoallv_c3 {topology = #coll.topology<shape = [4, 4], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"vmesh", {mesh = array<i64: 3, 1>}>}

// -----

// dim-rings cuts a block into at most one part per dimension longer than 1.
// expected-error @+1 {{'coll.alltoall' op (C3) parts is 3, but dim-rings cuts a block into at most 2 on this topology (one per dimension longer than 1)}}
coll.alltoall @alltoall_c3_parts {topology = #coll.topology<shape = [4, 1, 4], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"dim-rings", {parts = 3}>}

// -----

// The reduction is spelled from the plan's one table (COLLRT_REDUCE_OPS,
// COLLRT_REDUCE_TYPES) and must apply to its type.
// expected-error @+1 {{'coll.allreduce' op (C4) band does not apply to double: it takes the C integer types}}
coll.allreduce @allreduce_c4_pair {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, reduce_op = "band"}

// -----

// expected-error @+1 {{'coll.allreduce' op (C4) 'complex' is not an element type of the plan's table}}
coll.allreduce @allreduce_c4_type {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, datatype = "complex"}

// -----

// A plan records no root: bcast plans broadcast from rank 0.
// expected-error @+1 {{'coll.bcast' op (C4) root is 3; a bcast plan broadcasts from rank 0 (the plan format records no root)}}
coll.bcast @bcast_c4_root {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, root = 3}

// -----

// expected-error @+1 {{'coll.bcast' op (C2) algorithm 'recursive-doubling' is not one of auto, binomial, pipelined-chain, multi-colour}}
coll.bcast @bcast_c2 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"recursive-doubling">}

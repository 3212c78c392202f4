// Every coll op and the topology attribute print in a form that parses back.
// RUN: %collc-opt %s | %collc-opt | FileCheck %s

// Attributes equal to their defaults (min_bytes 0, max_bytes 4096) are
// elided; the algorithm carries its options.
// CHECK-LABEL: coll.alltoall @alltoall
// CHECK-SAME: algorithm = #coll.algorithm<"auto", {order = "random", seed = 7 : i64}>
// CHECK-SAME: topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>}
coll.alltoall @alltoall {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, min_bytes = 0, max_bytes = 4096, algorithm = #coll.algorithm<"auto", {order = "random", seed = 7}>}

// CHECK-LABEL: coll.alltoallv @alltoallv
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 8 : i64}>, max_bytes = 65536 : i64, min_bytes = 1024 : i64
// CHECK-SAME: #coll.topology<shape = [4], wrap = [false], ranks_per_node = 2, alpha_ps = 1, beta_ps = 2, gamma_ps = 3>
coll.alltoallv @alltoallv {topology = #coll.topology<shape = [4], wrap = [false], ranks_per_node = 2, alpha_ps = 1, beta_ps = 2, gamma_ps = 3>, algorithm = #coll.algorithm<"direct", {fifo_depth = 8}>, min_bytes = 1024, max_bytes = 65536}

// CHECK-LABEL: coll.allgatherv @allgatherv
// CHECK-SAME: algorithm = #coll.algorithm<"blocked-ring", {block_bytes = 2048 : i64}>, max_bytes = 0 : i64
// CHECK-SAME: #coll.topology<shape = [4, 2], wrap = [true, false], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>
coll.allgatherv @allgatherv {topology = #coll.topology<shape = [4, 2], wrap = [true, false], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, algorithm = #coll.algorithm<"blocked-ring", {block_bytes = 2048}>, max_bytes = 0}

// CHECK-LABEL: coll.allgatherv @allgatherv_auto_block
// CHECK-SAME: algorithm = #coll.algorithm<"auto", {block_bytes = 1 : i64}>
coll.allgatherv @allgatherv_auto_block {topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 4, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"auto", {block_bytes = 1}>}

// A switch with an offload NIC: the NIC's parameters print back; the
// defaults (nic_contexts = 16) are elided.
// CHECK-LABEL: coll.alltoall @offload_nic
// CHECK-SAME: switched = true, nic = "offload", nic_link_ps = 5714, nic_congestion_ppm = 10000>
coll.alltoall @offload_nic {topology = #coll.topology<shape = [16], wrap = [true], ranks_per_node = 8, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600, switched = true, nic = "offload", nic_link_ps = 5714, nic_contexts = 16, nic_congestion_ppm = 10000>}

// allreduce carries its reduction; its defaults (sum on double) are elided,
// as bcast's root 0 is.
// CHECK-LABEL: coll.allreduce @allreduce_max_int
// CHECK-SAME: datatype = "int", reduce_op = "max"
coll.allreduce @allreduce_max_int {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, reduce_op = "max", datatype = "int"}
// CHECK-LABEL: coll.bcast @bcast_root0
// CHECK-NOT: root
coll.bcast @bcast_root0 {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, root = 0}

// RUN: %collc-opt %s --coll-select-algorithm | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// With adaptive routing (BG/L) no tie overloads a direction, so the direct
// exchange wins and the balanced schedule is not even a candidate. Its
// shift order keeps every step in flight: a window of 16 consecutive
// shifts would load a few directions at a time (directWindowLinkBlocks).
// CHECK-LABEL: coll.alltoall @alltoall_auto
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 511 : i64, order = "shift"}>, predicted_us = {{[0-9.e+]+}} : f64
// REMARK: remark: selected direct by the cost model
// REMARK: note: direct: {{[0-9.]+}} us (P=512, m=4096 B, C=1.05
coll.alltoall @alltoall_auto {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600, adaptive = true>}

// Routed dimension by dimension, ties on the even rings overload the +
// links of a direct exchange; at 4 KiB the neighbour rings of dim-rings win
// (the balanced schedule next), and the options it takes follow it.
// CHECK-LABEL: coll.alltoall @alltoall_routed
// CHECK-SAME: algorithm = #coll.algorithm<"dim-rings", {fifo_depth = 8 : i64, parts = 3 : i64}>
// REMARK: remark: selected dim-rings by the cost model
// REMARK-DAG: note: dim-rings: {{[0-9.]+}} us (P=512, m=4096 B, C=1.05
// REMARK-DAG: note: balanced: {{[0-9.]+}} us (P=512, m=4096 B, C=1.05
// REMARK-DAG: note: direct: {{[0-9.]+}} us (P=512, m=4096 B, C=1.29
coll.alltoall @alltoall_routed {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"auto", {fifo_depth = 8 : i64}>}

// The cost model chooses between the two allgatherv lowerings; either way it
// records its prediction, and every candidate is listed in the remark.
// CHECK-LABEL: coll.allgatherv @allgatherv_auto
// CHECK-SAME: algorithm = #coll.algorithm<"{{direct|blocked-ring}}"{{.*}}>, predicted_us = {{[0-9.e+]+}} : f64
// REMARK: remark: selected {{direct|blocked-ring}} by the cost model
// REMARK-DAG: note: direct: {{[0-9.]+}} us
// REMARK-DAG: note: blocked-ring: {{[0-9.]+}} us
coll.allgatherv @allgatherv_auto {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>}

// A forced algorithm is kept, even where the model would disagree, and gets
// no prediction.
// Its parameters are decided all the same: a ring keeps 4 blocks in flight
// (the table's DEPTH column), not the exchanges' 16.
// CHECK-LABEL: coll.allgatherv @allgatherv_forced
// CHECK-SAME: algorithm = #coll.algorithm<"blocked-ring", {block_bytes = 64 : i64, fifo_depth = 4 : i64}>
// CHECK-NOT: predicted_us
// CHECK-SAME: }
coll.allgatherv @allgatherv_forced {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"blocked-ring", {block_bytes = 64}>}

// CHECK-LABEL: coll.alltoallv @alltoallv_forced
// CHECK-SAME: algorithm = #coll.algorithm<"direct"
// CHECK-NOT: predicted_us
// CHECK-SAME: }
coll.alltoallv @alltoallv_forced {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

// The spec's options travel with the algorithm: selection keeps those the
// winner takes (fifo_depth) and drops the others (block_bytes, a ring option,
// when direct wins on a tiny message).
// CHECK-LABEL: coll.allgatherv @options_follow_the_winner
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 3 : i64, order = "shift"}>
coll.allgatherv @options_follow_the_winner {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, min_bytes = 8, max_bytes = 8, algorithm = #coll.algorithm<"auto", {block_bytes = 4096, fifo_depth = 3}>}

// Parameters are decided once, here, and recorded for the lowering:
// `throttle: bisection` becomes the FIFO depth it implies (seed 000's eq. 2
// at min_bytes), and the throttle itself is not kept.
// CHECK-LABEL: coll.alltoall @throttled
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 2 : i64, order = "shift"}>
coll.alltoall @throttled {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, min_bytes = 4096, max_bytes = 4096, algorithm = #coll.algorithm<"direct", {throttle = "bisection"}>}

// On a torus with ties the model weighs the shared random order beside
// the shift order and keeps the shift order on a tie: on a ring of 4 with
// 2 ranks a node the default window already holds every step, so both
// orders load the links as the whole pattern does. (A named direct keeps
// the shift order too.)
// CHECK-LABEL: coll.alltoall @auto_direct_with_ties
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
// REMARK: remark: selected direct by the cost model
// REMARK: note: not weighed: two-phase: it schedules one rank per node
coll.alltoall @auto_direct_with_ties {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, min_bytes = 65536, max_bytes = 65536}

// vmesh's mesh and dim-rings' parts are decided from the bytes.
// CHECK-LABEL: coll.alltoall @vmesh_mesh
// CHECK-SAME: algorithm = #coll.algorithm<"vmesh", {fifo_depth = 64 : i64, mesh = array<i64: 1, 4, 8>}>
coll.alltoall @vmesh_mesh {topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, min_bytes = 8, max_bytes = 8, algorithm = #coll.algorithm<"vmesh">}

// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-dim-rings --sched-verify=max-ranks=8 | FileCheck %s

// Two parts on a 4x2 torus, part p on FIFO p, crossing the dimensions in the
// alltoall's orders. A rank that lays an item out in scratch learns its
// length from the bind-time exchange (table 0), and so does a tie forwarder
// for what it forwards (table 1). The scratch holds both.
// CHECK-LABEL: sched.plan @alltoallv_4x2
// CHECK-SAME: algorithm = "dim-rings", {{.*}}collective = "alltoallv", events = ["got", "fwd"], fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>]
// CHECK: sched.exchange {
// CHECK: sched.put table 0[
// CHECK: sched.put table 1[
// CHECK: %[[LAID:[a-z0-9_]+]] = sched.table_sum 0[%c0, %{{[a-z0-9_]+}})
// CHECK: %[[FWD:[a-z0-9_]+]] = sched.table_sum 1[%c0, %{{[a-z0-9_]+}})
// CHECK-NEXT: %[[TOTAL:[a-z0-9_]+]] = sched.add %[[LAID]], %[[FWD]]
// CHECK-NEXT: sched.scratch %[[TOTAL]]
// One body for every part and stage: a phase loop over the parts, a loop
// over the stages inside.
// CHECK: sched.for %[[PART:[a-z0-9_]+]] = %c0 to %{{[a-z0-9_]+}} {
// CHECK: sched.phase "parts: y x | x y" fifo(0 + %[[PART]]) {
// CHECK: sched.for %[[STAGE:[a-z0-9_]+]] = %c0 to %{{[a-z0-9_]+}} {
// A stage is an exchange within one ring: one message to each ring peer at
// distance 1 .. n - 1, gathered from the send buffer or the stage before
// (after it), each item where the exchange's sums place it.
// CHECK: sched.for %{{[a-z0-9_]+}} = %c1 to %{{[a-z0-9_]+}} {
// CHECK: sched.send to %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} {
// CHECK: sched.after @got[%[[PART]],
// CHECK: sched.segment sendbuf[
// CHECK: %[[LEN:[a-z0-9_]+]] = sched.table_sum 0[
// CHECK-NEXT: %[[AT:[a-z0-9_]+]] = sched.table_sum 0[%c0,
// CHECK-NEXT: sched.segment scratch[%[[AT]], %[[LEN]]]
// Part of each tie group goes the other way round: the forwarder receives
// it as one range of scratch and sends the same range on.
// CHECK: sched.recv scratch[%[[FAT:[a-z0-9_]+]], %[[FLEN:[a-z0-9_]+]]] from %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} signal @fwd[%[[PART]],
// CHECK: sched.send scratch[%[[FAT]], %[[FLEN]]] to %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} wait @fwd[%[[PART]],
// The rank's own items move by a copy; the receives complete the stage.
// CHECK: sched.copy to signal @got[%[[PART]], %[[STAGE]]] {
// CHECK: sched.segment dst recvbuf[
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} signal @got[%[[PART]], %[[STAGE]]] {
// CHECK: sched.segment scratch[
// CHECK: sched.segment recvbuf[
// CHECK-NOT: coll.alltoallv
coll.alltoallv @alltoallv_4x2 {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings", {parts = 2 : i64}>, min_bytes = 4096 : i64}

// -----

// One part: a single FIFO.
// CHECK-LABEL: sched.plan @alltoallv_one_part
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>],
// CHECK: sched.phase "parts: x y" fifo(0 + %{{[a-z0-9_]+}})
coll.alltoallv @alltoallv_one_part {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings", {parts = 1 : i64}>, min_bytes = 4096 : i64}

// -----

// Rings need every dimension wrapped, and one rank per node.
// expected-error @+2 {{the dim-rings alltoallv needs a torus (every dimension wrapped); dimension 1 does not wrap (use algorithm: direct or balanced)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoallv @mesh {topology = #coll.topology<shape = [3, 2], wrap = [true, false], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}

// -----

// expected-error @+2 {{the dim-rings alltoallv schedules one rank per torus node; this topology has 2 ranks per node (use algorithm: direct)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoallv @smp {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}

// -----

// The pass lowers dim-rings' alltoall too; other algorithms are left to
// their own lowering.
// CHECK-LABEL: sched.plan @alltoall
// CHECK-SAME: algorithm = "dim-rings", {{.*}}collective = "alltoall"
// CHECK-LABEL: coll.alltoallv @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
coll.alltoall @alltoall {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}
coll.alltoallv @direct {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-balanced --sched-verify=max-ranks=8 | FileCheck %s

// On a 4x2 torus both dimensions can tie (offset n/2 on an even ring).
// Whether a wrapped dimension ties is read at run time from the parity of
// its extent, so the verifier's smaller instances get their own ties. FIFO 0
// carries the direct exchange, FIFOs 1..3 the legs of the detour chains (a
// source, at most two intermediates, then the destination).
// CHECK-LABEL: sched.plan @alltoall_4x2
// CHECK-SAME: algorithm = "balanced", {{.*}}collective = "alltoall", events = ["arrived"], fifos = [#sched.fifo<send_depth = 16, recv_depth = 16>, #sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>]
// CHECK: %[[N0:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: sched.floordiv %[[N0]], %c2
// CHECK-NEXT: %[[PAR0:[a-z0-9_]+]] = sched.mod %[[N0]], %c2
// CHECK-NEXT: sched.eq %[[PAR0]], %c0
// CHECK: %[[N1:[a-z0-9_]+]] = sched.dim 1
// CHECK-NEXT: sched.floordiv %[[N1]], %c2
// CHECK-NEXT: %[[PAR1:[a-z0-9_]+]] = sched.mod %[[N1]], %c2
// CHECK-NEXT: sched.eq %[[PAR1]], %c0
// The direct exchange, in the shared random order: the first half of a
// block a tie away, every other block whole; the rank's own block is a copy
// after the loop.
// CHECK: sched.phase "direct" fifo(0) {
// CHECK: sched.for %k = %c1 to %size random(%{{[a-z0-9_]+}}) shared {
// CHECK: %[[RHALF:[a-z0-9_]+]] = sched.floordiv %[[RLEN:[a-z0-9_]+]], %c2
// CHECK: %[[RPART:[a-z0-9_]+]] = sched.select %{{[a-z0-9_]+}}, %[[RHALF]], %[[RLEN]]
// CHECK: sched.recv recvbuf[%{{[a-z0-9_]+}}, %[[RPART]]] from %{{[a-z0-9_]+}} tag %c0{{$}}
// CHECK: %[[SLEN:[a-z0-9_]+]] = sched.count sendcount[
// CHECK-NEXT: %[[SHALF:[a-z0-9_]+]] = sched.floordiv %[[SLEN]], %c2
// CHECK: %[[SPART:[a-z0-9_]+]] = sched.select %{{[a-z0-9_]+}}, %[[SHALF]], %[[SLEN]]
// CHECK: sched.send sendbuf[%{{[a-z0-9_]+}}, %[[SPART]]] to %{{[a-z0-9_]+}} tag %c0{{$}}
// CHECK-NEXT: }
// CHECK: sched.copy sendbuf[%{{[a-z0-9_]+}}] to recvbuf[%{{[a-z0-9_]+}}] len
// One body for every leg and tie set: a phase loop over the legs (leg j on
// FIFO j) around a loop over the tie sets, which tag their messages.
// CHECK: sched.for %[[LEG:[a-z0-9_]+]] = %c1 to %{{[a-z0-9_]+}} {
// CHECK-NEXT: sched.phase "legs" fifo(0 + %[[LEG]]) {
// CHECK-NEXT: sched.for %[[SET:[a-z0-9_]+]] = %c1 to %{{[a-z0-9_]+}} {
// The source sends the second half, which starts after the first.
// CHECK: %[[L:[a-z0-9_]+]] = sched.count sendcount[
// CHECK: %[[H:[a-z0-9_]+]] = sched.floordiv %[[L]], %c2
// CHECK-NEXT: %[[SECOND:[a-z0-9_]+]] = sched.sub %[[L]], %[[H]]
// CHECK: sched.send sendbuf[%{{[a-z0-9_]+}}, %[[SECOND]]] to %{{[a-z0-9_]+}} tag %[[SET]]{{$}}
// The destination receives it after the last leg, after the first half.
// CHECK: sched.recv recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %{{[a-z0-9_]+}} tag %[[SET]]{{$}}
// An intermediate forwards a half only once it has arrived.
// CHECK: sched.recv scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %{{[a-z0-9_]+}} tag %[[SET]] signal @arrived[
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %[[SET]] wait @arrived[
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_4x2 {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"balanced">, min_bytes = 4096 : i64}

// -----

// alltoallv: the intermediates learn the lengths of the halves they forward
// from the bind-time exchange. Each slot's offset is a prefix sum over the
// keys below it, its length is the one entry PUT under its key, and the
// scratch is the sum over every key.
// CHECK-LABEL: sched.plan @alltoallv_4x2
// CHECK-SAME: algorithm = "balanced", {{.*}}collective = "alltoallv", events = ["arrived"]
// CHECK: sched.exchange {
// CHECK: sched.put table 0[
// CHECK: %[[TOTAL:[a-z0-9_]+]] = sched.table_sum 0[%c0, %{{[a-z0-9_]+}})
// CHECK-NEXT: sched.scratch %[[TOTAL]]
// CHECK: sched.phase "direct" fifo(0) {
// CHECK: sched.phase "legs" fifo(0 + %{{[a-z0-9_]+}}) {
// CHECK: %[[AT:[a-z0-9_]+]] = sched.table_sum 0[%c0, %{{[a-z0-9_]+}})
// CHECK: %[[LEN:[a-z0-9_]+]] = sched.table_any 0[%{{[a-z0-9_]+}}]
// CHECK: sched.recv scratch[%[[AT]], %[[LEN]]] from %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} signal @arrived[
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} wait @arrived[
coll.alltoallv @alltoallv_4x2 {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"balanced">, min_bytes = 4096 : i64}

// -----

// A dimension that does not wrap has one way across, so it never ties: no
// parity test for y on a 3x2 mesh-torus (x still gets one).
// CHECK-LABEL: sched.plan @alltoall_mesh
// CHECK: %[[N0:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: sched.floordiv %[[N0]], %c2
// CHECK-NEXT: sched.mod %[[N0]], %c2
// CHECK: %[[N1:[a-z0-9_]+]] = sched.dim 1
// CHECK-NEXT: sched.floordiv %[[N1]], %c2
// CHECK-NEXT: sched.coord %rank[1]
coll.alltoall @alltoall_mesh {topology = #coll.topology<shape = [3, 2], wrap = [true, false], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"balanced">, min_bytes = 4096 : i64}

// -----

// The schedule balances the links between nodes, one rank per node.
// expected-error @+2 {{the balanced alltoall schedules one rank per torus node; this topology has 2 ranks per node (use algorithm: direct)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @smp {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"balanced">}

// -----

// alltoallv too, and the error names it.
// expected-error @+2 {{the balanced alltoallv schedules one rank per torus node; this topology has 2 ranks per node (use algorithm: direct)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoallv @vsmp {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"balanced">}

// -----

// Other algorithms are left to their own lowering.
// CHECK-LABEL: coll.alltoall @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
coll.alltoall @direct {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

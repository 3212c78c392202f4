// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 or 16 ranks) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-two-phase --sched-verify=max-ranks=16 | FileCheck %s

// On a 4x2 torus the line is x (the longest) and the plane is y. Phase 1 on
// FIFO 0 sends each line peer one message gathered from the send buffer.
// Phase 2 on FIFO 1 forwards each staged block once the line message that
// brought it has arrived. The line is a wrapped even ring on a router that
// sends ties one way, so the tie arrival's second half goes the other way
// round through a forwarder (FIFO 2, event `detoured`).
// CHECK-LABEL: sched.plan @alltoall_4x2
// CHECK-SAME: algorithm = "two-phase", {{.*}}collective = "alltoall", events = ["arrived", "freed", "detoured"], fifos = [#sched.fifo<send_depth = 2, recv_depth = 2>, #sched.fifo<send_depth = 16, recv_depth = 16>, #sched.fifo<send_depth = 16, recv_depth = 0>]
// CHECK: sched.phase "line x" fifo(0) {
// The first stage slot is free from the start.
// CHECK-NEXT: sched.copy sendbuf[%c0] to scratch[%c0] len %c0 signal @freed[%c0]
// CHECK: sched.send to %{{[a-z0-9_]+}} tag %c0 {
// CHECK: sched.segment sendbuf[
// CHECK: sched.send to %{{[a-z0-9_]+}} tag %c1 {
// CHECK: sched.segment sendbuf[
// An arrival waits for its stage slot to be freed (credits). Its block for
// this rank lands in the receive buffer and the others in the slot.
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %c0 wait @freed[%{{[a-z0-9_]+}}] signal @arrived[%k] {
// CHECK: sched.segment recvbuf[
// CHECK: sched.segment scratch[
// CHECK: sched.recv scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %{{[a-z0-9_]+}} tag %c1 signal @detoured[
// CHECK: sched.phase "detour" fifo(2) {
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %c1 wait @detoured[
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %c1 wait @freed[%{{[a-z0-9_]+}}] signal @arrived[
// The plane visits its peers in a shuffled order that every rank shares.
// The rank's own blocks for the plane go straight from the send buffer.
// CHECK: sched.phase "plane y" fifo(1) {
// CHECK-NEXT: sched.for %k = %c0 to %{{[a-z0-9_]+}} {
// CHECK: sched.for %{{[a-z0-9_]+}} = %c1 to %{{[a-z0-9_]+}} random(%{{[a-z0-9_]+}}) shared {
// CHECK: sched.send sendbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %c0{{$}}
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %c0 wait @arrived[%k] signal @freed[%k]
// CHECK: sched.recv recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %{{[a-z0-9_]+}} tag %c0{{$}}
// CHECK: sched.copy sendbuf[%{{[a-z0-9_]+}}] to recvbuf[%{{[a-z0-9_]+}}] len
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_4x2 {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">, min_bytes = 4096 : i64}

// -----

// Credits: with S stage slots (`stages`), arrival k goes to slot
// (k - 1) mod S once arrival k - S has been forwarded (freed), and the
// scratch is S slots. A line that does not wrap has one way round, so there
// is no tie to balance and no detour.
// CHECK-LABEL: sched.plan @alltoall_stages
// CHECK-SAME: events = ["arrived", "freed"], fifos = [#sched.fifo<send_depth = 2, recv_depth = 2>, #sched.fifo<send_depth = 16, recv_depth = 16>]
// CHECK: %[[SLOTS:[a-z0-9_]+]] = sched.select
// CHECK-NEXT: %[[SCRATCH:[a-z0-9_]+]] = sched.mul %[[SLOTS]], %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.scratch %[[SCRATCH]]
// CHECK: sched.phase "line x" fifo(0) {
// CHECK: %[[BACK:[a-z0-9_]+]] = sched.sub %k, %[[SLOTS]]
// CHECK-NEXT: %[[CREDIT:[a-z0-9_]+]] = sched.max %[[BACK]], %c0
// CHECK-NEXT: sched.recv from %{{[a-z0-9_]+}} tag %c0 wait @freed[%[[CREDIT]]] signal @arrived[%k] {
// CHECK: %[[PREV:[a-z0-9_]+]] = sched.sub %k, %c1
// CHECK-NEXT: %[[SLOT:[a-z0-9_]+]] = sched.mod %[[PREV]], %[[SLOTS]]
// CHECK: sched.segment scratch[
// CHECK-NOT: detour
// CHECK: sched.phase "plane y" fifo(1) {
coll.alltoall @alltoall_stages {topology = #coll.topology<shape = [4, 2], wrap = [false, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase", {stages = 1 : i64}>, min_bytes = 4096 : i64}

// -----

// An adaptive router balances ties itself: no detour.
// CHECK-LABEL: sched.plan @alltoall_adaptive
// CHECK-SAME: events = ["arrived", "freed"], fifos = [#sched.fifo<send_depth = 2, recv_depth = 2>, #sched.fifo<send_depth = 16, recv_depth = 16>]
// CHECK-NOT: detour
// CHECK: sched.phase "plane y" fifo(1)
coll.alltoall @alltoall_adaptive {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600, adaptive = true>, algorithm = #coll.algorithm<"two-phase">, min_bytes = 4096 : i64}

// -----

// The line is the dimension of asymmetry, so that the plane is symmetric:
// y on 2x4x2.
// CHECK-LABEL: sched.plan @alltoall_2x4x2
// CHECK: sched.phase "line y" fifo(0)
// CHECK: sched.phase "detour" fifo(2)
// CHECK: sched.phase "plane xz" fifo(1)
coll.alltoall @alltoall_2x4x2 {topology = #coll.topology<shape = [2, 4, 2], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">, min_bytes = 4096 : i64}

// -----

// alltoallv: every source PUTs the lengths of the blocks an intermediate
// stages for it (table 0) and the detoured half's total (table 1). A stage
// slot is as large as the largest arrival (sum max), and a staged block
// starts at the sum of the lengths before it from the same source
// (table_sum).
// CHECK-LABEL: sched.plan @alltoallv_4x2
// CHECK-SAME: algorithm = "two-phase", {{.*}}collective = "alltoallv", events = ["arrived", "freed", "detoured"]
// CHECK: sched.exchange {
// CHECK: sched.put table 0[
// CHECK: sched.put table 1[
// CHECK: sched.sum max
// CHECK: sched.table_sum 0[
// CHECK: sched.scratch
// CHECK: sched.phase "line x" fifo(0) {
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %c0 wait @freed[%{{[a-z0-9_]+}}] signal @arrived[%k] {
// CHECK: %[[LEN:[a-z0-9_]+]] = sched.table 0[
// CHECK: sched.segment scratch[%{{[a-z0-9_]+}}, %[[LEN]]]
// CHECK: sched.phase "detour" fifo(2) {
// CHECK: sched.phase "plane y" fifo(1) {
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %c0 wait @arrived[%k] signal @freed[%k]
coll.alltoallv @alltoallv_4x2 {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">, min_bytes = 4096 : i64}

// -----

// The phases route between nodes, one rank per node.
// expected-error @+2 {{the two-phase alltoall schedules one rank per torus node; this topology has 2 ranks per node (use algorithm: direct)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @smp {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">}

// -----

// alltoallv too, and the error names it.
// expected-error @+2 {{the two-phase alltoallv schedules one rank per torus node; this topology has 2 ranks per node (use algorithm: direct)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoallv @vsmp {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">}

// -----

// expected-error @+2 {{the two-phase alltoall needs a line and a plane: a topology of 2 or 3 dimensions (this one has 1)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @ring {topology = #coll.topology<shape = [8], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"two-phase">}

// -----

// Other algorithms are left to their own lowering.
// CHECK-LABEL: coll.alltoall @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
coll.alltoall @direct {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-dim-rings --sched-verify=max-ranks=8 | FileCheck %s

// Two parts on a 4x2 torus, each crossing both dimensions in its own order,
// part p on FIFO p. One body serves every part, wave, stage, step and
// direction. Every message goes to a ring neighbour (rank plus or minus one
// hop along the stage's dimension), so routing ties play no part.
// CHECK-LABEL: sched.plan @alltoall_4x2
// CHECK-SAME: algorithm = "dim-rings", {{.*}}collective = "alltoall", events = ["forward", "stage"], fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>]
// CHECK: sched.scratch
// CHECK: sched.for %[[PART:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %c2 {
// CHECK: sched.phase "parts: y x | x y" fifo(0 + %[[PART]]) {
// CHECK: sched.copy sendbuf[%{{[a-z0-9_]+}}] to scratch[%{{[a-z0-9_]+}}] len %{{[a-z0-9_]+}} signal @stage[%[[PART]],
// CHECK-NEXT: sched.for %[[WAVE:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} {
// CHECK: sched.for %[[STAGE:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} {
// CHECK: sched.for %[[STEP:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} {
// CHECK-NEXT: sched.for %[[DIR:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} {
// CHECK: %[[NEXT:[a-z0-9_]+]] = sched.add %rank{{[_0-9]*}}, %{{[a-z0-9_]+}}
// CHECK: %[[PREV:[a-z0-9_]+]] = sched.add %rank{{[_0-9]*}}, %{{[a-z0-9_]+}}
// A step's message is split: the items that travel on (forward) go first,
// then the items for the neighbour itself (terminal). The first step
// gathers both from the send buffer or the stage before, after that stage
// and after any other part that last used this dimension (the hand-off).
// CHECK: sched.send to %[[NEXT]] tag %[[FWD:[a-z0-9_]+]] signal @stage[%[[PART]], %{{[a-z0-9_]+}}] {
// CHECK: sched.after @stage[%[[PART]],
// CHECK: sched.after @stage[
// CHECK: sched.segment sendbuf[
// CHECK: sched.segment scratch[
// CHECK: sched.send to %[[NEXT]] tag %[[TERM:[a-z0-9_]+]] signal @stage[%[[PART]], %{{[a-z0-9_]+}}] {
// A later step sends on what the step before brought, once it has arrived.
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[NEXT]] tag %[[FWD]] wait @forward[
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[NEXT]] tag %[[TERM]] wait @forward[
// Receives from the neighbour on the other side: the forward piece signals
// the next step, and a terminal piece lands in scratch, or in the receive
// buffer in the last stage.
// CHECK: sched.recv scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %[[PREV]] tag %[[FWD]] wait @stage[%[[PART]], %{{[a-z0-9_]+}}] signal @forward[
// CHECK: sched.recv scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %[[PREV]] tag %[[TERM]] wait @stage[%[[PART]], %{{[a-z0-9_]+}}] signal @stage[%[[PART]],
// CHECK: sched.recv from %[[PREV]] tag %[[TERM]] wait @stage[%[[PART]], %{{[a-z0-9_]+}}] signal @stage[%[[PART]], %{{[a-z0-9_]+}}] {
// CHECK: sched.segment recvbuf[
// Only the last stage copies the rank's own items, after its messages.
// CHECK: sched.copy to wait @stage[%[[PART]], %{{[a-z0-9_]+}}] signal @stage[%[[PART]], %{{[a-z0-9_]+}}] {
// CHECK: sched.segment dst recvbuf[
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_4x2 {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings", {parts = 2 : i64}>, min_bytes = 4096 : i64}

// -----

// One part: a single FIFO, the stages one after the other.
// CHECK-LABEL: sched.plan @alltoall_one_part
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>],
// CHECK: sched.phase "parts: x y" fifo(0 + %{{[a-z0-9_]+}})
coll.alltoall @alltoall_one_part {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings", {parts = 1 : i64}>, min_bytes = 4096 : i64}

// -----

// A dimension that does not wrap is a line: the stage over it sends each
// other node of the line its items directly, one message each, routed
// through the nodes between (no forward pieces: a line has no ties to
// avoid). Each stage takes the ring's branch or the line's as its
// dimension says at run time; here x is a ring of 3, y a line of 2.
// CHECK-LABEL: sched.plan @mesh
// CHECK-SAME: wrap = [true, false]
// CHECK: sched.phase "parts: x y"
// CHECK: %[[RING:[a-z0-9_]+]] = sched.ne %[[WRAPS:[a-z0-9_]+]], %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.if %[[RING]] {
// CHECK: sched.send scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %{{[a-z0-9_]+}} wait @forward[
// CHECK: %[[LINE:[a-z0-9_]+]] = sched.eq %[[WRAPS]], %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.if %[[LINE]] {
// Steps t = 1 .. n − 1, each way: to the node t ahead if there is one,
// from the node t behind if there is one.
// CHECK-NEXT: sched.for %[[T:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[N:[a-z0-9_]+]] {
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} {
// CHECK: %[[DELTA:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[T]]
// CHECK: %[[TO:[a-z0-9_]+]] = sched.add %[[C:[a-z0-9_]+]], %[[DELTA]]
// CHECK-NEXT: sched.lt %[[TO]], %[[N]]
// CHECK-NEXT: sched.ge %[[TO]], %{{[a-z0-9_]+}}
// CHECK: sched.send to %{{[a-z0-9_]+}} tag %[[TAG:[a-z0-9_]+]] signal @stage[
// CHECK-NOT: @forward
// CHECK: sched.after @stage[
// CHECK-NOT: @forward
// CHECK: %[[FROM:[a-z0-9_]+]] = sched.sub %[[C]], %[[DELTA]]
// CHECK-NOT: @forward
// CHECK: sched.recv scratch[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %[[SRC:[a-z0-9_]+]] tag %[[TAG]] wait @stage[{{.*}}] signal @stage[
// CHECK-NOT: @forward
// CHECK: sched.recv from %[[SRC]] tag %[[TAG]] wait @stage[{{.*}}] signal @stage[
coll.alltoall @mesh {topology = #coll.topology<shape = [3, 2], wrap = [true, false], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings", {parts = 1 : i64}>, min_bytes = 4096 : i64}

// -----

// Lines only (a 2x4 mesh, two parts) and a line of 8: sched-verify
// simulates every rank of each.
// CHECK-LABEL: sched.plan @mesh_2x4
// CHECK-SAME: wrap = [false, false]
// CHECK: sched.phase "parts: y x | x y"
coll.alltoall @mesh_2x4 {topology = #coll.topology<shape = [2, 4], wrap = [false, false], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings", {parts = 2 : i64}>, min_bytes = 4096 : i64}

// -----

// CHECK-LABEL: sched.plan @line_8
// CHECK-SAME: wrap = [false]
coll.alltoall @line_8 {topology = #coll.topology<shape = [8], wrap = [false], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}

// -----

// One rank per node.

// -----

// expected-error @+2 {{the dim-rings alltoall schedules one rank per torus node; this topology has 2 ranks per node (use algorithm: direct)}}
// expected-error @+1 {{failed to legalize operation}}
coll.alltoall @smp {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}

// -----

// The pass lowers dim-rings' alltoallv too (LowerDimRingsV.cpp); other
// algorithms are left to their own lowering.
// CHECK-LABEL: sched.plan @alltoallv
// CHECK-SAME: algorithm = "dim-rings", {{.*}}collective = "alltoallv"
// CHECK-LABEL: coll.alltoall @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
coll.alltoallv @alltoallv {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"dim-rings">, min_bytes = 4096 : i64}
coll.alltoall @direct {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

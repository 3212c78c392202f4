// The ring allreduce on any communicator size: blocks of whole elements,
// some of them empty when the message has fewer elements than ranks; the
// simulator proves every output element combines every rank's contribution
// once, at every size up to 64.
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-ring --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-ring --sched-verify=max-ranks=64 -o /dev/null

// CHECK-LABEL: sched.plan @allreduce_ring
// CHECK-SAME: algorithm = "ring"
// CHECK-SAME: collective = "allreduce", events = ["got", "partial", "done", "gathered"]
// CHECK: sched.scratch
// CHECK: sched.phase "ring" fifo(0)
// Reduce-scatter: the own contribution first, then the partial combined at
// the step before; each arrival is the left operand of the combination.
// CHECK: sched.for %k = %c0 to
// CHECK: sched.send sendbuf[{{.*}}] to %[[NEXT:[0-9]+]] tag %c0{{$}}
// CHECK: sched.send scratch[{{.*}}] to %[[NEXT]] tag %c0 wait @partial[
// CHECK: sched.recv scratch[{{.*}}] from %[[PREV:[0-9]+]] tag %c0 signal @got[
// CHECK-NEXT: sched.reduce "sum" "int" sendbuf[{{.*}}] to scratch[{{.*}}] len {{.*}} wait @got[{{.*}}] signal @partial[
// The last step completes this rank's block in its receive buffer.
// CHECK: sched.recv recvbuf[{{.*}}] from %[[PREV]] tag %c0 signal @got[
// CHECK-NEXT: sched.reduce "sum" "int" sendbuf[{{.*}}] to recvbuf[{{.*}}] len {{.*}} wait @got[{{.*}}] signal @done[
// Allgather: the completed block first, then each arrival forwarded.
// CHECK: sched.send recvbuf[{{.*}}] to %[[NEXT]] tag %c1 wait @done[
// CHECK: sched.send recvbuf[{{.*}}] to %[[NEXT]] tag %c1 wait @gathered[
// CHECK: sched.recv recvbuf[{{.*}}] from %[[PREV]] tag %c1 signal @gathered[
coll.allreduce @allreduce_ring {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"ring">, datatype = "int"}

// Pairs of the loc operations: 16-byte elements, never split.
// CHECK-LABEL: sched.plan @allreduce_ring_minloc
// CHECK: sched.reduce "minloc" "double_int"
coll.allreduce @allreduce_ring_minloc {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"ring">, reduce_op = "minloc", datatype = "double_int"}

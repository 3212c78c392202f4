// The lowered schedules must also pass the simulator (sched-verify).
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-direct --sched-verify=max-ranks=5 | FileCheck %s

// Shift order: at step k rank r receives from (r - k) mod P and sends to
// (r + k) mod P; its own block is a local copy after the loop, so that it
// overlaps the messages in flight.
// CHECK-LABEL: sched.plan @alltoall_shift
// CHECK-SAME: algorithm = "direct", block_bytes = array<i64: {{[0-9]+}}, {{[0-9]+}}>, collective = "alltoall", fifos = [#sched.fifo<send_depth = 16, recv_depth = 16>]
// CHECK: sched.phase "exchange" fifo(0)
// CHECK: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK: %[[P:[a-z0-9_]+]] = sched.size
// CHECK: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK: sched.for %k = %[[ONE]] to %[[P]] {
// CHECK: %[[A:[a-z0-9_]+]] = sched.add %[[R]], %k
// CHECK: %[[DST:[a-z0-9_]+]] = sched.mod %[[A]], %[[P]]
// CHECK: %[[S:[a-z0-9_]+]] = sched.sub %[[R]], %k
// CHECK: %[[SRC:[a-z0-9_]+]] = sched.mod %[[S]], %[[P]]
// CHECK: %[[RLEN:[a-z0-9_]+]] = sched.count recvcount[%[[SRC]]]
// CHECK: %[[ROFF:[a-z0-9_]+]] = sched.count recvdispl[%[[SRC]]]
// CHECK: sched.recv recvbuf[%[[ROFF]], %[[RLEN]]] from %[[SRC]]
// CHECK: %[[SLEN:[a-z0-9_]+]] = sched.count sendcount[%[[DST]]]
// CHECK: %[[SOFF:[a-z0-9_]+]] = sched.count senddispl[%[[DST]]]
// CHECK: sched.send sendbuf[%[[SOFF]], %[[SLEN]]] to %[[DST]]
// CHECK-NEXT: }
// CHECK: %[[OWNOFF:[a-z0-9_]+]] = sched.count senddispl[%[[R]]]
// CHECK: sched.copy sendbuf[%[[OWNOFF]]] to recvbuf[%{{[a-z0-9_]+}}] len
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_shift {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

// Random order: the same steps, visited in a permutation seeded by the op.
// The permutation is shared by all ranks, so receives are windowed too.
// CHECK-LABEL: sched.plan @alltoall_random
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 16, recv_depth = 16>]
// CHECK: %[[SEED:[a-z0-9_]+]] = sched.const 7
// CHECK: sched.for %k = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}} random(%[[SEED]]) shared {
coll.alltoall @alltoall_random {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct", {order = "random", seed = 7}>}

// The FIFO depth comes from the op.
// CHECK-LABEL: sched.plan @alltoallv_depth
// CHECK-SAME: collective = "alltoallv", fifos = [#sched.fifo<send_depth = 3, recv_depth = 3>]
// CHECK: sched.for %k
// CHECK: sched.send sendbuf
coll.alltoallv @alltoallv_depth {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct", {fifo_depth = 3}>}

// Allgatherv sends its one contribution, from offset 0, to every peer.
// CHECK-LABEL: sched.plan @allgatherv_direct
// CHECK-SAME: collective = "allgatherv"
// CHECK: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK: %[[ZERO:[a-z0-9_]+]] = sched.const 0
// CHECK: %[[OWN:[a-z0-9_]+]] = sched.count recvcount[%[[R]]]
// CHECK: sched.for %k
// CHECK: sched.send sendbuf[%[[ZERO]], %[[OWN]]] to
// CHECK: sched.copy sendbuf[%[[ZERO]]] to recvbuf[%{{[a-z0-9_]+}}] len %[[OWN]]
coll.allgatherv @allgatherv_direct {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

// Other algorithms are left to their own lowering.
// CHECK-LABEL: coll.allgatherv @allgatherv_ring
// CHECK-SAME: algorithm = #coll.algorithm<"blocked-ring"
coll.allgatherv @allgatherv_ring {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"blocked-ring">}

// The lowered schedules must also pass the simulator (sched-verify).
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-blocked-ring --sched-verify=max-ranks=5 | FileCheck %s

// A forced block size is a constant; rank r sends to r+1 and receives from
// r-1, each received block signals @arrived[owner, k] and is forwarded only
// after it, unless r+1 owns it.
// CHECK-LABEL: sched.plan @allgatherv_fixed_block
// CHECK-SAME: algorithm = "blocked-ring", block_bytes = array<i64: {{[0-9]+}}, {{[0-9]+}}>, collective = "allgatherv", events = ["arrived"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 8>]
// CHECK: %[[B:[a-z0-9_]+]] = sched.const 3
// CHECK-NOT: sched.count_stat
// CHECK: sched.phase "ring" fifo(0)
// CHECK: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK: %[[P:[a-z0-9_]+]] = sched.size
// CHECK: %[[ZERO:[a-z0-9_]+]] = sched.const 0
// CHECK: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK: %[[N:[a-z0-9_]+]] = sched.add %[[R]], %[[ONE]]
// CHECK: %[[NEXT:[a-z0-9_]+]] = sched.mod %[[N]], %[[P]]
// CHECK: %[[V:[a-z0-9_]+]] = sched.sub %[[R]], %[[ONE]]
// CHECK: %[[PREV:[a-z0-9_]+]] = sched.mod %[[V]], %[[P]]
// CHECK: sched.for %k = %[[ZERO]] to %[[P]] {
// CHECK: %[[O:[a-z0-9_]+]] = sched.sub %[[R]], %k
// CHECK: %[[OWNER:[a-z0-9_]+]] = sched.mod %[[O]], %[[P]]
// CHECK: %[[BYTES:[a-z0-9_]+]] = sched.count recvcount[%[[OWNER]]]
// CHECK: %[[NBLOCKS:[a-z0-9_]+]] = sched.ceildiv %[[BYTES]], %[[B]]
// CHECK: sched.for %[[K:k_[0-9]+]] = %[[ZERO]] to %[[NBLOCKS]] {
// CHECK: sched.if
// CHECK-NEXT: sched.recv recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %[[PREV]] tag %[[ZERO]] signal @arrived[%[[OWNER]], %[[K]]]
// CHECK: sched.if
// CHECK-NEXT: sched.send sendbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[NEXT]] tag %[[ZERO]]{{$}}
// CHECK: sched.if
// CHECK-NEXT: sched.send recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[NEXT]] tag %[[ZERO]] wait @arrived[%[[OWNER]], %[[K]]]
coll.allgatherv @allgatherv_fixed_block {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"blocked-ring", {block_bytes = 3}>}

// Without block_bytes, B = max(1024, isqrt(2·α/β · sum / max(1, P + z - 2)))
// at bind time, with 2·α/β = 2 · 1700000 / 6480 = 524 bytes.
// CHECK-LABEL: sched.plan @allgatherv_formula
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 2, recv_depth = 4>]
// CHECK: %[[TWO:[a-z0-9_]+]] = sched.const 2
// CHECK: %[[Z:[a-z0-9_]+]] = sched.count_stat zeros
// CHECK: %[[P:[a-z0-9_]+]] = sched.size
// CHECK: %[[PZ:[a-z0-9_]+]] = sched.add %[[P]], %[[Z]]
// CHECK: %[[PZ2:[a-z0-9_]+]] = sched.sub %[[PZ]], %[[TWO]]
// CHECK: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK: %[[ROUNDS:[a-z0-9_]+]] = sched.max %[[ONE]], %[[PZ2]]
// CHECK: %[[SUM:[a-z0-9_]+]] = sched.count_stat sum
// CHECK: %[[AB:[a-z0-9_]+]] = sched.const 524
// CHECK: %[[M:[a-z0-9_]+]] = sched.mul %[[AB]], %[[SUM]]
// CHECK: %[[Q:[a-z0-9_]+]] = sched.floordiv %[[M]], %[[ROUNDS]]
// CHECK: %[[SQ:[a-z0-9_]+]] = sched.isqrt %[[Q]]
// CHECK: %[[FLOOR:[a-z0-9_]+]] = sched.const 1024
// CHECK: %[[B:[a-z0-9_]+]] = sched.max %[[FLOOR]], %[[SQ]]
// CHECK: sched.phase "ring" fifo(0)
// CHECK: sched.ceildiv %{{[a-z0-9_]+}}, %[[B]]
coll.allgatherv @allgatherv_formula {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"blocked-ring", {fifo_depth = 2}>}

// Direct allgatherv is left to coll-lower-direct.
// CHECK-LABEL: coll.allgatherv @allgatherv_direct
coll.allgatherv @allgatherv_direct {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

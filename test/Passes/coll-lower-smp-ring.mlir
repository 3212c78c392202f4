// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks on 2x2 nodes of 2 cores, 6 ranks on 3 nodes of
// 2 cores) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-smp-ring --sched-verify=max-ranks=8 | FileCheck %s
// Without coll-select-algorithm the lowering finds no fifo_depth on the op,
// decides none itself, and fails naming it.
// RUN: not %collc-opt %s -split-input-file --coll-lower-smp-ring 2>&1 >/dev/null | FileCheck %s --check-prefix=UNDECIDED
// UNDECIDED: error: the smp-blocked-ring lowering reads its parameters from the op, and fifo_depth is not decided: run coll-select-algorithm first
// UNDECIDED-NEXT: coll.allgatherv @allgatherv_fixed_block

// Seed 001 on 2x2 nodes of 2 cores with a forced block size: three FIFOs at
// the rings' default depth 4; the gather's receives are all posted (0), the
// ring and the chain receive in their sender's order (a window of 2·depth).
// The block size is a constant.
// CHECK-LABEL: sched.plan @allgatherv_fixed_block
// CHECK-SAME: algorithm = "smp-blocked-ring", {{.*}}collective = "allgatherv", events = ["gathered", "arrived", "chained"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>, #sched.fifo<send_depth = 4, recv_depth = 8>, #sched.fifo<send_depth = 4, recv_depth = 8>]
// CHECK: %[[ZERO:[a-z0-9_]+]] = sched.const 0
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK-NEXT: %[[TWO:[a-z0-9_]+]] = sched.const 2
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = sched.ranks_per_node
// N is the product of the topology's extents (not P / C), so that the plan
// runs on exactly N·C ranks.
// CHECK: %[[X:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[NX:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = sched.dim 1
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = sched.mul %[[NX]], %[[Y]]
// Rank r is core r mod C of node r / C; its node's leader is rank node·C.
// CHECK-NEXT: %[[NODE:[a-z0-9_]+]] = sched.floordiv %[[R]], %[[C]]
// CHECK-NEXT: %[[LOCAL:[a-z0-9_]+]] = sched.mod %[[R]], %[[C]]
// CHECK-NEXT: %[[LEADER:[a-z0-9_]+]] = sched.mul %[[NODE]], %[[C]]
// CHECK-NEXT: %[[ISLEADER:[a-z0-9_]+]] = sched.eq %[[LOCAL]], %[[ZERO]]
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = sched.const 3
// CHECK-NOT: sched.count_stat
// Gather (FIFO 0): a non-leader sends its whole contribution to its leader
// in one message; the leader copies its own into place and receives each
// core's, signalling @gathered[c].
// CHECK: sched.phase "gather" fifo(0) {
// CHECK-NEXT: %[[NOTLEADER:[a-z0-9_]+]] = sched.ne %[[LOCAL]], %[[ZERO]]
// CHECK-NEXT: sched.if %[[NOTLEADER]] {
// CHECK-NEXT: %[[MINE:[a-z0-9_]+]] = sched.count recvcount[%[[R]]]
// CHECK-NEXT: sched.send sendbuf[%[[ZERO]], %[[MINE]]] to %[[LEADER]] tag %[[ZERO]]{{$}}
// CHECK: sched.if %[[ISLEADER]] {
// CHECK: sched.copy sendbuf[%[[ZERO]]] to recvbuf[%{{[a-z0-9_]+}}] len %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.for %[[GC:[a-z0-9_]+]] = %[[ONE]] to %[[C]] {
// CHECK-NEXT: %[[GFROM:[a-z0-9_]+]] = sched.add %[[LEADER]], %[[GC]]
// CHECK: sched.recv recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %[[GFROM]] tag %[[ZERO]] signal @gathered[%[[GC]]]
// Ring (FIFO 1): only leaders take part, over the N nodes: next is the leader
// of node + 1, prev that of node - 1. Round j carries node (node - j)'s
// blocks (ceil(count / B) per core); from j = 1 a block is received and
// signals @arrived[owner, k], and it is forwarded only while the next node
// does not own it (j <= N - 2). In round 0 the leader's own blocks come
// straight from its send buffer, its cores' once @gathered.
// CHECK: sched.phase "ring" fifo(1) {
// CHECK-NEXT: sched.if %[[ISLEADER]] {
// CHECK-NEXT: %[[N0:[a-z0-9_]+]] = sched.add %[[NODE]], %[[ONE]]
// CHECK-NEXT: %[[N1:[a-z0-9_]+]] = sched.mod %[[N0]], %[[N]]
// CHECK-NEXT: %[[NEXT:[a-z0-9_]+]] = sched.mul %[[N1]], %[[C]]
// CHECK-NEXT: %[[P0:[a-z0-9_]+]] = sched.sub %[[NODE]], %[[ONE]]
// CHECK-NEXT: %[[P1:[a-z0-9_]+]] = sched.mod %[[P0]], %[[N]]
// CHECK-NEXT: %[[PREV:[a-z0-9_]+]] = sched.mul %[[P1]], %[[C]]
// CHECK-NEXT: sched.for %[[J:[a-z0-9_]+]] = %[[ZERO]] to %[[N]] {
// CHECK-NEXT: %[[M0:[a-z0-9_]+]] = sched.sub %[[NODE]], %[[J]]
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = sched.mod %[[M0]], %[[N]]
// CHECK-NEXT: %[[NM2:[a-z0-9_]+]] = sched.sub %[[N]], %[[TWO]]
// CHECK-NEXT: %[[FORWARDS:[a-z0-9_]+]] = sched.le %[[J]], %[[NM2]]
// CHECK-NEXT: sched.for %[[RC:[a-z0-9_]+]] = %[[ZERO]] to %[[C]] {
// CHECK-NEXT: %[[O0:[a-z0-9_]+]] = sched.mul %[[M]], %[[C]]
// CHECK-NEXT: %[[OWNER:[a-z0-9_]+]] = sched.add %[[O0]], %[[RC]]
// CHECK-NEXT: %[[BYTES:[a-z0-9_]+]] = sched.count recvcount[%[[OWNER]]]
// CHECK-NEXT: %[[NB:[a-z0-9_]+]] = sched.ceildiv %[[BYTES]], %[[B]]
// CHECK-NEXT: sched.for %[[K:[a-z0-9_]+]] = %[[ZERO]] to %[[NB]] {
// CHECK: %[[LATER:[a-z0-9_]+]] = sched.ge %[[J]], %[[ONE]]
// CHECK-NEXT: sched.if %[[LATER]] {
// CHECK-NEXT: sched.recv recvbuf[%[[OFF:[a-z0-9_]+]], %[[LEN:[a-z0-9_]+]]] from %[[PREV]] tag %[[ZERO]] signal @arrived[%[[OWNER]], %[[K]]]
// CHECK: %[[FIRST:[a-z0-9_]+]] = sched.eq %[[J]], %[[ZERO]]
// CHECK-NEXT: %[[OWN:[a-z0-9_]+]] = sched.and %[[FIRST]], %[[FORWARDS]]
// CHECK-NEXT: sched.if %[[OWN]] {
// CHECK-NEXT: %[[ISC0:[a-z0-9_]+]] = sched.eq %[[RC]], %[[ZERO]]
// CHECK-NEXT: sched.if %[[ISC0]] {
// CHECK-NEXT: %[[KB:[a-z0-9_]+]] = sched.mul %[[K]], %[[B]]
// CHECK-NEXT: sched.send sendbuf[%[[KB]], %[[LEN]]] to %[[NEXT]] tag %[[ZERO]]{{$}}
// CHECK: sched.send recvbuf[%[[OFF]], %[[LEN]]] to %[[NEXT]] tag %[[ZERO]] wait @gathered[%[[RC]]]
// CHECK: %[[LATER2:[a-z0-9_]+]] = sched.ge %[[J]], %[[ONE]]
// CHECK-NEXT: %[[FWD:[a-z0-9_]+]] = sched.and %[[LATER2]], %[[FORWARDS]]
// CHECK-NEXT: sched.if %[[FWD]] {
// CHECK-NEXT: sched.send recvbuf[%[[OFF]], %[[LEN]]] to %[[NEXT]] tag %[[ZERO]] wait @arrived[%[[OWNER]], %[[K]]]
// Chain (FIFO 2): every block the leader has, in its order (its node's,
// then the ring's), flows down local 0 -> 1 -> ... -> C-1: the leader sends
// each to r + 1 (own from sendbuf, gathered after @gathered, ring blocks
// after @arrived); every other core receives it from r - 1, signalling
// @chained, and passes it on unless it is the node's last core.
// CHECK: sched.phase "chain" fifo(2) {
// CHECK-NEXT: %[[DOWN:[a-z0-9_]+]] = sched.add %[[R]], %[[ONE]]
// CHECK-NEXT: %[[UP:[a-z0-9_]+]] = sched.sub %[[R]], %[[ONE]]
// CHECK-NEXT: %[[LAST:[a-z0-9_]+]] = sched.sub %[[C]], %[[ONE]]
// CHECK-NEXT: %[[HASNEXT:[a-z0-9_]+]] = sched.lt %[[LOCAL]], %[[LAST]]
// CHECK-NEXT: sched.for %[[CJ:[a-z0-9_]+]] = %[[ZERO]] to %[[N]] {
// CHECK: sched.for %{{[a-z0-9_]+}} = %[[ZERO]] to %[[C]] {
// CHECK: sched.for %[[CK:[a-z0-9_]+]] = %[[ZERO]] to %{{[a-z0-9_]+}} {
// CHECK: %[[STARTS:[a-z0-9_]+]] = sched.and %[[ISLEADER]], %[[HASNEXT]]
// CHECK-NEXT: sched.if %[[STARTS]] {
// CHECK: sched.send sendbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[DOWN]] tag %[[ZERO]]{{$}}
// CHECK: sched.send recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[DOWN]] tag %[[ZERO]] wait @gathered[
// CHECK: sched.send recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %[[DOWN]] tag %[[ZERO]] wait @arrived[%{{[a-z0-9_]+}}, %[[CK]]]
// CHECK: %[[FOLLOWER:[a-z0-9_]+]] = sched.ne %[[LOCAL]], %[[ZERO]]
// CHECK-NEXT: sched.if %[[FOLLOWER]] {
// CHECK-NEXT: sched.recv recvbuf[%[[COFF:[a-z0-9_]+]], %[[CLEN:[a-z0-9_]+]]] from %[[UP]] tag %[[ZERO]] signal @chained[%[[COWNER:[a-z0-9_]+]], %[[CK]]]
// CHECK-NEXT: sched.if %[[HASNEXT]] {
// CHECK-NEXT: sched.send recvbuf[%[[COFF]], %[[CLEN]]] to %[[DOWN]] tag %[[ZERO]] wait @chained[%[[COWNER]], %[[CK]]]
// CHECK-NOT: coll.allgatherv
coll.allgatherv @allgatherv_fixed_block {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-blocked-ring", {block_bytes = 3}>}

// -----

// A second size, 3 nodes of 2 cores (6 ranks) on an unwrapped line: the ring
// runs over node numbers, not links, so it needs no torus. A given
// fifo_depth reaches all three FIFOs (the windows double it). Without
// block_bytes, B = max(1024, isqrt(2·α/β · sum / max(1, N + C + z - 2))) at
// bind time: the pipeline is N + C hops deep, not P.
// CHECK-LABEL: sched.plan @allgatherv_formula
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 2, recv_depth = 0>, #sched.fifo<send_depth = 2, recv_depth = 4>, #sched.fifo<send_depth = 2, recv_depth = 4>]
// CHECK: %[[C:[a-z0-9_]+]] = sched.ranks_per_node
// CHECK: %[[X:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NOT: sched.dim
// CHECK: %[[TWO:[a-z0-9_]+]] = sched.const 2
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = sched.count_stat zeros
// CHECK-NEXT: %[[NC:[a-z0-9_]+]] = sched.add %[[N]], %[[C]]
// CHECK-NEXT: %[[NCZ:[a-z0-9_]+]] = sched.add %[[NC]], %[[Z]]
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = sched.sub %[[NCZ]], %[[TWO]]
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK-NEXT: %[[ROUNDS:[a-z0-9_]+]] = sched.max %[[ONE]], %[[D]]
// CHECK-NEXT: %[[SUM:[a-z0-9_]+]] = sched.count_stat sum
// CHECK-NEXT: %[[AB:[a-z0-9_]+]] = sched.const 524
// CHECK-NEXT: %[[MS:[a-z0-9_]+]] = sched.mul %[[AB]], %[[SUM]]
// CHECK-NEXT: %[[Q:[a-z0-9_]+]] = sched.floordiv %[[MS]], %[[ROUNDS]]
// CHECK-NEXT: %[[SQ:[a-z0-9_]+]] = sched.isqrt %[[Q]]
// CHECK-NEXT: %[[FLOOR:[a-z0-9_]+]] = sched.const 1024
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = sched.max %[[FLOOR]], %[[SQ]]
// CHECK: sched.phase "ring" fifo(1) {
// CHECK: sched.ceildiv %{{[a-z0-9_]+}}, %[[B]]
// CHECK: sched.phase "chain" fifo(2) {
// CHECK: sched.ceildiv %{{[a-z0-9_]+}}, %[[B]]
coll.allgatherv @allgatherv_formula {topology = #coll.topology<shape = [3], wrap = [false], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-blocked-ring", {fifo_depth = 2}>}

// -----

// The flat blocked ring and direct allgatherv are left to their lowerings:
// "blocked-ring" is not "smp-blocked-ring".
// CHECK-LABEL: coll.allgatherv @blocked_ring
// CHECK-SAME: algorithm = #coll.algorithm<"blocked-ring", {fifo_depth = 4 : i64}>
coll.allgatherv @blocked_ring {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"blocked-ring">}
// CHECK-LABEL: coll.allgatherv @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct"
coll.allgatherv @direct {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

// -----

// The lowering handles allgatherv only: the dialect's table
// (CollAlgorithms.def) refuses smp-blocked-ring on alltoall, so no alltoall
// can reach it unlowered.
// expected-error @+1 {{'coll.alltoall' op (C2) algorithm 'smp-blocked-ring' is not one of auto, direct, balanced, smp-all-cores, planned, smp-leader, vmesh, two-phase, dim-rings}}
coll.alltoall @alltoall {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-blocked-ring">}

// -----

// A block is at least one byte.
// expected-error @+1 {{(A3) block_bytes is 0; it must be >= 1}}
coll.allgatherv @empty_blocks {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-blocked-ring", {block_bytes = 0}>}

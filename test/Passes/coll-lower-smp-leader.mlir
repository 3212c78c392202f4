// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks on 2x2 nodes of 2 cores, 9 ranks on 3 nodes of
// 3 cores) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-smp-leader --sched-verify=max-ranks=9 | FileCheck %s
// Without coll-select-algorithm the lowering finds no fifo_depth on the op,
// decides none itself, and fails naming it.
// RUN: not %collc-opt %s -split-input-file --coll-lower-smp-leader 2>&1 >/dev/null | FileCheck %s --check-prefix=UNDECIDED
// UNDECIDED: error: the smp-leader lowering reads its parameters from the op, and fifo_depth is not decided: run coll-select-algorithm first
// UNDECIDED-NEXT: coll.alltoall @alltoall_2x2

// Seed 002 on 2x2 nodes of 2 cores: four FIFOs, one per stage. Only the
// exchange (FIFO 1) carries network messages and takes the selected depth
// (the default, 16); gather, arrivals and scatter are local and one deep.
// CHECK-LABEL: sched.plan @alltoall_2x2
// CHECK-SAME: algorithm = "smp-leader", {{.*}}collective = "alltoall", events = ["filled", "staged", "arrived", "landed"], fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 16>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>]
// CHECK: %[[ZERO:[a-z0-9_]+]] = sched.const 0
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = sched.size
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = sched.ranks_per_node
// N is the product of the topology's extents (not P / C), so that the plan
// runs on exactly N·C ranks.
// CHECK: %[[X:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[NX:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = sched.dim 1
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = sched.mul %[[NX]], %[[Y]]
// Rank r is core r mod C of node r / C; local rank 0 leads.
// CHECK-NEXT: %[[NODE:[a-z0-9_]+]] = sched.floordiv %[[R]], %[[C]]
// CHECK-NEXT: %[[ME:[a-z0-9_]+]] = sched.mod %[[R]], %[[C]]
// CHECK-NEXT: %[[LEADER:[a-z0-9_]+]] = sched.eq %[[ME]], %[[ZERO]]
// The arena holds in[C][P] and out[N][C][C] blocks of m bytes (2·C·P·m),
// with counter 0 ("filled") and one counter per node (1 + A).
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = sched.count recvcount[%[[R]]]
// CHECK-NEXT: %[[CP:[a-z0-9_]+]] = sched.mul %[[C]], %[[P]]
// CHECK-NEXT: %[[ROWS:[a-z0-9_]+]] = sched.mul %[[CP]], %[[M]]
// CHECK-NEXT: %[[COUNTERS:[a-z0-9_]+]] = sched.add %[[N]], %[[ONE]]
// CHECK-NEXT: %[[TWO:[a-z0-9_]+]] = sched.const 2
// CHECK-NEXT: %[[ARENA:[a-z0-9_]+]] = sched.mul %[[ROWS]], %[[TWO]]
// CHECK-NEXT: sched.arena %[[ARENA]] counters %[[COUNTERS]]
// Gather (FIFO 0): every core copies its whole send buffer into its row
// in[me][*] at (me·P + 0)·m, then NOTIFYs counter 0 once its copy is in, and
// AWAITs it full (every core's row) before anything leaves the arena.
// CHECK: sched.phase "gather" fifo(0) {
// CHECK-NEXT: %[[G0:[a-z0-9_]+]] = sched.mul %[[ME]], %[[P]]
// CHECK-NEXT: %[[G1:[a-z0-9_]+]] = sched.add %[[G0]], %[[ZERO]]
// CHECK-NEXT: %[[G2:[a-z0-9_]+]] = sched.mul %[[G1]], %[[M]]
// CHECK-NEXT: sched.copy to arena[%[[G2]]] signal @filled[%[[ZERO]]] {
// CHECK-NEXT: sched.for %[[D:[a-z0-9_]+]] = %[[ZERO]] to %[[P]] {
// CHECK-NEXT: %[[SD:[a-z0-9_]+]] = sched.count senddispl[%[[D]]]
// CHECK-NEXT: sched.segment sendbuf[%[[SD]], %[[M]]]
// CHECK: sched.notify %[[ZERO]] wait @filled[%[[ZERO]]]
// CHECK-NEXT: sched.await %[[ZERO]] signal @staged[%[[ZERO]]]
// No point-to-point message inside a node: the gather goes through memory.
// CHECK-NOT: sched.send
// CHECK-NOT: sched.recv
// Exchange (FIFO 1): only the leader, for k = 1 .. N-1, sends the leader of
// node (A + k) mod N ONE message once the arena is full: C·C blocks of m
// bytes gathered straight out of in[*][*], and receives node (A - k) mod N's
// C·C·m bytes into out[A - k], signalling @arrived for that node.
// CHECK: sched.phase "exchange" fifo(1) {
// CHECK-NEXT: sched.if %[[LEADER]] {
// CHECK-NEXT: sched.for %[[K:[a-z0-9_]+]] = %[[ONE]] to %[[N]] {
// CHECK-NEXT: %[[T0:[a-z0-9_]+]] = sched.add %[[NODE]], %[[K]]
// CHECK-NEXT: %[[TO:[a-z0-9_]+]] = sched.mod %[[T0]], %[[N]]
// CHECK-NEXT: %[[F0:[a-z0-9_]+]] = sched.sub %[[NODE]], %[[K]]
// CHECK-NEXT: %[[FROM:[a-z0-9_]+]] = sched.mod %[[F0]], %[[N]]
// CHECK-NEXT: %[[TOLEADER:[a-z0-9_]+]] = sched.mul %[[TO]], %[[C]]
// CHECK-NEXT: sched.send to %[[TOLEADER]] tag %[[ZERO]] wait @staged[%[[ZERO]]] {
// CHECK-NEXT: %[[CC:[a-z0-9_]+]] = sched.mul %[[C]], %[[C]]
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %[[ZERO]] to %[[CC]] {
// CHECK: sched.segment arena[%{{[a-z0-9_]+}}, %[[M]]]
// CHECK: %[[FROMLEADER:[a-z0-9_]+]] = sched.mul %[[FROM]], %[[C]]
// CHECK-NEXT: %[[CC2:[a-z0-9_]+]] = sched.mul %[[C]], %[[C]]
// CHECK-NEXT: %[[LEN:[a-z0-9_]+]] = sched.mul %[[CC2]], %[[M]]
// CHECK: %[[OUT:[a-z0-9_]+]] = sched.add %[[ROWS]], %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.recv arena[%[[OUT]], %[[LEN]]] from %[[FROMLEADER]] tag %[[ZERO]] signal @arrived[%[[FROM]]]
// Arrivals (FIFO 2, apart so that no send waits behind an arrival): the
// leader NOTIFYs counter 1 + A once node A's message is in.
// CHECK: sched.phase "arrivals" fifo(2) {
// CHECK-NEXT: sched.if %[[LEADER]] {
// CHECK-NEXT: sched.for %[[KA:[a-z0-9_]+]] = %[[ONE]] to %[[N]] {
// CHECK-NEXT: %[[A0:[a-z0-9_]+]] = sched.sub %[[NODE]], %[[KA]]
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = sched.mod %[[A0]], %[[N]]
// CHECK-NEXT: %[[CTR:[a-z0-9_]+]] = sched.add %[[ONE]], %[[A]]
// CHECK-NEXT: sched.notify %[[CTR]] wait @arrived[%[[A]]]
// Scatter (FIFO 3): the blocks from its own node, in[c][r] for every core c,
// once counter 0 is full; then per other node A, AWAIT counter 1 + A and
// copy this core's C contiguous blocks out of out[A] at (A·C + me)·C·m.
// CHECK: sched.phase "scatter" fifo(3) {
// CHECK-NEXT: sched.copy to wait @staged[%[[ZERO]]] {
// CHECK-NEXT: sched.for %[[SC:[a-z0-9_]+]] = %[[ZERO]] to %[[C]] {
// CHECK-NEXT: %[[S0:[a-z0-9_]+]] = sched.mul %[[SC]], %[[P]]
// CHECK-NEXT: %[[S1:[a-z0-9_]+]] = sched.add %[[S0]], %[[R]]
// CHECK-NEXT: %[[S2:[a-z0-9_]+]] = sched.mul %[[S1]], %[[M]]
// CHECK-NEXT: sched.segment arena[%[[S2]], %[[M]]]
// CHECK: sched.segment dst recvbuf[%{{[a-z0-9_]+}}, %[[M]]]
// CHECK: sched.for %[[KS:[a-z0-9_]+]] = %[[ONE]] to %[[N]] {
// CHECK-NEXT: %[[L0:[a-z0-9_]+]] = sched.sub %[[NODE]], %[[KS]]
// CHECK-NEXT: %[[LA:[a-z0-9_]+]] = sched.mod %[[L0]], %[[N]]
// CHECK-NEXT: %[[LCTR:[a-z0-9_]+]] = sched.add %[[ONE]], %[[LA]]
// CHECK-NEXT: sched.await %[[LCTR]] signal @landed[%[[LA]]]
// CHECK-NEXT: %[[O0:[a-z0-9_]+]] = sched.mul %[[LA]], %[[C]]
// CHECK-NEXT: %[[O1:[a-z0-9_]+]] = sched.add %[[O0]], %[[ME]]
// CHECK-NEXT: %[[O2:[a-z0-9_]+]] = sched.mul %[[O1]], %[[C]]
// CHECK: %[[OUTA:[a-z0-9_]+]] = sched.add %[[ROWS]], %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.copy arena[%[[OUTA]]] to wait @landed[%[[LA]]] {
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %[[ZERO]] to %[[C]] {
// CHECK: sched.segment dst recvbuf[%{{[a-z0-9_]+}}, %[[M]]]
// No message in the arrivals or scatter stages either.
// CHECK-NOT: sched.send
// CHECK-NOT: sched.recv
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_2x2 {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-leader">, min_bytes = 4096 : i64}

// -----

// A second size, 3 nodes of 3 cores (9 ranks), on a ring: N is the one
// extent. A given fifo_depth reaches the exchange FIFO, and only it.
// CHECK-LABEL: sched.plan @alltoall_3x3_depth
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 4, recv_depth = 4>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>]
// CHECK: %[[X:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NOT: sched.dim
// CHECK: sched.phase "exchange" fifo(1) {
// CHECK: sched.for %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}} to %[[N]] {
coll.alltoall @alltoall_3x3_depth {topology = #coll.topology<shape = [3], wrap = [true], ranks_per_node = 3, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-leader", {fifo_depth = 4}>, min_bytes = 8 : i64}

// -----

// Other algorithms are left to their own lowering, even the SMP ones.
// CHECK-LABEL: coll.alltoall @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
coll.alltoall @direct {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}
// CHECK-LABEL: coll.alltoall @planned
// CHECK-SAME: algorithm = #coll.algorithm<"planned", {fifo_depth = 16 : i64}>
coll.alltoall @planned {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"planned">}

// -----

// The lowering handles alltoall only: the dialect's table (CollAlgorithms.def)
// refuses smp-leader on alltoallv, so no alltoallv can reach it unlowered.
// expected-error @+1 {{'coll.alltoallv' op (C2) algorithm 'smp-leader' is not one of auto, direct, balanced, smp-all-cores, planned, vmesh, two-phase, dim-rings}}
coll.alltoallv @alltoallv {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-leader">}

// -----

// It takes no block size: the only parameter is the exchange's depth.
// expected-error @+1 {{(A2) algorithm smp-leader takes no option 'block_bytes'}}
coll.alltoall @block_bytes {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-leader", {block_bytes = 4}>}

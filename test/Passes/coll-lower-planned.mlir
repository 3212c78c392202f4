// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks on 2x2 nodes of 2 cores, 6 ranks on 3 nodes of
// 2 cores, 4 ranks on 4 nodes of 1 core) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics --coll-select-algorithm --coll-lower-planned --sched-verify=max-ranks=8 | FileCheck %s
// Without coll-select-algorithm the lowering finds no fifo_depth on the op,
// decides none itself, and fails naming it.
// RUN: not %collc-opt %s -split-input-file --coll-lower-planned 2>&1 >/dev/null | FileCheck %s --check-prefix=UNDECIDED
// UNDECIDED: error: the planned lowering reads its parameters from the op, and fifo_depth is not decided: run coll-select-algorithm first
// UNDECIDED-NEXT: coll.alltoall @alltoall_2x2

// Seed 004 on 2x2 nodes of 2 cores: four FIFOs (collect, exchange,
// distribute, local) at the selected depth (the default, 16), all receives
// posted; events for the arena copies and the exchange arrivals.
// CHECK-LABEL: sched.plan @alltoall_2x2
// CHECK-SAME: algorithm = "planned", {{.*}}collective = "alltoall", events = ["collected", "exchanged"], fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>, #sched.fifo<send_depth = 16, recv_depth = 0>]
// CHECK: %[[ZERO:[a-z0-9_]+]] = sched.const 0
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = sched.const 1
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = sched.ranks_per_node
// N is the product of the topology's extents (not P / C), so that the plan
// runs on exactly N·C ranks. Rank r is core me = r mod C of node A = r / C.
// CHECK: %[[X:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[NX:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = sched.dim 1
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = sched.mul %[[NX]], %[[Y]]
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = sched.floordiv %[[R]], %[[C]]
// CHECK-NEXT: %[[ME:[a-z0-9_]+]] = sched.mod %[[R]], %[[C]]
// The plan, at bind: for every other node B, a rank PUTs to the core of B
// that receives its node's message (B·C + A mod C) the bytes it sends to B
// (table 2) and to each rank of B (table 0), and table 0 also to the agent
// core of its own node that carries B (A·C + B mod C), unless that is itself.
// CHECK-NEXT: sched.exchange {
// CHECK-NEXT: sched.for %[[B:[a-z0-9_]+]] = %[[ZERO]] to %[[N]] {
// CHECK-NEXT: %[[OTHER:[a-z0-9_]+]] = sched.ne %[[B]], %[[A]]
// CHECK-NEXT: sched.if %[[OTHER]] {
// CHECK-NEXT: %[[AG0:[a-z0-9_]+]] = sched.mod %[[B]], %[[C]]
// CHECK-NEXT: %[[AG1:[a-z0-9_]+]] = sched.mul %[[A]], %[[C]]
// CHECK-NEXT: %[[AGENT:[a-z0-9_]+]] = sched.add %[[AG1]], %[[AG0]]
// CHECK-NEXT: %[[RV0:[a-z0-9_]+]] = sched.mod %[[A]], %[[C]]
// CHECK-NEXT: %[[RV1:[a-z0-9_]+]] = sched.mul %[[B]], %[[C]]
// CHECK-NEXT: %[[RECEIVER:[a-z0-9_]+]] = sched.add %[[RV1]], %[[RV0]]
// CHECK: sched.put table 2[%[[ZERO]]] = %{{[a-z0-9_]+}} to %[[RECEIVER]]
// CHECK: %[[D:[a-z0-9_]+]] = sched.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}
// CHECK-NEXT: %[[NBYTES:[a-z0-9_]+]] = sched.count sendcount[%[[D]]]
// CHECK-NEXT: sched.put table 0[%[[D]]] = %[[NBYTES]] to %[[RECEIVER]]
// CHECK-NEXT: %[[NOTME:[a-z0-9_]+]] = sched.ne %[[AGENT]], %[[R]]
// CHECK-NEXT: sched.if %[[NOTME]] {
// CHECK-NEXT: sched.put table 0[%[[D]]] = %[[NBYTES]] to %[[AGENT]]
// Table 1 [a·C + me], to every core of the node: the bytes this core
// collects for agent a, the arena's layout.
// CHECK: sched.exchange {
// CHECK-NEXT: sched.for %[[AGT:[a-z0-9_]+]] = %[[ZERO]] to %[[C]] {
// CHECK: %[[T1A:[a-z0-9_]+]] = sched.mul %[[AGT]], %[[C]]
// CHECK-NEXT: %[[T1I:[a-z0-9_]+]] = sched.add %[[T1A]], %[[ME]]
// CHECK-NEXT: sched.put table 1[%[[T1I]]] = %{{[a-z0-9_]+}} to %{{[a-z0-9_]+}}
// The receiving core's exchange stage is the scratch; the arena holds every
// agent's regions (table 1's C·C entries), with one counter.
// CHECK: sched.scratch %{{[a-z0-9_]+}}
// CHECK-NEXT: %[[CC:[a-z0-9_]+]] = sched.mul %[[C]], %[[C]]
// CHECK-NEXT: %[[ARENA:[a-z0-9_]+]] = sched.table_sum 1[%[[ZERO]], %[[CC]])
// CHECK-NEXT: sched.arena %[[ARENA]] counters %[[ONE]]
// Collect (FIFO 0): for each other core a of the node (the agent), this
// core copies its blocks for every rank of the nodes a carries (B != A,
// B mod C = a) into a's region, at table 1's prefix sum; a zero-length copy
// signals too (with one core per node it is the only one); the NOTIFY
// joins the copies in and the AWAIT waits for the whole node's.
// CHECK: sched.phase "collect" fifo(0) {
// CHECK-NEXT: sched.for %[[KC:[a-z0-9_]+]] = %[[ONE]] to %[[C]] {
// CHECK-NEXT: %[[CA0:[a-z0-9_]+]] = sched.add %[[ME]], %[[KC]]
// CHECK-NEXT: %[[CA:[a-z0-9_]+]] = sched.mod %[[CA0]], %[[C]]
// CHECK-NEXT: %[[CR0:[a-z0-9_]+]] = sched.mul %[[CA]], %[[C]]
// CHECK-NEXT: %[[CR1:[a-z0-9_]+]] = sched.add %[[CR0]], %[[ME]]
// CHECK-NEXT: %[[REGION:[a-z0-9_]+]] = sched.table_sum 1[%[[ZERO]], %[[CR1]])
// CHECK-NEXT: sched.copy to arena[%[[REGION]]] signal @collected[%[[ZERO]]] {
// CHECK-NEXT: sched.for %[[CB:[a-z0-9_]+]] = %[[ZERO]] to %[[N]] {
// CHECK-NEXT: %[[CB0:[a-z0-9_]+]] = sched.mod %[[CB]], %[[C]]
// CHECK-NEXT: %[[CB1:[a-z0-9_]+]] = sched.eq %[[CB0]], %[[CA]]
// CHECK-NEXT: %[[CB2:[a-z0-9_]+]] = sched.ne %[[CB]], %[[A]]
// CHECK-NEXT: %[[CARRIED:[a-z0-9_]+]] = sched.and %[[CB2]], %[[CB1]]
// CHECK-NEXT: sched.if %[[CARRIED]] {
// CHECK: sched.segment sendbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}]
// CHECK: sched.copy sendbuf[%[[ZERO]]] to recvbuf[%[[ZERO]]] len %[[ZERO]] signal @collected[%[[ZERO]]]
// CHECK-NEXT: sched.notify %[[ZERO]] wait @collected[%[[ZERO]]]
// CHECK-NEXT: sched.await %[[ZERO]] signal @collected[%[[ONE]]]
// The collect stage goes through memory: no message.
// CHECK-NOT: sched.send
// CHECK-NOT: sched.recv
// Exchange (FIFO 1): ONE message per ordered node pair. The agent core
// (B mod C = me) sends node B's core A mod C all C·C blocks from A's cores
// to B's: its own from the send buffer, the others' out of the arena once
// the node's copies are in (@collected[1]), each of table 0's length.
// CHECK: sched.phase "exchange" fifo(1) {
// CHECK-NEXT: sched.for %[[KX:[a-z0-9_]+]] = %[[ONE]] to %[[N]] {
// CHECK-NEXT: %[[XB0:[a-z0-9_]+]] = sched.add %[[A]], %[[KX]]
// CHECK-NEXT: %[[XB:[a-z0-9_]+]] = sched.mod %[[XB0]], %[[N]]
// CHECK-NEXT: %[[XB1:[a-z0-9_]+]] = sched.mod %[[XB]], %[[C]]
// CHECK-NEXT: %[[XAGENT:[a-z0-9_]+]] = sched.eq %[[XB1]], %[[ME]]
// CHECK-NEXT: sched.if %[[XAGENT]] {
// CHECK-NEXT: %[[XT0:[a-z0-9_]+]] = sched.mod %[[A]], %[[C]]
// CHECK-NEXT: %[[XT1:[a-z0-9_]+]] = sched.mul %[[XB]], %[[C]]
// CHECK-NEXT: %[[XTO:[a-z0-9_]+]] = sched.add %[[XT1]], %[[XT0]]
// CHECK-NEXT: sched.send to %[[XTO]] tag %[[ZERO]] {
// CHECK-NEXT: sched.for %[[XC:[a-z0-9_]+]] = %[[ZERO]] to %[[C]] {
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %[[ZERO]] to %[[C]] {
// CHECK: %[[XMINE:[a-z0-9_]+]] = sched.eq %[[XC]], %[[ME]]
// CHECK-NEXT: sched.if %[[XMINE]] {
// CHECK: sched.segment sendbuf[
// CHECK: %[[XOTHER:[a-z0-9_]+]] = sched.ne %[[XC]], %[[ME]]
// CHECK-NEXT: sched.if %[[XOTHER]] {
// CHECK-NEXT: sched.after @collected[%[[ONE]]]
// CHECK: %[[XLEN:[a-z0-9_]+]] = sched.table 0[
// CHECK: sched.segment arena[%{{[a-z0-9_]+}}, %[[XLEN]]]
// The core of this node that receives node A2's message (A2 mod C = me)
// stages it in the scratch and signals @exchanged[A2].
// CHECK: sched.for %[[KR:[a-z0-9_]+]] = %[[ONE]] to %[[N]] {
// CHECK-NEXT: %[[RA0:[a-z0-9_]+]] = sched.sub %[[A]], %[[KR]]
// CHECK-NEXT: %[[A2:[a-z0-9_]+]] = sched.mod %[[RA0]], %[[N]]
// CHECK-NEXT: %[[RA1:[a-z0-9_]+]] = sched.mod %[[A2]], %[[C]]
// CHECK-NEXT: %[[RMINE:[a-z0-9_]+]] = sched.eq %[[RA1]], %[[ME]]
// CHECK-NEXT: sched.if %[[RMINE]] {
// CHECK-NEXT: %[[RF0:[a-z0-9_]+]] = sched.mod %[[A]], %[[C]]
// CHECK-NEXT: %[[RF1:[a-z0-9_]+]] = sched.mul %[[A2]], %[[C]]
// CHECK-NEXT: %[[RFROM:[a-z0-9_]+]] = sched.add %[[RF1]], %[[RF0]]
// CHECK-NEXT: sched.recv from %[[RFROM]] tag %[[ZERO]] signal @exchanged[%[[A2]]] {
// CHECK: sched.segment scratch[
// Distribute (FIFO 2): to each other core of the node, one message with its
// blocks from every node this core received, each after its @exchanged;
// from each, one message into the receive buffer; this core's own staged
// blocks are one copy.
// CHECK: sched.phase "distribute" fifo(2) {
// CHECK-NEXT: sched.for %[[KD:[a-z0-9_]+]] = %[[ONE]] to %[[C]] {
// CHECK-NEXT: %[[DT0:[a-z0-9_]+]] = sched.add %[[ME]], %[[KD]]
// CHECK-NEXT: %[[DTO:[a-z0-9_]+]] = sched.mod %[[DT0]], %[[C]]
// CHECK-NEXT: %[[DF0:[a-z0-9_]+]] = sched.sub %[[ME]], %[[KD]]
// CHECK-NEXT: %[[DFROM:[a-z0-9_]+]] = sched.mod %[[DF0]], %[[C]]
// CHECK-NEXT: %[[DN0:[a-z0-9_]+]] = sched.mul %[[A]], %[[C]]
// CHECK-NEXT: %[[DTORANK:[a-z0-9_]+]] = sched.add %[[DN0]], %[[DTO]]
// CHECK-NEXT: sched.send to %[[DTORANK]] tag %[[ZERO]] {
// CHECK-NEXT: sched.for %[[DA2:[a-z0-9_]+]] = %[[ZERO]] to %[[N]] {
// CHECK: sched.after @exchanged[%[[DA2]]]
// CHECK: sched.segment scratch[
// CHECK: %[[DN1:[a-z0-9_]+]] = sched.mul %[[A]], %[[C]]
// CHECK-NEXT: %[[DFROMRANK:[a-z0-9_]+]] = sched.add %[[DN1]], %[[DFROM]]
// CHECK-NEXT: sched.recv from %[[DFROMRANK]] tag %[[ZERO]] {
// CHECK: sched.segment recvbuf[
// CHECK: sched.copy to {
// CHECK: sched.after @exchanged[
// CHECK: sched.segment scratch[
// CHECK: sched.segment dst recvbuf[
// Local (FIFO 3): the rank's own block is a copy, and blocks between the
// cores of one node go directly, one message each way per other core.
// CHECK: sched.phase "local" fifo(3) {
// CHECK: sched.copy sendbuf[%{{[a-z0-9_]+}}] to recvbuf[%{{[a-z0-9_]+}}] len %{{[a-z0-9_]+}}
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %[[ONE]] to %[[C]] {
// CHECK: sched.send sendbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] to %{{[a-z0-9_]+}} tag %[[ZERO]]{{$}}
// CHECK: sched.recv recvbuf[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] from %{{[a-z0-9_]+}} tag %[[ZERO]]{{$}}
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_2x2 {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"planned">, min_bytes = 8 : i64}

// -----

// alltoallv is the same plan (alltoall is the alltoallv whose counts are
// equal), at a second size: 3 nodes of 2 cores, where N is not a multiple
// of C (agent 0 carries one node, agent 1 the other). A given fifo_depth
// reaches all four FIFOs.
// CHECK-LABEL: sched.plan @alltoallv_3x2_depth
// CHECK-SAME: algorithm = "planned", {{.*}}collective = "alltoallv", events = ["collected", "exchanged"], fifos = [#sched.fifo<send_depth = 8, recv_depth = 0>, #sched.fifo<send_depth = 8, recv_depth = 0>, #sched.fifo<send_depth = 8, recv_depth = 0>, #sched.fifo<send_depth = 8, recv_depth = 0>]
// CHECK: %[[X:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NOT: sched.dim
// CHECK: sched.exchange {
// CHECK: sched.exchange {
// CHECK: sched.phase "collect" fifo(0) {
// CHECK: sched.phase "exchange" fifo(1) {
// CHECK: sched.phase "distribute" fifo(2) {
// CHECK: sched.phase "local" fifo(3) {
// CHECK-NOT: coll.alltoallv
coll.alltoallv @alltoallv_3x2_depth {topology = #coll.topology<shape = [3], wrap = [true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"planned", {fifo_depth = 8}>}

// -----

// One core per node (4 nodes): no agent but the rank itself, so the collect
// loop copies nothing and the zero-length copy alone signals @collected[0]
// for the NOTIFY; the plan still verifies (no deadlock on the counter).
// CHECK-LABEL: sched.plan @alltoall_one_core
// CHECK: sched.phase "collect" fifo(0) {
// CHECK: sched.copy sendbuf[%[[Z:[a-z0-9_]+]]] to recvbuf[%[[Z]]] len %[[Z]] signal @collected[%[[Z]]]
// CHECK-NEXT: sched.notify %[[Z]] wait @collected[%[[Z]]]
coll.alltoall @alltoall_one_core {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"planned">, min_bytes = 8 : i64}

// -----

// Other algorithms are left to their own lowering, even the SMP ones.
// CHECK-LABEL: coll.alltoall @smp_leader
// CHECK-SAME: algorithm = #coll.algorithm<"smp-leader", {fifo_depth = 16 : i64}>
coll.alltoall @smp_leader {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-leader">}
// CHECK-LABEL: coll.alltoallv @smp_all_cores
// CHECK-SAME: algorithm = #coll.algorithm<"smp-all-cores"
coll.alltoallv @smp_all_cores {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"smp-all-cores">}

// -----

// The lowering handles alltoall and alltoallv only: the dialect's table
// (CollAlgorithms.def) refuses planned on allgatherv, so no allgatherv can
// reach it unlowered.
// expected-error @+1 {{'coll.allgatherv' op (C2) algorithm 'planned' is not one of auto, direct, blocked-ring, smp-blocked-ring}}
coll.allgatherv @allgatherv {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"planned">}

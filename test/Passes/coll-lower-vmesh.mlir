// The lowered schedules must also pass the simulator (sched-verify), at
// their exact size (8 ranks) and on their smaller shapes.
// RUN: %collc-opt %s -split-input-file --coll-select-algorithm --coll-lower-vmesh --sched-verify=max-ranks=8 | FileCheck %s

// Rows on the x lines of a 4x2 torus (`mesh`: x whole, y cut into 2): a
// Pvx x Pvy mesh of consecutive ranks, Pvx = cores x n_x, Pvy = n_y, rank r
// at column r mod Pvx of row r / Pvx. Both are expressions of the topology,
// so the verifier's smaller instances get a mesh of their own shape.
// CHECK-LABEL: sched.plan @alltoall_rows
// CHECK-SAME: algorithm = "vmesh", {{.*}}collective = "alltoall", events = ["row"], fifos = [#sched.fifo<send_depth = 64, recv_depth = 64>, #sched.fifo<send_depth = 64, recv_depth = 64>]
// CHECK: %[[CORES:[a-z0-9_]+]] = sched.ranks_per_node
// CHECK-NEXT: %[[NX:[a-z0-9_]+]] = sched.dim 0
// CHECK-NEXT: %[[PVX:[a-z0-9_]+]] = sched.mul %[[CORES]], %[[NX]]
// CHECK: %[[NY:[a-z0-9_]+]] = sched.dim 1
// CHECK-NEXT: %[[PVY:[a-z0-9_]+]] = sched.mul %{{[a-z0-9_]+}}, %[[NY]]
// CHECK-NEXT: %[[COL:[a-z0-9_]+]] = sched.mod %rank, %[[PVX]]
// CHECK-NEXT: %[[ROW:[a-z0-9_]+]] = sched.floordiv %rank, %[[PVX]]
// Row phase (FIFO 0): one message per row peer, gathering the rank's
// blocks for every rank of that peer's column. Of an arrival, the block for
// this rank lands in the receive buffer and the others are staged.
// CHECK: sched.phase "row" fifo(0) {
// CHECK: sched.copy sendbuf[%{{[a-z0-9_]+}}] to recvbuf[%{{[a-z0-9_]+}}] len
// CHECK-NEXT: sched.for %k = %c1 to %[[PVX]] {
// CHECK: sched.send to %{{[a-z0-9_]+}} tag %c0 {
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %c0 to %[[PVY]] {
// CHECK: sched.segment sendbuf[
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %c0 signal @row[%{{[a-z0-9_]+}}] {
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %c0 to %[[PVY]] {
// CHECK: sched.segment recvbuf[
// CHECK: sched.segment scratch[
// Column phase (FIFO 1): one message per column peer, gathering the rank's
// own block for it and the blocks staged from every row peer. Each staged
// block waits only for the row message that brought it.
// CHECK: sched.phase "column" fifo(1) {
// CHECK-NEXT: sched.for %k = %c1 to %[[PVY]] {
// CHECK: sched.send to %{{[a-z0-9_]+}} tag %c0 {
// CHECK-NEXT: sched.for %[[SRC:[a-z0-9_]+]] = %c0 to %[[PVX]] {
// CHECK: sched.segment sendbuf[
// CHECK: sched.after @row[%[[SRC]]]
// CHECK: sched.segment scratch[
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %c0 {
// CHECK-NEXT: sched.for %{{[a-z0-9_]+}} = %c0 to %[[PVX]] {
// CHECK: sched.segment recvbuf[
// CHECK-NOT: coll.alltoall
coll.alltoall @alltoall_rows {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"vmesh", {mesh = array<i64: 1, 2>}>, min_bytes = 8 : i64}

// -----

// Rows with x cut in halves (`mesh`: x in 2 parts, y whole) are not
// consecutive ranks: the column and row are digits of the rank's
// coordinates, and a mesh position maps back to a rank through rank_at. A
// part count that does not divide a smaller extent keeps the whole extent.
// CHECK-LABEL: sched.plan @alltoall_blocks
// CHECK: %[[NX:[a-z0-9_]+]] = sched.dim 0
// CHECK: %[[HALF:[a-z0-9_]+]] = sched.floordiv %[[NX]], %c2
// CHECK: %[[SEG:[a-z0-9_]+]] = sched.select %{{[a-z0-9_]+}}, %[[HALF]], %[[NX]]
// CHECK: sched.coord %rank[
// CHECK: sched.phase "row" fifo(0) {
// CHECK: %[[PEER:[a-z0-9_]+]] = sched.rank_at(
// CHECK: sched.send to %[[PEER]] tag %c0 {
// CHECK: sched.phase "column" fifo(1) {
// CHECK: sched.rank_at(
coll.alltoall @alltoall_blocks {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"vmesh", {mesh = array<i64: 2, 1>}>, min_bytes = 8 : i64}

// -----

// One row per node (every dimension cut into single coordinates): the row
// phase is the exchange among a node's cores, and the column phase runs one
// inter-node exchange per core (seed 002's all-cores schedule).
// CHECK-LABEL: sched.plan @alltoall_cores
// CHECK: %[[CORES:[a-z0-9_]+]] = sched.ranks_per_node
// CHECK: sched.mod %rank, %[[CORES]]
// CHECK-NEXT: sched.floordiv %rank, %[[CORES]]
// CHECK: sched.phase "row" fifo(0) {
// CHECK: sched.for %k = %c1 to %[[CORES]] {
coll.alltoall @alltoall_cores {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"vmesh", {mesh = array<i64: 2, 2>}>, min_bytes = 8 : i64}

// -----

// alltoallv: every rank PUTs to each row peer the total it will stage there
// (table 1) and the length of each block for that peer's column (table 0).
// The scratch is the sum of the totals, and a staged block's length is
// read from table 0.
// CHECK-LABEL: sched.plan @alltoallv_rows
// CHECK-SAME: algorithm = "vmesh", {{.*}}collective = "alltoallv", events = ["row"]
// CHECK: sched.exchange {
// CHECK: sched.put table 1[%c0] = %{{[a-z0-9_]+}} to
// CHECK: sched.put table 0[
// CHECK: %[[TOTAL:[a-z0-9_]+]] = sched.sum %t = %c0 to %{{[a-z0-9_]+}} {
// CHECK: sched.table 1[
// CHECK: sched.scratch %[[TOTAL]]
// CHECK: sched.phase "row" fifo(0) {
// CHECK: sched.recv from %{{[a-z0-9_]+}} tag %c0 signal @row[
// CHECK: %[[LEN:[a-z0-9_]+]] = sched.table 0[
// CHECK: sched.segment scratch[%{{[a-z0-9_]+}}, %[[LEN]]]
// CHECK: sched.phase "column" fifo(1) {
// CHECK: sched.after @row[
// CHECK: %[[CLEN:[a-z0-9_]+]] = sched.table 0[
// CHECK: sched.segment scratch[%{{[a-z0-9_]+}}, %[[CLEN]]]
coll.alltoallv @alltoallv_rows {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"vmesh", {mesh = array<i64: 1, 2>}>, min_bytes = 8 : i64}

// -----

// Other algorithms are left to their own lowering.
// CHECK-LABEL: coll.alltoall @direct
// CHECK-SAME: algorithm = #coll.algorithm<"direct", {fifo_depth = 16 : i64, order = "shift"}>
coll.alltoall @direct {topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"direct">}

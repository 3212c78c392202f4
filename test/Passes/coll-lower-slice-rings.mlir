// Seed 003's node-team allreduce: the fold through the node arena, the
// parts' reduce-scatter and allgather over the rings, the spread back
// through the arena. sched-verify simulates every rank of each plan on its
// shape and on the smaller ones of the same dimensionality (up to 64 ranks),
// proving every output element combines every rank's contribution once.
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-slice-rings --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-slice-rings --sched-verify=max-ranks=64 -o /dev/null

// A 2x2 torus of 2-rank nodes: four parts (two dimension orders, each both
// ways round), each on its own FIFO between the fold's and the spread's;
// arena counters 0..3 for the parts' folds, 4..7 for their spreads.
// CHECK-LABEL: sched.plan @slices_torus
// CHECK-SAME: algorithm = "slice-rings"
// CHECK-SAME: events = ["in", "all", "folded", "got", "red", "sent", "gathered", "done", "out", "back"]
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 4, recv_depth = 8>, #sched.fifo<send_depth = 4, recv_depth = 8>, #sched.fifo<send_depth = 4, recv_depth = 8>, #sched.fifo<send_depth = 4, recv_depth = 8>, #sched.fifo<send_depth = 1, recv_depth = 0>]
// CHECK: sched.arena %{{[0-9]+}} counters %c8
// Fold, part by part: the part's contribution into the rank's arena row,
// counter q, then the slice of rows 0, 1, ... combined in that order into
// the receive buffer.
// CHECK: sched.phase "fold" fifo(0)
// CHECK-NEXT: sched.for %[[Q:k]] = %c0 to %c4
// CHECK: sched.copy sendbuf[{{.*}}] to arena[{{.*}} signal @in[%[[Q]]]
// CHECK-NEXT: sched.notify %[[Q]] wait @in[%[[Q]]]
// CHECK-NEXT: sched.await %[[Q]] signal @all[%[[Q]]]
// CHECK: sched.copy arena[%[[S:[0-9]+]]] to recvbuf[%[[S]]] len %[[L:[0-9]+]] wait @all[%[[Q]]] signal @folded[%[[Q]], %c0]
// CHECK: sched.for %[[ROW:k_0]] = %c1 to %c2
// CHECK: sched.reduce "sum" "double" arena[{{.*}}] to recvbuf[%[[S]]] len %[[L]] wait @folded[%[[Q]], {{.*}}] signal @folded[%[[Q]], %[[ROW]]]
// The parts: one phase loop, part q on FIFO 1 + q. A zero-length COPY marks
// each stage's start, standing for the combination of block v (which its
// stage never combines): after the fold, or the previous stage's own block.
// CHECK: sched.for %[[Q:k]] = %c0 to %c4
// CHECK: sched.phase "parts" fifo(1 + %[[Q]])
// CHECK: sched.copy recvbuf[%c0] to recvbuf[%c0] len %c0 wait @folded[%[[Q]], %c1] signal @red[%[[ID0:[0-9]+]], %[[V0:[0-9]+]]]
// A reduce-scatter step sends the block combined at the step before and
// combines the arrival into the receive buffer, the partial held the left
// operand, once the stage's range is ready.
// CHECK: sched.for %[[S:k_0]] = %c0 to %[[N0:[0-9]+]]
// CHECK: sched.send recvbuf[{{.*}}] to %[[NEXT:[0-9]+]] tag %c0 wait @red[%[[ID0]], %[[B:[0-9]+]]] signal @sent[%[[ID0]], %[[B]]]
// CHECK: sched.recv scratch[{{.*}}] from %[[PREV:[0-9]+]] tag %c0 signal @got[%[[ID0]], %[[G:[0-9]+]]]
// CHECK: sched.reduce "sum" "double" scratch[{{.*}}] to recvbuf[{{.*}} wait @got[%[[ID0]], %[[G]]] signal @red[%[[ID0]], %[[G]]]
// CHECK-NEXT: sched.after @red[%[[ID0]], %[[V0]]]
// The next dimension's ring starts on the block this rank completed.
// CHECK: sched.copy recvbuf[%c0] to recvbuf[%c0] len %c0 wait @red[%[[ID0]], %[[OWN0:[0-9]+]]] signal @red[%[[ID1:[0-9]+]], %{{[0-9]+}}]
// CHECK: tag %c2 wait @red[%[[ID1]],
// Allgather, innermost stage first: its own block stands complete, every
// send forwards an arrival (or the own block), and each receive waits
// until the reduce-scatter sent the bytes it replaces.
// CHECK: sched.copy recvbuf[%c0] to recvbuf[%c0] len %c0 wait @red[%[[ID1]], %[[OWN1:[0-9]+]]] signal @gathered[%[[ID1]], %[[OWN1]]]
// CHECK: sched.for
// CHECK: sched.send recvbuf[{{.*}} tag %c3 wait @gathered[%[[ID1]],
// CHECK: sched.recv recvbuf[{{.*}} tag %c3 wait @sent[%[[ID1]], {{.*}}] signal @gathered[%[[ID1]],
// Once every block of the inner stage is in, the outer stage's own block is.
// CHECK: sched.copy recvbuf[%c0] to recvbuf[%c0] len %c0 wait @gathered[%[[ID1]], %[[OWN1]]] signal @gathered[%[[ID0]], %[[OWN0]]]
// CHECK: sched.for
// CHECK-NEXT: sched.after @gathered[%[[ID1]], %k_0]
// CHECK: sched.send recvbuf[{{.*}}] to %[[NEXT]] tag %c1 wait @gathered[%[[ID0]],
// CHECK: sched.recv recvbuf[{{.*}}] from %[[PREV]] tag %c1 wait @sent[%[[ID0]], {{.*}}] signal @gathered[%[[ID0]],
// CHECK: sched.copy recvbuf[%c0] to recvbuf[%c0] len %c0 wait @gathered[%[[ID0]], %[[OWN0]]] signal @done[%[[Q]]]
// Spread, part by part: the finished slice into the arena once the part's
// rings are done, counter Q + q, then the part's other slices out of it.
// CHECK: sched.phase "spread" fifo(5)
// CHECK-NEXT: sched.for %[[Q:k]] = %c0 to %c4
// CHECK: sched.copy recvbuf[%[[S:[0-9]+]]] to arena[%[[S]]] len %{{[0-9]+}} wait @done[%[[Q]]] signal @out[%[[Q]]]
// CHECK: sched.notify %[[C:[0-9]+]] wait @out[%[[Q]]]
// CHECK-NEXT: sched.await %[[C]] signal @back[%[[Q]]]
// CHECK: sched.copy arena[%[[P:[0-9]+]]] to recvbuf[%[[P]]] len {{.*}} wait @back[%[[Q]]]
// CHECK: sched.copy arena[{{.*}}] to recvbuf[{{.*}} wait @back[%[[Q]]]
coll.allreduce @slices_torus {topology = #coll.topology<shape = [2, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 3000000, beta_ps = 2500, gamma_ps = 500>, algorithm = #coll.algorithm<"slice-rings">, datatype = "double"}

// One rank per node: no arena, the fold a copy, no spread; a 3x3 torus has
// odd rings, and blocks of some counts are empty.
// CHECK-LABEL: sched.plan @slices_one_per_node
// CHECK-NOT: sched.arena
// CHECK: sched.phase "fold" fifo(0)
// CHECK-NEXT: sched.for %[[Q:k]] = %c0 to %c4
// CHECK: sched.copy sendbuf[%[[P:[0-9]+]]] to recvbuf[%[[P]]] len %{{[0-9]+}} signal @folded[%[[Q]], %c0]
// CHECK-NOT: sched.phase "spread"
coll.allreduce @slices_one_per_node {topology = #coll.topology<shape = [3, 3], wrap = [true, true], ranks_per_node = 1, alpha_ps = 3000000, beta_ps = 2500, gamma_ps = 500>, algorithm = #coll.algorithm<"slice-rings">, datatype = "int"}

// Behind a switch: one part, one ring over the nodes (rank node·C + l).
// CHECK-LABEL: sched.plan @slices_switch
// CHECK: sched.phase "parts" fifo(1 + %k)
// CHECK-NOT: sched.coord
// CHECK: sched.phase "spread" fifo(2)
// CHECK-NEXT: sched.for %{{.*}} = %c0 to %c1
coll.allreduce @slices_switch {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 2, alpha_ps = 2500000, beta_ps = 500, gamma_ps = 200, switched = true>, algorithm = #coll.algorithm<"slice-rings">, datatype = "double"}

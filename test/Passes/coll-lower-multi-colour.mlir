// The multi-colour broadcast: one piece of the message per colour (a link
// direction of the torus), each pipelined in chunks down its own rectangle
// tree, the colour's handler on each node forwarding to its tree children
// and to the node's other ranks. A 3x2 torus with 2 ranks a node has four
// colour slots (x+, x−, y+, y−), of which y− carries nothing (a ring of 2
// has one direction); the simulator proves every rank receives rank 0's
// bytes on this shape and on every smaller one with extents 1 to 3.
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-multi-colour --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-multi-colour --sched-verify=max-ranks=64 -o /dev/null

// One FIFO and one event per colour slot, 16 sends in flight.
// CHECK-LABEL: sched.plan @bcast_colours
// CHECK-SAME: algorithm = "multi-colour"
// CHECK-SAME: collective = "bcast", events = ["arrived0", "arrived1", "arrived2", "arrived3"], fifos = [#sched.fifo<send_depth = 16, recv_depth = 32>, #sched.fifo<send_depth = 16, recv_depth = 32>, #sched.fifo<send_depth = 16, recv_depth = 32>, #sched.fifo<send_depth = 16, recv_depth = 32>]
// B = max(256, isqrt(α/β · L / (4·H))), α/β = 3000000 / 2500 = 1200.
// CHECK-DAG: %[[C1200:.*]] = sched.const 1200
// CHECK-DAG: %[[RANK:.*]] = sched.rank
// CHECK-DAG: %[[LOCAL:.*]] = sched.mod %[[RANK]], %c2
// Colour 0 (x+): the root sends from its send buffer to its children in x
// and y and to the other rank of its node; a handler elsewhere receives
// from its parent and forwards once the chunk arrived; the node's other
// rank receives from the handler.
// CHECK: sched.phase "colour" fifo(0)
// CHECK: sched.rank_at({{.*}}) local
// CHECK: sched.isqrt
// CHECK: sched.for %k = %c0 to
// CHECK: sched.send sendbuf[{{.*}}] to %{{[0-9]+}} tag %c0{{$}}
// CHECK: sched.send sendbuf[{{.*}}] to %{{[0-9]+}} tag %c0{{$}}
// CHECK: sched.for %k_0 = %c1 to %c2
// CHECK: sched.send sendbuf[{{.*}}] to %{{[0-9]+}} tag %c0{{$}}
// CHECK: sched.recv recvbuf[{{.*}}] from %{{[0-9]+}} tag %c0 signal @arrived0[%k]
// CHECK: sched.send recvbuf[{{.*}}] to %{{[0-9]+}} tag %c0 wait @arrived0[%k]
// CHECK: sched.send recvbuf[{{.*}}] to %{{[0-9]+}} tag %c0 wait @arrived0[%k]
// CHECK: sched.send recvbuf[{{.*}}] to %{{[0-9]+}} tag %c0 wait @arrived0[%k]
// CHECK: sched.recv recvbuf[{{.*}}] from %{{[0-9]+}} tag %c0{{$}}
// The root's own bytes, once, in colour 0's phase.
// CHECK: sched.copy sendbuf[%c0] to recvbuf[%c0]
// CHECK: sched.phase "colour" fifo(1)
// CHECK: signal @arrived1[%k]
// CHECK: sched.phase "colour" fifo(2)
// CHECK: signal @arrived2[%k]
// CHECK: sched.phase "colour" fifo(3)
// CHECK: signal @arrived3[%k]
// CHECK-NOT: sched.copy
coll.bcast @bcast_colours {topology = #coll.topology<shape = [3, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 3000000, beta_ps = 2500, gamma_ps = 500>, algorithm = #coll.algorithm<"multi-colour">}

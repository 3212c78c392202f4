// The multi-colour broadcast: one piece of the message per colour (a link
// direction of the torus), each pipelined in chunks down its own rectangle
// tree. A 3x2 torus of 2-rank nodes has four colour slots (x+, x−, y+, y−),
// of which y− carries nothing (a ring of 2 has one direction); on every
// node the colour's handler receives a chunk into the node arena, forwards
// it to its tree children, NOTIFYs its counter and copies it out, and the
// node's other rank AWAITs the counter and copies it out. With one rank a
// node (3x3) a handler receives into its receive buffer and there is no
// arena. The simulator proves every rank receives rank 0's bytes on these
// shapes and on every smaller one with extents 1 to 3.
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-multi-colour --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-multi-colour --sched-verify=max-ranks=64 -o /dev/null

// One FIFO per colour slot (16 sends in flight), two events per slot.
// CHECK-LABEL: sched.plan @bcast_colours
// CHECK-SAME: algorithm = "multi-colour"
// CHECK-SAME: collective = "bcast", events = ["arrived0", "arrived1", "arrived2", "arrived3", "landed0", "landed1", "landed2", "landed3"], fifos = [#sched.fifo<send_depth = 16, recv_depth = 32>, #sched.fifo<send_depth = 16, recv_depth = 32>, #sched.fifo<send_depth = 16, recv_depth = 32>, #sched.fifo<send_depth = 16, recv_depth = 32>]
// B = max(256, isqrt(α/β · L / (4·H))), α/β = 3000000 / 2500 = 1200;
// the arena holds the message and one counter per chunk of every colour.
// CHECK-DAG: sched.const 1200
// CHECK: sched.isqrt
// CHECK: sched.arena %{{[0-9]+}} counters %{{[0-9]+}}
// Colour 0 (x+): the root sends from its send buffer to its children in x
// and y and stages the chunk for its node; a handler elsewhere receives
// from its parent and forwards once the chunk arrived.
// CHECK: sched.phase "colour" fifo(0)
// CHECK: sched.for %k = %c0 to
// CHECK: sched.send sendbuf[{{.*}}] to %{{[0-9]+}} tag %c0{{$}}
// CHECK: sched.send sendbuf[{{.*}}] to %{{[0-9]+}} tag %c0{{$}}
// CHECK: sched.copy sendbuf[%[[AT:[0-9]+]]] to arena[%[[AT]]] len %[[LEN:[0-9]+]] signal @arrived0[%k]
// CHECK: sched.notify %[[CTR:[0-9]+]] wait @arrived0[%k]
// CHECK: sched.recv arena[%[[AT]], %[[LEN]]] from %{{[0-9]+}} tag %c0 signal @arrived0[%k]
// CHECK: sched.send arena[%[[AT]], %[[LEN]]] to %{{[0-9]+}} tag %c0 wait @arrived0[%k]
// CHECK: sched.send arena[%[[AT]], %[[LEN]]] to %{{[0-9]+}} tag %c0 wait @arrived0[%k]
// CHECK: sched.notify %[[CTR]] wait @arrived0[%k]
// CHECK: sched.copy arena[%[[AT]]] to recvbuf[%[[AT]]] len %[[LEN]] wait @arrived0[%k]
// CHECK: sched.await %[[CTR]] signal @landed0[%k]
// CHECK: sched.copy arena[%[[AT]]] to recvbuf[%[[AT]]] len %[[LEN]] wait @landed0[%k]
// The root's own bytes, once, in colour 0's phase.
// CHECK: sched.copy sendbuf[%c0] to recvbuf[%c0]
// CHECK: sched.phase "colour" fifo(1)
// CHECK: signal @arrived1[%k]
// CHECK: sched.phase "colour" fifo(2)
// CHECK: signal @arrived2[%k]
// CHECK: sched.phase "colour" fifo(3)
// CHECK: signal @arrived3[%k]
// CHECK-NOT: sched.copy sendbuf[%c0]
coll.bcast @bcast_colours {topology = #coll.topology<shape = [3, 2], wrap = [true, true], ranks_per_node = 2, alpha_ps = 3000000, beta_ps = 2500, gamma_ps = 500>, algorithm = #coll.algorithm<"multi-colour">}

// CHECK-LABEL: sched.plan @bcast_colours_one
// CHECK-SAME: events = ["arrived0", "arrived1", "arrived2", "arrived3"]
// CHECK-NOT: sched.arena
// CHECK: sched.phase "colour" fifo(0)
// CHECK: sched.recv recvbuf[{{.*}}] from %{{[0-9]+}} tag %c0 signal @arrived0[%k]
// CHECK: sched.send recvbuf[{{.*}}] to %{{[0-9]+}} tag %c0 wait @arrived0[%k]
// CHECK-NOT: sched.await
coll.bcast @bcast_colours_one {topology = #coll.topology<shape = [3, 3], wrap = [true, true], ranks_per_node = 1, alpha_ps = 3000000, beta_ps = 2500, gamma_ps = 500>, algorithm = #coll.algorithm<"multi-colour">}

// The binomial broadcast from rank 0 on any communicator size: the lowered
// plan, and the simulator's proof that every rank receives rank 0's bytes
// at every size up to 64.
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-binomial --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-binomial --sched-verify=max-ranks=64 -o /dev/null

// low(r), the largest 2^j dividing r, bounds the subtrees; rank 0 sends
// from its send buffer, largest subtree first (j = 30 down to 0), and
// copies its own message last; the others receive from r − low(r) and
// forward once it arrived.
// CHECK-LABEL: sched.plan @bcast
// CHECK-SAME: algorithm = "binomial"
// CHECK-SAME: collective = "bcast", events = ["arrived"]
// CHECK: %[[LOW:[0-9]+]] = sched.sum max %t = %c0 to %c31
// CHECK: sched.for %k = %c0 to %c31
// CHECK: sched.sub %c30, %k
// CHECK: sched.send sendbuf[%c0, %[[N:[0-9]+]]] to %{{[0-9]+}} tag %c0{{$}}
// CHECK: sched.copy sendbuf[%c0] to recvbuf[%c0] len %[[N]]
// CHECK: %[[PARENT:[0-9]+]] = sched.sub %rank, %[[LOW]]
// CHECK-NEXT: sched.recv recvbuf[%c0, %[[N]]] from %[[PARENT]] tag %c0 signal @arrived[%c0]
// CHECK: sched.send recvbuf[%c0, %[[N]]] to %{{[0-9]+}} tag %c0 wait @arrived[%c0]
coll.bcast @bcast {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"binomial">}

// The pipelined chain broadcast on any communicator size: chunks of B bytes
// computed at bind time, each forwarded down the chain once it arrived; the
// simulator proves every rank receives rank 0's bytes at every size up to
// 64 (1000-byte messages travel in 2 to 16 chunks: the floor is 256 B).
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-pipelined-chain --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-pipelined-chain --sched-verify=max-ranks=64 -o /dev/null

// B = max(256, isqrt(α/β · m / max(1, P − 2))), α/β = 1700000 / 6480 = 262.
// CHECK-LABEL: sched.plan @bcast_chain
// CHECK-SAME: algorithm = "pipelined-chain"
// CHECK-SAME: collective = "bcast", events = ["arrived"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 8>]
// CHECK: sched.const 262
// CHECK: sched.isqrt
// CHECK: sched.for %k = %c0 to
// CHECK: sched.send sendbuf[{{.*}}] to %[[NEXT:[0-9]+]] tag %c0{{$}}
// CHECK: sched.recv recvbuf[{{.*}}] from %{{[0-9]+}} tag %c0 signal @arrived[%k]
// CHECK: sched.send recvbuf[{{.*}}] to %[[NEXT]] tag %c0 wait @arrived[%k]
// CHECK: sched.copy sendbuf[%c0] to recvbuf[%c0]
coll.bcast @bcast_chain {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"pipelined-chain">}

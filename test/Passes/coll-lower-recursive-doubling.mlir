// Recursive doubling on any communicator size: the lowered plan, then the
// simulator proves that every rank's receive buffer combines every rank's
// contribution exactly once, at every size up to 64 ranks (the verifier's
// contribution sets are 64 bits), and, above 2^k ranks, with the extra
// ranks folded in first and served last.
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-recursive-doubling --canonicalize --cse | FileCheck %s
// RUN: %collc-opt %s --coll-select-algorithm --coll-lower-recursive-doubling --sched-verify=max-ranks=64 -o /dev/null

// One scratch slot of the message; the reduction is the op's, on every step.
// CHECK-LABEL: sched.plan @allreduce_max_int
// CHECK-SAME: algorithm = "recursive-doubling"
// CHECK-SAME: collective = "allreduce", events = ["folded", "acc", "arrived", "sent", "mixed"]
// CHECK: sched.scratch
// CHECK: sched.phase "allreduce" fifo(0)
// The fold: an even rank below 2·rem sends its contribution to r + 1 and
// receives the result from it last (tag 2); r + 1 combines its own into the
// arrival, so the lower rank's block is the left operand.
// CHECK: sched.send sendbuf[%c0, %[[N:[0-9]+]]] to %{{[0-9]+}} tag %c1
// CHECK-NEXT: sched.recv recvbuf[%c0, %[[N]]] from %{{[0-9]+}} tag %c2
// CHECK: sched.recv recvbuf[%c0, %[[N]]] from %{{[0-9]+}} tag %c1 signal @folded[%c0]
// CHECK-NEXT: sched.reduce "max" "int" sendbuf[%c0] to recvbuf[%c0] len %[[N]] wait @folded[%c0] signal @acc[%c0]
// CHECK: sched.copy sendbuf[%c0] to recvbuf[%c0] len %[[N]] signal @acc[%c0]
// The steps: exchange, then the lower partner combines the arrival into its
// receive buffer; the higher one combines its buffer into the arrival (the
// lower block on the left) and copies it back once its own send is done.
// CHECK: sched.for %k = %c0 to %c31
// CHECK: sched.recv scratch[%c0, %[[N]]] from %[[PEER:[0-9]+]] tag %c0 wait @acc[%k] signal @arrived[%k]
// CHECK-NEXT: sched.send recvbuf[%c0, %[[N]]] to %[[PEER]] tag %c0 wait @acc[%k] signal @sent[%k]
// CHECK: sched.reduce "max" "int" scratch[%c0] to recvbuf[%c0] len %[[N]] wait @arrived[%k] signal @acc[%[[NEXT:[0-9]+]]] {
// CHECK-NEXT: sched.after @sent[%k]
// CHECK: sched.reduce "max" "int" recvbuf[%c0] to scratch[%c0] len %[[N]] wait @arrived[%k] signal @mixed[%k]
// CHECK-NEXT: sched.copy scratch[%c0] to recvbuf[%c0] len %[[N]] wait @mixed[%k] signal @acc[%[[NEXT]]] {
// CHECK-NEXT: sched.after @sent[%k]
// The result to the folded rank, once the last step is in.
// CHECK: sched.send recvbuf[%c0, %[[N]]] to %{{[0-9]+}} tag %c2 wait @acc[%{{[0-9]+}}]
coll.allreduce @allreduce_max_int {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"recursive-doubling">, reduce_op = "max", datatype = "int"}

// The default reduction, sum on double, on SMP nodes (the plan reads no
// topology, so it runs on every communicator size).
// CHECK-LABEL: sched.plan @allreduce_sum_double
// CHECK: sched.reduce "sum" "double"
// CHECK-NOT: sched.coord
coll.allreduce @allreduce_sum_double {topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 2, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>, algorithm = #coll.algorithm<"recursive-doubling">}

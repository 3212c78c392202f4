// RUN: %collc-opt %s --canonicalize | FileCheck %s
// Binary expressions of two constants fold to the value every rank's
// evaluation gives them (collrt_expr_fold, the runtime's own code): floor
// division and modulo round toward minus infinity, comparisons give 0 or 1.
// Where the runtime's evaluation fails (overflow, division by zero) nothing
// folds: the plan keeps the expression and bind reports the error.

// CHECK-LABEL: sched.plan @folds
// CHECK-DAG: %[[M4:.*]] = sched.const -4
// CHECK-DAG: %[[TWO:.*]] = sched.const 2
// CHECK-DAG: %[[ONE:.*]] = sched.const 1
// CHECK-DAG: %[[MAX:.*]] = sched.const 9223372036854775807
// CHECK-DAG: %[[ZERO:.*]] = sched.const 0
// CHECK: sched.phase "p" fifo(0)
// CHECK-NEXT: %[[OVF:.*]] = sched.add %[[MAX]], %[[ONE]]
// CHECK-NEXT: %[[DIV0:.*]] = sched.floordiv %[[ONE]], %[[ZERO]]
// CHECK-NEXT: sched.copy sendbuf[%[[M4]]] to recvbuf[%[[TWO]]] len %[[ONE]]
// CHECK-NEXT: sched.copy sendbuf[%[[OVF]]] to recvbuf[%[[DIV0]]] len %[[ONE]]
sched.plan @folds attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "p" fifo(0) {
    %m7 = sched.const -7
    %two = sched.const 2
    %three = sched.const 3
    %one = sched.const 1
    %zero = sched.const 0
    %max = sched.const 9223372036854775807
    %q = sched.floordiv %m7, %two
    %r = sched.mod %m7, %three
    %lt = sched.lt %m7, %zero
    %ovf = sched.add %max, %one
    %div0 = sched.floordiv %one, %zero
    sched.copy sendbuf[%q] to recvbuf[%r] len %lt
    sched.copy sendbuf[%ovf] to recvbuf[%div0] len %lt
  }
}

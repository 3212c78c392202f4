// The linear bcast of bcast-linear.mlir with a node arena declared: a plan
// whose ranks share their nodes' memory, which a bind may not relabel for
// another root (collrt_bcast_takes_root). Its arena is a byte and a
// counter no step uses; only its presence matters to the tests.
sched.plan @plan attributes {collective = "bcast", algorithm = "custom", events = [], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %bytes = sched.const 1
  %counters = sched.const 1
  sched.arena %bytes counters %counters
  sched.phase "bcast" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %p = sched.size
    %n = sched.count recvcount[%r]
    %root = sched.eq %r, %zero
    sched.if %root {
      sched.copy sendbuf[%zero] to recvbuf[%zero] len %n
      sched.for %k = %one to %p {
        sched.send sendbuf[%zero, %n] to %k tag %zero
      }
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.recv recvbuf[%zero, %n] from %zero tag %zero
    }
  }
}

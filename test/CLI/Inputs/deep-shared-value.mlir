// A hand-written plan whose shared value %z, cheap and used twice, would
// be inlined into an expression 17 stack entries deep: the emitter then
// writes the plan again with every shared value a LET (16 deep), instead
// of failing with "needs more than 16 stack entries" (test/CLI/emit-depth.test).
sched.plan @deep attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %r = sched.rank
  %p = sched.size
  %c0 = sched.const 0
  %c1 = sched.const 1
  %z = sched.mul %r, %c0
  %e1 = sched.add %c0, %z
  %e2 = sched.add %c0, %e1
  %e3 = sched.add %c0, %e2
  %e4 = sched.add %c0, %e3
  %e5 = sched.add %c0, %e4
  %e6 = sched.add %c0, %e5
  %e7 = sched.add %c0, %e6
  %e8 = sched.add %c0, %e7
  %e9 = sched.add %c0, %e8
  %e10 = sched.add %c0, %e9
  %e11 = sched.add %c0, %e10
  %e12 = sched.add %c0, %e11
  %e13 = sched.add %c0, %e12
  %e14 = sched.add %c0, %e13
  %m = sched.count recvcount[%r]
  %len = sched.add %m, %e14
  sched.phase "all" fifo(0) {
    %so = sched.count senddispl[%r]
    %src = sched.add %so, %z
    %ro = sched.count recvdispl[%r]
    sched.copy sendbuf[%src] to recvbuf[%ro] len %len
    sched.for %k = %c1 to %p {
      %rk = sched.add %r, %k
      %to = sched.mod %rk, %p
      %rmk = sched.sub %r, %k
      %rmkp = sched.add %rmk, %p
      %from = sched.mod %rmkp, %p
      %fo = sched.count recvdispl[%from]
      %fl = sched.count recvcount[%from]
      sched.recv recvbuf[%fo, %fl] from %from tag %c0
      %to_o = sched.count senddispl[%to]
      %to_l = sched.count sendcount[%to]
      sched.send sendbuf[%to_o, %to_l] to %to tag %c0
    }
  }
}

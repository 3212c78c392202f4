// A direct alltoall written against the topology: its peer loop runs over
// the nodes of a 4-node ring (sched.dim 0), so the plan fits only a
// communicator of exactly 4 ranks.
sched.plan @exact_size attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %p = sched.dim 0
    %zero = sched.const 0
    %one = sched.const 1
    %own = sched.count recvcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %own
    sched.for %k = %one to %p {
      %a = sched.add %r, %k
      %dst = sched.mod %a, %p
      %s = sched.sub %r, %k
      %src = sched.mod %s, %p
      %roff = sched.count recvdispl[%src]
      %rlen = sched.count recvcount[%src]
      sched.recv recvbuf[%roff, %rlen] from %src tag %zero
      %soff = sched.count senddispl[%dst]
      %slen = sched.count sendcount[%dst]
      sched.send sendbuf[%soff, %slen] to %dst tag %zero
    }
  }
}

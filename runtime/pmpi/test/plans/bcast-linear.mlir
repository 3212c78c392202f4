// A hand-written bcast from rank 0 over any number of ranks, for
// libcollc_pmpi's tests until collc's plan sets hold bcast plans: the root
// copies its data into its own receive buffer (in MPI_Bcast's one buffer,
// the same bytes in place) and sends it to every other rank, which
// receives it.
sched.plan @plan attributes {collective = "bcast", algorithm = "custom", events = [], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
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

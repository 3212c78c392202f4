// A hand-written allreduce over any number of ranks, for libcollc_pmpi's
// tests until collc's plan sets hold allreduce plans: the test fixture
// substitutes OPERATION and ELEMENT (sum on int, sum on double, max on int)
// and compiles each. Rank 0 copies its own contribution into its receive
// buffer, receives every other rank's into a scratch slot and combines
// them in rank order, then sends the result to every rank, so the order of
// combination is ((x0 op x1) op x2) ... on every rank and in every run.
sched.plan @plan attributes {collective = "allreduce", algorithm = "custom", events = ["arrived", "acc"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %c0 = sched.const 0
  %msg = sched.count recvcount[%c0]
  %np = sched.size
  %slots = sched.mul %msg, %np
  sched.scratch %slots
  sched.phase "reduce" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %p = sched.size
    %n = sched.count recvcount[%r]
    %last = sched.sub %p, %one
    %root = sched.eq %r, %zero
    sched.if %root {
      sched.copy sendbuf[%zero] to recvbuf[%zero] len %n signal @acc[%zero]
      sched.for %k = %one to %p {
        %off = sched.mul %k, %n
        sched.recv scratch[%off, %n] from %k tag %zero signal @arrived[%k]
        %prev = sched.sub %k, %one
        sched.reduce "OPERATION" "ELEMENT" scratch[%off] to recvbuf[%zero] len %n wait @arrived[%k] signal @acc[%k] {
          sched.after @acc[%prev]
        }
      }
      sched.for %k = %one to %p {
        sched.send recvbuf[%zero, %n] to %k tag %one wait @acc[%last]
      }
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.send sendbuf[%zero, %n] to %zero tag %zero
      sched.recv recvbuf[%zero, %n] from %zero tag %one
    }
  }
}

// A bcast from rank 0 whose root stages bytes that are not its own in its
// receive buffer before it sends: it first receives rank 1's (meaningless)
// send buffer there, then copies its data over them, and sends its data
// from its send buffer once that receive arrived. Verified like any bcast
// plan (the root's receive buffer ends with its bytes); with MPI_Bcast's one
// buffer as both sides the root would send rank 1's bytes, so
// collrt_bind_bcast gives such a root a receive buffer of its own.
sched.plan @plan attributes {collective = "bcast", algorithm = "custom", events = ["got"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "bcast" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %p = sched.size
    %n = sched.count recvcount[%r]
    %root = sched.eq %r, %zero
    %alone = sched.eq %p, %one
    %many = sched.ne %p, %one
    %first = sched.eq %r, %one
    sched.if %root {
      sched.if %alone {
        sched.copy sendbuf[%zero] to recvbuf[%zero] len %n
      }
      sched.if %many {
        sched.recv recvbuf[%zero, %n] from %one tag %one signal @got[%zero]
        sched.copy sendbuf[%zero] to recvbuf[%zero] len %n wait @got[%zero]
        sched.for %k = %one to %p {
          sched.send sendbuf[%zero, %n] to %k tag %zero wait @got[%zero]
        }
      }
    }
    sched.if %first {
      sched.send sendbuf[%zero, %n] to %zero tag %one
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.recv recvbuf[%zero, %n] from %zero tag %zero
    }
  }
}

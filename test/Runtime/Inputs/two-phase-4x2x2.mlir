// A two-phase alltoall (seed 000's TPS) on a 4x2x2 torus, written by hand
// in sched IR with format v2's constructs (a test input, not a lowering):
// phase 1 (FIFO 0, the X line) sends to each intermediate (x2, y, z) one
// gathered message of the Y*Z blocks whose destination has x == x2, into
// one of two stage slots; phase 2 (FIFO 1, the YZ plane) forwards each block
// as soon as its stage has arrived. Scratch holds 2 stages for X = 4
// arrivals: the receive into a reused slot waits (a forward wait, on later
// statements) until every send out of that slot completed (credits), an
// event signalled Y*Z times.
sched.plan @two_phase_4x2x2 attributes {collective = "alltoall", algorithm = "two-phase", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>, #sched.fifo<send_depth = 4, recv_depth = 0>], events = ["arrived", "freed"], topology = #coll.topology<shape = [4, 2, 2], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %r = sched.rank
  %c = sched.count recvcount[%r]
  %x = sched.dim 0
  %y = sched.dim 1
  %z = sched.dim 2
  %plane = sched.mul %y, %z
  %slots = sched.const 2
  %stage = sched.mul %plane, %c
  %bytes = sched.mul %slots, %stage
  sched.scratch %bytes
  %zero = sched.const 0
  %rx = sched.coord %r[0]
  %ry = sched.coord %r[1]
  %rz = sched.coord %r[2]
  sched.phase "line" fifo(0) {
    sched.for %x2 = %zero to %x {
      %m = sched.rank_at (%x2, %ry, %rz) local %zero
      sched.send to %m tag %zero {
        sched.for %yz = %zero to %plane {
          %yy = sched.floordiv %yz, %z
          %zz = sched.mod %yz, %z
          %d = sched.rank_at (%x2, %yy, %zz) local %zero
          %off = sched.count senddispl[%d]
          sched.segment sendbuf[%off, %c]
        }
      }
      %slot = sched.mod %x2, %slots
      %at = sched.mul %slot, %stage
      %reuse = sched.ge %x2, %slots
      sched.if %reuse {
        %prev = sched.sub %x2, %slots
        sched.recv scratch[%at, %stage] from %m tag %zero wait @freed[%prev] signal @arrived[%x2]
      }
      %fresh = sched.lt %x2, %slots
      sched.if %fresh {
        sched.recv scratch[%at, %stage] from %m tag %zero signal @arrived[%x2]
      }
    }
  }
  sched.phase "plane" fifo(1) {
    sched.for %x1 = %zero to %x {
      %slot = sched.mod %x1, %slots
      %base = sched.mul %slot, %stage
      sched.for %yz = %zero to %plane {
        %yy = sched.floordiv %yz, %z
        %zz = sched.mod %yz, %z
        %peer = sched.rank_at (%rx, %yy, %zz) local %zero
        %k = sched.mul %yz, %c
        %from = sched.add %base, %k
        sched.send scratch[%from, %c] to %peer tag %zero wait @arrived[%x1] signal @freed[%x1]
        %src = sched.rank_at (%x1, %yy, %zz) local %zero
        %to = sched.count recvdispl[%src]
        sched.recv recvbuf[%to, %c] from %peer tag %zero
      }
    }
  }
}

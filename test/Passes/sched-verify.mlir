// Deliberately broken schedules: the verifier must catch each one.
// RUN: collc-opt %s --sched-verify=max-ranks=4 -split-input-file -verify-diagnostics

// Receives land at the displacement of the rank they send to.
// expected-error @+1 {{schedule fails verification for P = 3 with uniform 1 B counts: out of bounds: rank 0's receive buffer at offset 1 holds byte 0 of rank 2's send buffer}}
sched.plan @misplaced attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %p = sched.size
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
      %roff = sched.count recvdispl[%dst]
      %rlen = sched.count recvcount[%src]
      sched.recv recvbuf[%roff, %rlen] from %src tag %zero
      %soff = sched.count senddispl[%dst]
      %slen = sched.count sendcount[%dst]
      sched.send sendbuf[%soff, %slen] to %dst tag %zero
    }
  }
}

// -----

// Senders cut every block to one byte; receivers expect all of it.
// expected-error @+1 {{schedule fails verification for P = 2 with uniform 7 B counts}}
sched.plan @length_mismatch attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %p = sched.size
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
      %short = sched.min %slen, %one
      sched.send sendbuf[%soff, %short] to %dst tag %zero
    }
  }
}

// -----

// Every rank forwards only what it has received: nobody starts.
// expected-error @+1 {{schedule fails verification for P = 1 with spike counts: deadlock}}
sched.plan @ring_without_start attributes {collective = "allgatherv", algorithm = "blocked-ring", events = ["arrived"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "ring" fifo(0) {
    %r = sched.rank
    %p = sched.size
    %zero = sched.const 0
    %one = sched.const 1
    %n = sched.add %r, %one
    %next = sched.mod %n, %p
    %b = sched.sub %r, %one
    %prev = sched.mod %b, %p
    %len = sched.count recvcount[%prev]
    %off = sched.count recvdispl[%prev]
    sched.recv recvbuf[%off, %len] from %prev tag %zero signal @arrived[%zero]
    %mine = sched.count recvcount[%r]
    %moff = sched.count recvdispl[%r]
    sched.send recvbuf[%moff, %mine] to %next tag %zero wait @arrived[%zero]
  }
}

// -----

// A plan tied to its 8x8x8 topology cannot run at P <= 4, so it is verified
// on smaller shapes of the same program; its error (a receive from the wrong
// x neighbour) shows up on the smallest shape that exposes it.
// expected-error @+1 {{schedule fails verification for P = 3 on the shape 3x1x1 (a smaller instance of the same program) with uniform 1 B counts}}
sched.plan @topology_family attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [8, 8, 8], wrap = [true, true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %x = sched.dim 0
    %y = sched.dim 1
    %z = sched.dim 2
    %xy = sched.mul %x, %y
    %p = sched.mul %xy, %z
    %own = sched.count recvcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %own
    sched.for %k = %one to %p {
      %a = sched.add %r, %k
      %dst = sched.mod %a, %p
      %s = sched.sub %r, %k
      %src = sched.mod %s, %p
      %roff = sched.count recvdispl[%dst]
      %rlen = sched.count recvcount[%src]
      sched.recv recvbuf[%roff, %rlen] from %src tag %zero
      %soff = sched.count senddispl[%dst]
      %slen = sched.count sendcount[%dst]
      sched.send sendbuf[%soff, %slen] to %dst tag %zero
    }
  }
}

// -----

// The family includes an extent of 4 where the plan's extent is 4 or more:
// this exchange runs min(x, 3)·y steps, right whenever x <= 3 and wrong
// (the fourth x neighbour's block never moves) from 4 on, the smallest even
// ring with a tie that is not also a neighbour.
// expected-error @+1 {{schedule fails verification for P = 4 on the shape 4x1 (a smaller instance of the same program) with uniform 1 B counts}}
sched.plan @wrong_from_extent_4 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [8, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %three = sched.const 3
    %x = sched.dim 0
    %y = sched.dim 1
    %p = sched.mul %x, %y
    %capped = sched.min %x, %three
    %steps = sched.mul %capped, %y
    %own = sched.count recvcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %own
    sched.for %k = %one to %steps {
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

// -----

// Nothing fits: even one node holds more ranks than max-ranks.
// expected-error @+1 {{schedule cannot be verified: it needs exactly 64 ranks and even its smallest shape (every extent 1) needs 8, above --verify-ranks = 4; raise --verify-ranks, or pass --no-verify}}
sched.plan @unverifiable attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [2, 2, 2], wrap = [true, true, true], ranks_per_node = 8, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %x = sched.dim 0
    %own = sched.count recvcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    %d = sched.mul %sd, %x
    sched.copy sendbuf[%d] to recvbuf[%rd] len %own
  }
}

// -----

// A pack race: the copy into scratch and the send of the packed bytes have
// no chain of waits between them, so the engine may send stale bytes.
// expected-error @+1 {{race on scratch buffer bytes}}
sched.plan @pack_race attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], events = ["packed"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %p = sched.size
  %r0 = sched.rank
  %c = sched.count sendcount[%r0]
  %bytes = sched.mul %p, %c
  sched.scratch %bytes
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %own = sched.count recvdispl[%r]
    %sd = sched.count senddispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%own] len %c
    %one = sched.const 1
    sched.for %k = %one to %p {
      %a = sched.add %r, %k
      %dst = sched.mod %a, %p
      %s = sched.sub %r, %k
      %t = sched.add %s, %p
      %src = sched.mod %t, %p
      %roff = sched.count recvdispl[%src]
      sched.recv recvbuf[%roff, %c] from %src tag %zero
      %soff = sched.count senddispl[%dst]
      sched.copy sendbuf[%soff] to scratch[%soff] len %c signal @packed[%k]
      sched.send scratch[%soff, %c] to %dst tag %zero
    }
  }
}

// -----

// The same with the send waiting on its copy: accepted.
sched.plan @pack_ordered attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], events = ["packed"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %p = sched.size
  %r0 = sched.rank
  %c = sched.count sendcount[%r0]
  %bytes = sched.mul %p, %c
  sched.scratch %bytes
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %own = sched.count recvdispl[%r]
    %sd = sched.count senddispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%own] len %c
    %one = sched.const 1
    sched.for %k = %one to %p {
      %a = sched.add %r, %k
      %dst = sched.mod %a, %p
      %s = sched.sub %r, %k
      %t = sched.add %s, %p
      %src = sched.mod %t, %p
      %roff = sched.count recvdispl[%src]
      sched.recv recvbuf[%roff, %c] from %src tag %zero
      %soff = sched.count senddispl[%dst]
      sched.copy sendbuf[%soff] to scratch[%soff] len %c signal @packed[%k]
      sched.send scratch[%soff, %c] to %dst tag %zero wait @packed[%k]
    }
  }
}

// -----

// A join that can never complete: it waits on an event no transfer signals.
// expected-error @+1 {{waits on event 0(1, 0), which no transfer signals}}
sched.plan @join_never attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], events = ["arrived"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %c = sched.count sendcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %c {
      sched.after @arrived[%one]
    }
  }
}

// -----

// A credit loop that deadlocks: each receive waits (forward) on the send
// that forwards what it receives.
// expected-error @+1 {{no transfer can progress}}
sched.plan @credit_cycle attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], events = ["arrived", "freed"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %r0 = sched.rank
  %c0 = sched.count sendcount[%r0]
  sched.scratch %c0
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %p = sched.size
    %zero = sched.const 0
    %one = sched.const 1
    %c = sched.count sendcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %c
    sched.for %k = %one to %p {
      %a = sched.add %r, %k
      %dst = sched.mod %a, %p
      %s = sched.sub %r, %k
      %t = sched.add %s, %p
      %src = sched.mod %t, %p
      sched.recv scratch[%zero, %c] from %src tag %zero wait @freed[%k] signal @arrived[%k]
      %soff = sched.count senddispl[%dst]
      sched.send sendbuf[%soff, %c] to %dst tag %zero wait @arrived[%k] signal @freed[%k]
    }
  }
}

// -----

// A bounded receive window whose order disagrees with the senders': every
// rank receives first from the rank it sends to last.
// expected-error @+1 {{no transfer can progress}}
sched.plan @window_deadlock attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 1>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %r = sched.rank
    %p = sched.size
    %zero = sched.const 0
    %one = sched.const 1
    %c = sched.count sendcount[%r]
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %c
    sched.for %k = %one to %p {
      %a = sched.add %r, %k
      %dst = sched.mod %a, %p
      %roff = sched.count recvdispl[%dst]
      sched.recv recvbuf[%roff, %c] from %dst tag %zero
      %soff = sched.count senddispl[%dst]
      sched.send sendbuf[%soff, %c] to %dst tag %zero
    }
  }
}

// -----

// The node arena (plan format 4): the ranks of a node exchange through it.
// Each copies its send buffer into its row, notifies, awaits every rank's
// notify, and copies its column out: verified at P = 1 to 4 (one node).
sched.plan @arena_exchange attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], events = ["filled", "staged"], topology = #coll.topology<shape = [1], wrap = [true], ranks_per_node = 4, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %one = sched.const 1
  %r = sched.rank
  %p = sched.size
  %m = sched.count recvcount[%r]
  %pm = sched.mul %p, %m
  %bytes = sched.mul %pm, %p
  sched.arena %bytes counters %one
  sched.phase "p" fifo(0) {
    %row = sched.mul %r, %pm
    sched.copy sendbuf[%zero] to arena[%row] len %pm signal @filled[%zero]
    sched.notify %zero wait @filled[%zero]
    sched.await %zero signal @staged[%zero]
    sched.for %k = %zero to %p {
      %kp = sched.mul %k, %p
      %i = sched.add %kp, %r
      %at = sched.mul %i, %m
      %to = sched.mul %k, %m
      sched.copy arena[%at] to recvbuf[%to] len %m wait @staged[%zero]
    }
  }
}

// -----

// The same without the wait for the await: the copies out may read a row
// before its writer copied it in, a race between two ranks of a node.
// expected-error @+1 {{race on arena bytes}}
sched.plan @arena_race attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], events = ["filled", "staged"], topology = #coll.topology<shape = [1], wrap = [true], ranks_per_node = 4, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %one = sched.const 1
  %r = sched.rank
  %p = sched.size
  %m = sched.count recvcount[%r]
  %pm = sched.mul %p, %m
  %bytes = sched.mul %pm, %p
  sched.arena %bytes counters %one
  sched.phase "p" fifo(0) {
    %row = sched.mul %r, %pm
    sched.copy sendbuf[%zero] to arena[%row] len %pm signal @filled[%zero]
    sched.notify %zero wait @filled[%zero]
    sched.await %zero signal @staged[%zero]
    sched.for %k = %zero to %p {
      %kp = sched.mul %k, %p
      %i = sched.add %kp, %r
      %at = sched.mul %i, %m
      %to = sched.mul %k, %m
      sched.copy arena[%at] to recvbuf[%to] len %m
    }
  }
}

// -----

// A notify that waits for the await of its own counter: no rank can ever
// notify, so every await waits forever.
// expected-error @+1 {{notify counter 0}}
sched.plan @arena_deadlock attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], events = ["filled", "staged"], topology = #coll.topology<shape = [1], wrap = [true], ranks_per_node = 4, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %one = sched.const 1
  %r = sched.rank
  %p = sched.size
  %m = sched.count recvcount[%r]
  %pm = sched.mul %p, %m
  %bytes = sched.mul %pm, %p
  sched.arena %bytes counters %one
  sched.phase "p" fifo(0) {
    %row = sched.mul %r, %pm
    sched.copy sendbuf[%zero] to arena[%row] len %pm signal @filled[%zero]
    sched.notify %zero wait @staged[%zero]
    sched.await %zero signal @staged[%zero]
    sched.for %k = %zero to %p {
      %kp = sched.mul %k, %p
      %i = sched.add %kp, %r
      %at = sched.mul %i, %m
      %to = sched.mul %k, %m
      sched.copy arena[%at] to recvbuf[%to] len %m wait @staged[%zero]
    }
  }
}

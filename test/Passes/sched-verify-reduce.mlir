// REDUCE steps in hand-written schedules (plan format 5): a correct
// allreduce through the node arena verifies, and the seeded faults below
// must each be rejected, naming what went wrong. The linear allreduce that
// verifies and runs under mpiexec is test/Runtime/Inputs/allreduce-linear-*.mlir.
// RUN: collc-opt %S/../Runtime/Inputs/allreduce-linear-int.mlir --sched-verify=max-ranks=8
// RUN: collc-opt %S/../Runtime/Inputs/allreduce-linear-double.mlir --sched-verify=max-ranks=8
// RUN: collc-opt %s --sched-verify=max-ranks=4 -split-input-file -verify-diagnostics

// Correct: each rank puts its row in the arena; rank 0 combines the rows
// into row 0 in rank order; everyone copies row 0 out.
sched.plan @arena_allreduce attributes {collective = "allreduce", algorithm = "custom", events = ["filled", "acc", "summed"], fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [1], wrap = [true], ranks_per_node = 4, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %c0 = sched.const 0
  %m = sched.count recvcount[%c0]
  %np = sched.size
  %bytes = sched.mul %m, %np
  %two = sched.const 2
  sched.arena %bytes counters %two
  sched.phase "node" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %p = sched.size
    %n = sched.count recvcount[%r]
    %row = sched.mul %r, %n
    sched.copy sendbuf[%zero] to arena[%row] len %n signal @filled[%zero]
    sched.notify %zero wait @filled[%zero]
    %root = sched.eq %r, %zero
    sched.if %root {
      sched.await %zero signal @acc[%zero]
      sched.for %k = %one to %p {
        %off = sched.mul %k, %n
        %prev = sched.sub %k, %one
        sched.reduce "max" "int" arena[%off] to arena[%zero] len %n wait @acc[%prev] signal @acc[%k]
      }
      %last = sched.sub %p, %one
      sched.notify %one wait @acc[%last]
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.notify %one wait @filled[%zero]
    }
    sched.await %one signal @summed[%zero]
    sched.copy arena[%zero] to recvbuf[%zero] len %n wait @summed[%zero]
  }
}

// -----

// A missing contribution: the last rank's slot is received, never combined.
// expected-error @+1 {{schedule fails verification for P = 2 with 4 B counts: out of bounds: rank 0's receive buffer at offset 0 combines the contributions of 1 of 2 ranks: rank 1's is missing}}
sched.plan @missing attributes {collective = "allreduce", algorithm = "custom", events = ["arrived", "acc"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
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
      }
      // the last rank's slot arrives but is never combined
      sched.for %k = %one to %last {
        %off = sched.mul %k, %n
        %prev = sched.sub %k, %one
        sched.reduce "sum" "int" scratch[%off] to recvbuf[%zero] len %n wait @arrived[%k] signal @acc[%k] {
          sched.after @acc[%prev]
        }
      }
      %before = sched.sub %last, %one
      %done = sched.max %before, %zero
      sched.for %k = %one to %p {
        sched.send recvbuf[%zero, %n] to %k tag %one wait @acc[%done]
      }
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.send sendbuf[%zero, %n] to %zero tag %zero
      sched.recv recvbuf[%zero, %n] from %zero tag %one
    }
  }
}

// -----

// A doubled contribution: rank 0 combines its own send buffer again at the end.
// expected-error @+1 {{schedule fails verification for P = 1 with 4 B counts: out of bounds: rank 0's stmt[7] REDUCE combines the contribution of rank 0 twice into its receive buffer element 0 (byte 0)}}
sched.plan @doubled attributes {collective = "allreduce", algorithm = "custom", events = ["arrived", "acc"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
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
        sched.reduce "sum" "int" scratch[%off] to recvbuf[%zero] len %n wait @arrived[%k] signal @acc[%k] {
          sched.after @acc[%prev]
        }
      }
      // its own contribution combined a second time
      sched.reduce "sum" "int" sendbuf[%zero] to recvbuf[%zero] len %n wait @acc[%last] signal @acc[%p]
      sched.for %k = %one to %p {
        sched.send recvbuf[%zero, %n] to %k tag %one wait @acc[%p]
      }
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.send sendbuf[%zero, %n] to %zero tag %zero
      sched.recv recvbuf[%zero, %n] from %zero tag %one
    }
  }
}

// -----

// A reduction that reads its slot before the data arrives: it waits only
// for the previous reduction.
// expected-error @+1 {{schedule fails verification for P = 2 with 4 B counts: out of bounds: rank 0's stmt[5] REDUCE (sum int) reads its source's scratch buffer byte 4 (element 1) before anything was written there}}
sched.plan @early attributes {collective = "allreduce", algorithm = "custom", events = ["arrived", "acc"], fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
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
        // no wait on the slot's arrival
        sched.reduce "sum" "int" scratch[%off] to recvbuf[%zero] len %n wait @acc[%prev] signal @acc[%k]
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

// -----

// A race on the arena: ranks 1 and 2 both combine into row 0, unordered.
// expected-error @+1 {{schedule fails verification for P = 3 with 4 B counts: out of bounds: node of rank 0: race on arena bytes [0, 4): rank 1's stmt[}}
sched.plan @arena_race attributes {collective = "allreduce", algorithm = "custom", events = ["filled", "acc", "summed"], fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [1], wrap = [true], ranks_per_node = 4, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %c0 = sched.const 0
  %m = sched.count recvcount[%c0]
  %np = sched.size
  %bytes = sched.mul %m, %np
  %two = sched.const 2
  sched.arena %bytes counters %two
  sched.phase "node" fifo(0) {
    %r = sched.rank
    %zero = sched.const 0
    %one = sched.const 1
    %p = sched.size
    %n = sched.count recvcount[%r]
    %row = sched.mul %r, %n
    sched.copy sendbuf[%zero] to arena[%row] len %n signal @filled[%zero]
    sched.notify %zero wait @filled[%zero]
    // every other rank combines its own row into row 0 once all rows are
    // filled: all contributions, each once, but two ranks write row 0 with
    // nothing ordering them
    %root = sched.eq %r, %zero
    sched.if %root {
      sched.notify %one wait @filled[%zero]
    }
    %other = sched.ne %r, %zero
    sched.if %other {
      sched.await %zero signal @acc[%zero]
      sched.reduce "max" "int" arena[%row] to arena[%zero] len %n wait @acc[%zero] signal @acc[%one]
      sched.notify %one wait @acc[%one]
    }
    sched.await %one signal @summed[%zero]
    sched.copy arena[%zero] to recvbuf[%zero] len %n wait @summed[%zero]
  }
}

// -----

// The op verifier: a pair outside the operation's classes.
sched.plan @bad_pair attributes {collective = "allreduce", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    %n = sched.count recvcount[%zero]
    // expected-error @+1 {{'sched.reduce' op (R1) band does not apply to double: it takes the C integer types}}
    sched.reduce "band" "double" sendbuf[%zero] to recvbuf[%zero] len %n
  }
}

// Each sched constraint (SchedAttrs.td F1-F2, SchedOps.td P1-P5, S1, PH1-PH3,
// N1, L1-L3, E1-E2, T1-T3, U1-U2, X1-X8, G1-G2, A1-A2, D1-D2) has a case named after it that breaks exactly that
// constraint.
// RUN: %collc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'sched.plan' op (P1) declares 0 FIFOs; a plan needs 1 to 16}}
sched.plan @plan_p1 attributes {collective = "alltoall", algorithm = "direct", fifos = [], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
}

// -----

// expected-error @+1 {{'sched.plan' op (P1) declares 17 FIFOs; a plan needs 1 to 16}}
sched.plan @plan_p1_many attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>, #sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
}

// -----

// expected-error @+1 {{'sched.plan' op (P2) declares 17 events; at most 16 are allowed}}
sched.plan @plan_p2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, events = ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "e10", "e11", "e12", "e13", "e14", "e15", "e16", "e17"]} {
}

// -----

// expected-error @+1 {{'sched.plan' op (P2) event 'arrived' is declared twice}}
sched.plan @plan_p2_twice attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, events = ["arrived", "sent", "arrived"]} {
}

// -----

// expected-note @+1 {{in this plan}}
sched.plan @plan_p3 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %p = sched.size
  // expected-error @+1 {{'sched.if' op (P3) cannot appear directly in a plan; only exchanges, phases, phase loops, sched.scratch, sched.arena and expressions can}}
  sched.if %p {
  }
}

// -----

// A phase loop (a sched.for outside phases) holds phases, loops and
// expressions; a transfer there has no FIFO.
sched.plan @phase_loop_p3 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %p = sched.size
  sched.for %k = %zero to %p {
    // expected-error @+1 {{'sched.send' op (P3) cannot appear in a phase loop (a sched.for outside phases); only phases, phase loops and expressions can}}
    sched.send sendbuf[%zero, %zero] to %k tag %zero
  }
}

// -----

sched.plan @phase_ph3 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>, #sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %one = sched.const 1
  // expected-error @+1 {{'sched.phase' op (PH3) a FIFO offset needs a phase loop; a phase outside one names its FIFO}}
  sched.phase "fixed" fifo(0 + %one) {
  }
}

// -----

sched.plan @phase_ph1_nested attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %two = sched.const 2
  sched.phase "outer" fifo(0) {
    sched.for %k = %zero to %two {
      // expected-error @+1 {{'sched.phase' op (PH1) must be directly inside a sched.plan or in a phase loop (sched.for ops directly inside it)}}
      sched.phase "inner" fifo(0) {
      }
    }
  }
}

// -----

sched.plan @scratch_s1 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %bytes = sched.const 64
  sched.scratch %bytes
  // expected-error @+1 {{'sched.scratch' op (S1) a plan declares its scratch buffer at most once}}
  sched.scratch %bytes
}

// -----

sched.plan @scratch_s1_nested attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %bytes = sched.const 64
    // expected-error @+1 {{'sched.scratch' op (S1) must be directly inside a sched.plan}}
    sched.scratch %bytes
  }
}

// -----

// expected-error @+1 {{'sched.phase' op (PH1) must be directly inside a sched.plan}}
sched.phase "orphan" fifo(0) {
}

// -----

sched.plan @phase_ph2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  // expected-error @+1 {{'sched.phase' op (PH2) uses FIFO 1 but the plan declares 1}}
  sched.phase "exchange" fifo(1) {
  }
}

// -----

sched.plan @phase_ph2_negative attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  // expected-error @+1 {{'sched.phase' op (PH2) uses FIFO -1 but the plan declares 1}}
  sched.phase "exchange" fifo(-1) {
  }
}

// -----

sched.plan @for_l1 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    %p = sched.size
    // The custom syntax cannot say "random without a seed"; the generic one can.
    // expected-error @+1 {{'sched.for' op (L1) a seed is given exactly when the order is random}}
    "sched.for"(%zero, %p) ({
    ^bb0(%k: index):
    }) {random} : (index, index) -> ()
  }
}

// -----

sched.plan @for_l1_seed attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    %p = sched.size
    // expected-error @+1 {{'sched.for' op (L1) a seed is given exactly when the order is random}}
    "sched.for"(%zero, %p, %zero) ({
    ^bb0(%k: index):
    }) : (index, index, index) -> ()
  }
}

// -----

sched.plan @for_l2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    %p = sched.size
    // expected-error @+1 {{'sched.for' op (L2) the body takes one index induction variable}}
    "sched.for"(%zero, %p) ({
    ^bb0:
    }) : (index, index) -> ()
  }
}

// -----

%zero = sched.const 0
// expected-error @+1 {{'sched.send' op (X1) must be inside a sched.phase}}
sched.send sendbuf[%zero, %zero] to %zero tag %zero

// -----

sched.plan @send_x2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, events = ["arrived"]} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.send' op (X2) event 'sent' is not declared by the plan}}
    sched.send sendbuf[%zero, %zero] to %zero tag %zero wait @sent[%zero]
  }
}

// -----

sched.plan @recv_x2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.recv' op (X2) event 'arrived' is not declared by the plan}}
    sched.recv recvbuf[%zero, %zero] from %zero tag %zero signal @arrived[%zero]
  }
}

// -----

sched.plan @copy_x3 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, events = ["arrived"]} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.copy' op (X3) event 'arrived' is indexed by 3 values; it takes 1 or 2}}
    sched.copy recvbuf[%zero] to recvbuf[%zero] len %zero wait @arrived[%zero, %zero, %zero]
  }
}

// -----

sched.plan @send_x3_empty attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, events = ["arrived"]} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.send' op (X3) event 'arrived' is indexed by 0 values; it takes 1 or 2}}
    sched.send sendbuf[%zero, %zero] to %zero tag %zero wait @arrived[]
  }
}

// -----

sched.plan @send_x3_no_event attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, events = ["arrived"]} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // The custom syntax ties indices to an event; the generic one does not.
    // expected-error @+1 {{'sched.send' op (X3) an event index without an event}}
    "sched.send"(%zero, %zero, %zero, %zero, %zero) ({}) {buffer = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>} : (index, index, index, index, index) -> ()
  }
}

// -----

sched.plan @recv_x4 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.recv' op (X4) uses the scratch buffer but the plan has no sched.scratch}}
    sched.recv scratch[%zero, %zero] from %zero tag %zero
  }
}

// -----

sched.plan @copy_x4 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "exchange" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.copy' op (X4) uses the scratch buffer but the plan has no sched.scratch}}
    sched.copy sendbuf[%zero] to scratch[%zero] len %zero
  }
}

// -----

sched.plan @dim_d1 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  // expected-error @+1 {{'sched.dim' op (D1) dimension 2 is outside a 2-dimensional topology}}
  %d = sched.dim 2
}

// -----

sched.plan @coord_d1 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %r = sched.rank
  // expected-error @+1 {{'sched.coord' op (D1) dimension -1 is outside a 2-dimensional topology}}
  %x = sched.coord %r[-1]
}

// -----

sched.plan @rank_at_d2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  // expected-error @+1 {{'sched.rank_at' op (D2) takes 2 coordinates, got 3}}
  %r = sched.rank_at(%zero, %zero, %zero) local %zero
}

// -----

// expected-error @+1 {{(F1) send_depth is 0; it must be in [1, 65535]}}
sched.plan @fifo_f1 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 0, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
}

// -----

// expected-error @+1 {{(F2) recv_depth is 65536; it must be in [0, 65535] (0 = unbounded)}}
sched.plan @fifo_f2 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 1, recv_depth = 65536>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
}

// -----

sched.plan @transfer_x5 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    sched.send to %zero tag %zero {
      sched.segment sendbuf[%zero, %zero]
      // expected-error @+1 {{'sched.recv' op (X5) cannot appear in a transfer's body}}
      sched.recv recvbuf[%zero, %zero] from %zero tag %zero
    }
  }
}

// -----

sched.plan @transfer_x6_length attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.copy' op (X6) a gathered transfer takes its length from its segments; drop the length}}
    sched.copy to recvbuf[%zero] len %zero {
      sched.segment sendbuf[%zero, %zero]
    }
  }
}

// -----

sched.plan @transfer_x6_offset attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.send' op (X6) a side has an offset but no buffer}}
    "sched.send"(%zero, %zero, %zero) ({}) {operandSegmentSizes = array<i32: 1, 0, 1, 1, 0, 0>} : (index, index, index) -> ()
  }
}

// -----

sched.plan @transfer_x7 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.recv' op (X7) writes the send buffer}}
    sched.recv sendbuf[%zero, %zero] from %zero tag %zero
  }
}

// -----

sched.plan @segment_g1 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.segment' op (G1) must be inside the body of a sched.send, sched.recv or sched.copy}}
    sched.segment sendbuf[%zero, %zero]
  }
}

// -----

sched.plan @segment_g1_not_gathered attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    sched.send sendbuf[%zero, %zero] to %zero tag %zero {
      // expected-error @+1 {{'sched.segment' op (G1) the enclosing transfer does not gather this side (it names a buffer)}}
      sched.segment sendbuf[%zero, %zero]
    }
  }
}

// -----

sched.plan @segment_g2 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    sched.recv from %zero tag %zero {
      // expected-error @+1 {{'sched.segment' op (G2) the transfer writes this segment, so it must be recvbuf, scratch or arena}}
      sched.segment sendbuf[%zero, %zero]
    }
  }
}

// -----

sched.plan @after_a1 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], events = ["e"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.after' op (A1) must be inside the body of a sched.send, sched.recv or sched.copy}}
    sched.after @e[%zero]
  }
}

// -----

sched.plan @after_a2 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], events = ["e"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    sched.send sendbuf[%zero, %zero] to %zero tag %zero {
      // expected-error @+1 {{'sched.after' op (X2) event 'nope' is not declared by the plan}}
      sched.after @nope[%zero]
    }
  }
}

// -----

sched.plan @for_l3 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.for' op (L3) 'shared' qualifies a random order}}
    "sched.for"(%zero, %zero) ({
    ^bb0(%k: index):
    }) {shared} : (index, index) -> ()
  }
}

// -----

sched.plan @plan_p3_exchange_late attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  // expected-note @+1 {{the first phase}}
  sched.phase "p" fifo(0) {
  }
  // expected-error @+1 {{'sched.exchange' op (P3) comes after a phase}}
  sched.exchange {
  }
}

// -----

// expected-error @+1 {{'sched.plan' op (P5) block_bytes must be [min, max] with 0 <= min <= max}}
sched.plan @plan_p5 attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, block_bytes = array<i64: 8, 4>} {
}

// -----

sched.plan @exchange_e1 attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    // expected-error @+1 {{'sched.exchange' op (E1) must be directly inside a sched.plan}}
    sched.exchange {
    }
  }
}

// -----

sched.plan @exchange_e2 attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.exchange {
    // expected-error @+1 {{'sched.phase' op (E2) cannot appear in a sched.exchange}}
    sched.phase "p" fifo(0) {
    }
  }
}

// -----

sched.plan @put_t1 attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.phase "p" fifo(0) {
    // expected-error @+1 {{'sched.put' op (T1) must be inside a sched.exchange}}
    sched.put table 0 [%zero] = %zero to %zero
  }
}

// -----

sched.plan @put_t2 attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.exchange {
    // expected-error @+1 {{'sched.put' op (T2) table 8 is outside [0, 8)}}
    sched.put table 8 [%zero] = %zero to %zero
  }
}

// -----

sched.plan @table_t3 attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.exchange {
    // expected-error @+1 {{'sched.table' op (T3) reads the exchange's result inside the exchange}}
    %v = sched.table 0 [%zero, %zero]
    sched.put table 0 [%zero] = %v to %zero
  }
}

// -----

sched.plan @sum_u2 attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  %one = sched.const 1
  %s = sched.sum %a = %zero to %one {
    %t = sched.sum %b = %zero to %one {
      %u = sched.sum %c = %zero to %one {
        %v = sched.sum %d = %zero to %one {
          // expected-error @+1 {{'sched.sum' op (U2) sums nest at most 4 deep}}
          %w = sched.sum %e = %zero to %one {
            sched.yield %e
          }
          sched.yield %w
        }
        sched.yield %v
      }
      sched.yield %u
    }
    sched.yield %t
  }
  sched.scratch %s
}

// -----

sched.plan @arena_n1_after_phase attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  // expected-note @+1 {{the first phase}}
  sched.phase "p" fifo(0) {
  }
  // expected-error @+1 {{'sched.arena' op (N1) comes after a phase; the arena is declared before the first phase}}
  sched.arena %zero counters %zero
}

// -----

sched.plan @arena_n1_before_exchange attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  // expected-note @+1 {{the arena}}
  sched.arena %zero counters %zero
  // expected-error @+1 {{'sched.exchange' op (N1) comes after the sched.arena; the arena is declared after every exchange}}
  sched.exchange {
  }
}

// -----

sched.plan @arena_n1_twice attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.arena %zero counters %zero
  // expected-error @+1 {{'sched.arena' op (N1) a plan declares its arena at most once}}
  sched.arena %zero counters %zero
}

// -----

sched.plan @arena_n1_in_phase attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.arena' op (N1) must be directly inside a sched.plan}}
    sched.arena %zero counters %zero
  }
}

// -----

sched.plan @copy_x8 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.copy' op (X8) uses the arena buffer but the plan has no sched.arena}}
    sched.copy sendbuf[%zero] to arena[%zero] len %zero
  }
}

// -----

sched.plan @segment_x8 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.send' op (X8) uses the arena buffer but the plan has no sched.arena}}
    sched.send to %zero tag %zero {
      sched.segment arena[%zero, %zero]
    }
  }
}

// -----

sched.plan @notify_x8 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    // expected-error @+1 {{'sched.notify' op (X8) counts on the node arena but the plan has no sched.arena}}
    sched.notify %zero
  }
}

// -----

%zero = sched.const 0
// expected-error @+1 {{'sched.await' op (X1) must be inside a sched.phase}}
sched.await %zero

// -----

sched.plan @await_x2 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.arena %zero counters %zero
  sched.phase "p" fifo(0) {
    // expected-error @+1 {{'sched.await' op (X2) event 'ready' is not declared by the plan}}
    sched.await %zero signal @ready[%zero]
  }
}

// -----

sched.plan @notify_g1 attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 1, recv_depth = 0>], topology = #coll.topology<shape = [2], wrap = [true], ranks_per_node = 2, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>} {
  %zero = sched.const 0
  sched.arena %zero counters %zero
  sched.phase "p" fifo(0) {
    sched.notify %zero {
      // expected-error @+1 {{'sched.segment' op (X5) cannot appear in the body of a sched.notify or sched.await}}
      sched.segment arena[%zero, %zero]
    }
  }
}

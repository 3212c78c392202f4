// Every sched op prints in a form that parses back to the same IR.
// RUN: %collc-opt %s | %collc-opt | FileCheck %s

// CHECK-LABEL: sched.plan @expressions
// CHECK-SAME: attributes {algorithm = "direct", collective = "alltoall", fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>]
// CHECK-SAME: topology = #coll.topology<shape = [4, 2, 2]
// CHECK: %[[R:[a-z0-9_]+]] = sched.rank
// CHECK: %[[P:[a-z0-9_]+]] = sched.size
// CHECK: %[[C:[a-z0-9_]+]] = sched.const 3
// CHECK: sched.ranks_per_node
// CHECK: sched.dim 2
// CHECK: %[[X:[a-z0-9_]+]] = sched.coord %[[R]][0]
// CHECK: %[[Y:[a-z0-9_]+]] = sched.coord %[[R]][1]
// CHECK: %[[Z:[a-z0-9_]+]] = sched.coord %[[R]][2]
// CHECK: sched.rank_at(%[[X]], %[[Y]], %[[Z]]) local %[[C]]
// CHECK: sched.count sendcount[%[[R]]]
// CHECK: sched.count senddispl[%[[R]]]
// CHECK: sched.count recvcount[%[[R]]]
// CHECK: sched.count recvdispl[%[[R]]]
// CHECK: sched.count_stat sum
// CHECK: sched.count_stat minpos
// CHECK: sched.count_stat zeros
// CHECK: sched.add %[[R]], %[[P]]
// CHECK: sched.sub
// CHECK: sched.mul
// CHECK: sched.floordiv
// CHECK: sched.mod
// CHECK: sched.min
// CHECK: sched.max
// CHECK: sched.ceildiv
// CHECK: sched.eq
// CHECK: sched.ne
// CHECK: sched.lt
// CHECK: sched.le
// CHECK: sched.gt
// CHECK: sched.ge
// CHECK: sched.and
// CHECK: sched.or
// CHECK: sched.not %[[R]]
// CHECK: sched.isqrt %[[P]]
// CHECK: sched.select %[[R]], %[[P]], %[[C]]
// CHECK: sched.phase "only" fifo(0) {
sched.plan @expressions attributes {collective = "alltoall", algorithm = "direct", fifos = [#sched.fifo<send_depth = 16, recv_depth = 0>], topology = #coll.topology<shape = [4, 2, 2], wrap = [true, true, false], ranks_per_node = 4, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %r = sched.rank
  %p = sched.size
  %c = sched.const 3
  %rpn = sched.ranks_per_node
  %dz = sched.dim 2
  %x = sched.coord %r[0]
  %y = sched.coord %r[1]
  %z = sched.coord %r[2]
  %at = sched.rank_at(%x, %y, %z) local %c
  %sc = sched.count sendcount[%r]
  %sd = sched.count senddispl[%r]
  %rc = sched.count recvcount[%r]
  %rd = sched.count recvdispl[%r]
  %sum = sched.count_stat sum
  %minpos = sched.count_stat minpos
  %zeros = sched.count_stat zeros
  %0 = sched.add %r, %p
  %1 = sched.sub %r, %p
  %2 = sched.mul %r, %p
  %3 = sched.floordiv %r, %p
  %4 = sched.mod %r, %p
  %5 = sched.min %r, %p
  %6 = sched.max %r, %p
  %7 = sched.ceildiv %r, %p
  %8 = sched.eq %r, %p
  %9 = sched.ne %r, %p
  %10 = sched.lt %r, %p
  %11 = sched.le %r, %p
  %12 = sched.gt %r, %p
  %13 = sched.ge %r, %p
  %14 = sched.and %r, %p
  %15 = sched.or %r, %p
  %16 = sched.not %r
  %17 = sched.isqrt %p
  %18 = sched.select %r, %p, %c
  sched.phase "only" fifo(0) {
  }
}

// CHECK-LABEL: sched.plan @transfers
// CHECK-SAME: events = ["arrived", "copied"]
// CHECK-SAME: fifos = [#sched.fifo<send_depth = 8, recv_depth = 0>, #sched.fifo<send_depth = 2, recv_depth = 4>]
// CHECK: %[[BYTES:[a-z0-9_]+]] = sched.const 4096
// CHECK: sched.scratch %[[BYTES]]
// CHECK: sched.phase "line" fifo(0) {
// CHECK: %[[SEED:[a-z0-9_]+]] = sched.const 42
// The induction variable is named %k (OpAsmOpInterface).
// CHECK: sched.for %k = %{{.*}} to %{{.*}} random(%[[SEED]]) {
// CHECK: sched.recv scratch[%{{.*}}, %{{.*}}] from %{{.*}} tag %k signal @arrived[%k]
// CHECK: sched.copy scratch[%{{.*}}] to recvbuf[%{{.*}}] len %{{.*}} wait @arrived[%k] signal @copied[%k, %{{.*}}]
// CHECK: sched.phase "plane" fifo(1) {
// CHECK: sched.for %[[J:[a-z0-9_]+]] = %{{.*}} to %{{.*}} {
// CHECK-NOT: random
// CHECK: sched.if %{{.*}} {
// CHECK: sched.send recvbuf[%{{.*}}, %{{.*}}] to %{{.*}} tag %[[J]] wait @copied[%[[J]], %{{.*}}]
// CHECK: sched.send sendbuf[%{{.*}}, %{{.*}}] to %{{.*}} tag %[[J]]{{$}}
sched.plan @transfers attributes {collective = "alltoall", algorithm = "two-phase", fifos = [#sched.fifo<send_depth = 8, recv_depth = 0>, #sched.fifo<send_depth = 2, recv_depth = 4>], events = ["arrived", "copied"], topology = #coll.topology<shape = [8], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %bytes = sched.const 4096
  sched.scratch %bytes
  sched.phase "line" fifo(0) {
    %r = sched.rank
    %p = sched.size
    %zero = sched.const 0
    %one = sched.const 1
    %seed = sched.const 42
    sched.for %k = %one to %p random(%seed) {
      %len = sched.count recvcount[%k]
      %off = sched.count recvdispl[%k]
      sched.recv scratch[%off, %len] from %k tag %k signal @arrived[%k]
      sched.copy scratch[%off] to recvbuf[%off] len %len wait @arrived[%k] signal @copied[%k, %zero]
    }
  }
  sched.phase "plane" fifo(1) {
    %zero = sched.const 0
    %p = sched.size
    sched.for %j = %zero to %p {
      %r = sched.rank
      %ne = sched.ne %j, %r
      sched.if %ne {
        %len = sched.count sendcount[%j]
        %off = sched.count recvdispl[%j]
        sched.send recvbuf[%off, %len] to %j tag %j wait @copied[%j, %zero]
      }
      %soff = sched.count senddispl[%j]
      sched.send sendbuf[%soff, %soff] to %j tag %j
    }
  }
}

// Format v2: gathered sides (no buffer; segments in the body), extra waits
// (sched.after, a join), and a copy that packs and one that unpacks.
// CHECK-LABEL: sched.plan @gathered
// CHECK: sched.send to %{{.*}} tag %{{.*}} {
// CHECK-NEXT: sched.for %k = %{{.*}} to %{{.*}} {
// CHECK: sched.segment sendbuf[%{{.*}}, %{{.*}}]
// CHECK: sched.after @arrived[%k]
// CHECK: sched.recv from %{{.*}} tag %{{.*}} signal @arrived[%{{.*}}] {
// CHECK: sched.segment recvbuf[%{{.*}}, %{{.*}}]
// CHECK: sched.copy to scratch[%{{.*}}] {
// CHECK: sched.segment sendbuf[
// CHECK: sched.copy scratch[%{{.*}}] to {
// CHECK: sched.segment dst recvbuf[
sched.plan @gathered attributes {collective = "alltoall", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], events = ["arrived"], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %bytes = sched.const 64
  sched.scratch %bytes
  sched.phase "p" fifo(0) {
    %zero = sched.const 0
    %two = sched.const 2
    %eight = sched.const 8
    sched.send to %zero tag %zero {
      sched.for %k = %zero to %two {
        sched.segment sendbuf[%k, %eight]
        sched.after @arrived[%k]
      }
    }
    sched.recv from %zero tag %zero signal @arrived[%zero] {
      sched.segment recvbuf[%zero, %eight]
    }
    sched.copy to scratch[%zero] {
      sched.segment sendbuf[%eight, %eight]
    }
    sched.copy scratch[%zero] to {
      sched.segment dst recvbuf[%eight, %eight]
    }
  }
}

// The bind-time exchange, its tables and sums, and the plan's size range.
// CHECK-LABEL: sched.plan @exchange
// CHECK-SAME: block_bytes = array<i64: 0, 65536>
// CHECK: %[[S:[a-z0-9_]+]] = sched.sum %[[T:[a-z0-9_]+]] = %{{.*}} to %{{.*}} {
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = sched.table 1[%[[T]], %{{.*}}]
// CHECK-NEXT: sched.yield %[[V]]
// CHECK: %[[M:[a-z0-9_]+]] = sched.sum max %[[U:[a-z0-9_]+]] = %{{.*}} to %{{.*}} {
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = sched.table 1[%[[U]], %{{.*}}]
// CHECK-NEXT: sched.yield %[[W]]
// CHECK: %[[B:[a-z0-9_]+]] = sched.add %[[S]], %[[M]]
// CHECK: sched.scratch %[[B]]
// CHECK: sched.exchange {
// CHECK: sched.put table 1[%{{.*}}] = %{{.*}} to %{{.*}}
sched.plan @exchange attributes {collective = "alltoallv", algorithm = "custom", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>], topology = #coll.topology<shape = [4], wrap = [true], ranks_per_node = 1, alpha_ps = 0, beta_ps = 0, gamma_ps = 0>, block_bytes = array<i64: 0, 65536>} {
  %zero = sched.const 0
  %p = sched.size
  %r = sched.rank
  %s = sched.sum %t = %zero to %p {
    %v = sched.table 1 [%t, %r]
    sched.yield %v
  }
  %m = sched.sum max %u = %zero to %p {
    %w = sched.table 1 [%u, %r]
    sched.yield %w
  }
  %both = sched.add %s, %m
  sched.scratch %both
  sched.exchange {
    sched.for %k = %zero to %p {
      %n = sched.count sendcount[%k]
      sched.put table 1 [%r] = %n to %k
    }
  }
  sched.phase "p" fifo(0) {
  }
}

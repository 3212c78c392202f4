// A virtual-mesh alltoallv (docs/algorithms/vmesh.md) on a 3 x 2 mesh
// of ranks, written by hand in sched IR (a test input, not a lowering).
// Rank (x, y) lives at column x, row y.
//
// Phase 1 (FIFO 0, the row): rank (x, y) sends each row peer (x2, y) one
// message combining its blocks for every rank of column x2. Of the pieces
// (x2, y) receives, the one for itself is final and lands in its receive
// buffer; the others are staged in scratch. Phase 2 (FIFO 1, the column):
// rank (x, y) sends each column peer (x, y2) one message combining its own
// block for (x, y2) and the staged blocks from its row peers, each as soon as
// the row message carrying it has arrived (a join over the row arrivals).
//
// The counts are alltoallv's, bound at run time. A rank knows what it sends
// and receives, but not the sizes of the blocks it forwards: those come from
// the bind-time exchange (table 0, entry d = the bytes the putting rank sends
// to rank d), once per bind. The staged blocks are laid out by prefix sums
// over that table, ordered by (destination row, source column).
sched.plan @vmesh_3x2 attributes {collective = "alltoallv", algorithm = "vmesh", fifos = [#sched.fifo<send_depth = 4, recv_depth = 0>, #sched.fifo<send_depth = 4, recv_depth = 0>], events = ["row"], topology = #coll.topology<shape = [3, 2], wrap = [true, true], ranks_per_node = 1, alpha_ps = 1700000, beta_ps = 6480, gamma_ps = 1600>} {
  %r = sched.rank
  %zero = sched.const 0
  %one = sched.const 1
  %X = sched.dim 0
  %Y = sched.dim 1
  %XY = sched.mul %X, %Y
  %rx = sched.coord %r[0]
  %ry = sched.coord %r[1]
  // Every rank tells each row peer (itself included) what it sends to each
  // rank of that peer's column.
  sched.exchange {
    sched.for %x2 = %zero to %X {
      %peer = sched.rank_at (%x2, %ry) local %zero
      sched.for %y2 = %zero to %Y {
        %d = sched.rank_at (%x2, %y2) local %zero
        %n = sched.count sendcount[%d]
        sched.put table 0 [%d] = %n to %peer
      }
    }
  }
  // Staged bytes: the blocks from row peers (sx, ry), sx != rx, for the
  // other ranks (rx, dy), dy != ry, of this rank's column.
  %stage = sched.sum %k = %zero to %XY {
    %sx = sched.mod %k, %X
    %dy = sched.floordiv %k, %X
    %src = sched.rank_at (%sx, %ry) local %zero
    %dst = sched.rank_at (%rx, %dy) local %zero
    %n = sched.table 0 [%src, %dst]
    %a = sched.ne %sx, %rx
    %b = sched.ne %dy, %ry
    %staged = sched.and %a, %b
    %w = sched.select %staged, %n, %zero
    sched.yield %w
  }
  sched.scratch %stage
  sched.phase "row" fifo(0) {
    %sd = sched.count senddispl[%r]
    %rd = sched.count recvdispl[%r]
    %own = sched.count sendcount[%r]
    sched.copy sendbuf[%sd] to recvbuf[%rd] len %own
    sched.for %i = %one to %X {
      %a = sched.add %rx, %i
      %x2 = sched.mod %a, %X
      %b = sched.sub %rx, %i
      %xs = sched.mod %b, %X
      %to = sched.rank_at (%x2, %ry) local %zero
      %from = sched.rank_at (%xs, %ry) local %zero
      sched.send to %to tag %zero {
        sched.for %y2 = %zero to %Y {
          %d = sched.rank_at (%x2, %y2) local %zero
          %off = sched.count senddispl[%d]
          %len = sched.count sendcount[%d]
          sched.segment sendbuf[%off, %len]
        }
      }
      sched.recv from %from tag %zero signal @row[%xs] {
        sched.for %y2 = %zero to %Y {
          %mine = sched.eq %y2, %ry
          sched.if %mine {
            %off = sched.count recvdispl[%from]
            %len = sched.count recvcount[%from]
            sched.segment recvbuf[%off, %len]
          }
          %other = sched.ne %y2, %ry
          sched.if %other {
            %d = sched.rank_at (%rx, %y2) local %zero
            %key = sched.mul %y2, %X
            %slot = sched.add %key, %xs
            %off = sched.sum %k = %zero to %slot {
              %sx = sched.mod %k, %X
              %dy = sched.floordiv %k, %X
              %src = sched.rank_at (%sx, %ry) local %zero
              %dst = sched.rank_at (%rx, %dy) local %zero
              %n = sched.table 0 [%src, %dst]
              %a1 = sched.ne %sx, %rx
              %b1 = sched.ne %dy, %ry
              %staged = sched.and %a1, %b1
              %w = sched.select %staged, %n, %zero
              sched.yield %w
            }
            %len = sched.table 0 [%from, %d]
            sched.segment scratch[%off, %len]
          }
        }
      }
    }
  }
  sched.phase "column" fifo(1) {
    sched.for %j = %one to %Y {
      %a = sched.add %ry, %j
      %y2 = sched.mod %a, %Y
      %b = sched.sub %ry, %j
      %ys = sched.mod %b, %Y
      %to = sched.rank_at (%rx, %y2) local %zero
      %from = sched.rank_at (%rx, %ys) local %zero
      sched.send to %to tag %zero {
        sched.for %sx = %zero to %X {
          %self = sched.eq %sx, %rx
          sched.if %self {
            %off = sched.count senddispl[%to]
            %len = sched.count sendcount[%to]
            sched.segment sendbuf[%off, %len]
          }
          %peer = sched.ne %sx, %rx
          sched.if %peer {
            sched.after @row[%sx]
            %key = sched.mul %y2, %X
            %slot = sched.add %key, %sx
            %off = sched.sum %k = %zero to %slot {
              %kx = sched.mod %k, %X
              %dy = sched.floordiv %k, %X
              %src = sched.rank_at (%kx, %ry) local %zero
              %dst = sched.rank_at (%rx, %dy) local %zero
              %n = sched.table 0 [%src, %dst]
              %a1 = sched.ne %kx, %rx
              %b1 = sched.ne %dy, %ry
              %staged = sched.and %a1, %b1
              %w = sched.select %staged, %n, %zero
              sched.yield %w
            }
            %src = sched.rank_at (%sx, %ry) local %zero
            %len = sched.table 0 [%src, %to]
            sched.segment scratch[%off, %len]
          }
        }
      }
      sched.recv from %from tag %zero {
        sched.for %sx = %zero to %X {
          %src = sched.rank_at (%sx, %ys) local %zero
          %off = sched.count recvdispl[%src]
          %len = sched.count recvcount[%src]
          sched.segment recvbuf[%off, %len]
        }
      }
    }
  }
}

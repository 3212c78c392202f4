//===- LowerSliceRings.cpp - seed 003's node-team allreduce ---------------===//
//
// Mamidala et al. (seed 003, docs/design.md) make MPI_Allreduce on BG/P
// faster by treating a node's C cores as a team: each core combines a slice
// of the node's contributions in shared memory, the network part runs per
// slice, and the result spreads through shared memory. Here the message's E
// elements are cut into Q part ranges of ⌈E/Q⌉ and each part range into C
// slices (the last ones short or empty, never splitting an element); local
// rank l owns slice l of every part. For each part q, in turn:
//
//   fold   (FIFO 0) the rank copies part q of its send buffer into its row
//          of the arena (row l at l·m), NOTIFYs counter q, AWAITs it, and
//          combines its slice of the C rows into its receive buffer: a copy
//          of row 0, then rows 1, ..., C − 1 combined into it, in that order.
//          (Reading its own row from its send buffer instead, and copying
//          only the other slices in, moved less but ran slower under SMPI:
//          2840.7 against 2609.0 us on the BG/P-like torus at 1 MiB);
//   rings  (FIFO 1 + q) allreduces the slice among the ranks of local index
//          l, one per node. On a torus (Q = 2·D) part q crosses the
//          dimensions in the order rotated by q/2, a reduce-scatter over the
//          ring of each dimension and then an allgather over the same rings
//          in reverse order; even parts go + round each ring and odd parts
//          −, so the parts use every link of a node in both directions.
//          Behind a switch (Q = 1) one ring runs over the nodes;
//   spread (FIFO Q + 1) copies its finished slice into the arena (over row
//          0's bytes of it, which only it read), NOTIFYs counter Q + q,
//          AWAITs it, and copies the part's other slices out of the arena.
//
// Part q + 1 folds while part q is on the network, and part q spreads while
// later parts are. With one rank per node there is no arena: the fold is a
// copy and there is no spread. Ring stage k of a part: the range it holds
// (the slice at k = 0) is cut into n_k blocks of whole elements; a rank at
// ring position v (+ parts: its coordinate; − parts: minus it, so that
// position v + 1 is always the next rank) sends block v − s at step s and
// combines the arriving block v − s − 1 into its receive buffer (its own
// partial the left operand), ending with block v + 1 complete, the range of
// stage k + 1. The allgather sends block v + 1 − g at step g and receives
// block v − g into its place. Each element is combined at one rank in an
// order the plan fixes and then only copied, so every rank holds the same
// bits.
//
// Events: a zero-length COPY marks each stage boundary of a part (a
// transfer of length 0 still signals): it signals the event of the block a
// stage starts from (its block v's "combination", the allgather's own
// block's "arrival"), so the first step waits like the others and a ring of
// one rank, which has no steps, still has a signaller for every event a
// later stage waits on (a wait on an event nothing signals is an error). Scratch: one region of the largest
// slice per (stage, part), a block at its offset within the slice.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

#include "collc/plan.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERSLICERINGS
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;
using Ev = ScheduleBuilder::EventRef;

namespace {

/// Parts behind a switch: their rings would share the node's one link, and
/// more parts overlap more of the on-node work but pay more start-ups, which
/// a rank pays in series: under SMPI on 16 nodes of 8 cores one part beat
/// four at 64 KiB and at 1 MiB on the default network (1292.5 against
/// 1339.5 us, 17047.9 against 20760.5) and at 64 KiB on an InfiniBand-like
/// one (246.2 against 457.2; 1815.0 against 1739.6 at 1 MiB), measured with
/// the fold that read the own row from the send buffer.
/// sliceRingsAllreduceUs keeps the same number.
constexpr int64_t kSwitchParts = 1;

/// One ring a part crosses: its size, this rank's coordinate on it, and the
/// rank of local index l at another coordinate.
struct Ring {
  Value n, x;
  std::function<Value(Value)> rankAt;
};

/// What one stage of a part holds: the range and the block geometry.
struct Stage {
  Value n, v, next, prev, id;  // id: the stage's first event index
  Value offset, length, block; // the range in recvbuf, block bytes
  Value own;                   // the block this rank completes
};

LogicalResult lowerSliceRings(coll::AllreduceOp op, OpBuilder &builder) {
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth"); // decided by selection
  coll::TopologyAttr topo = op.getTopology();
  StringRef rop = op.getReduceOp(), rtype = op.getDatatype();
  int64_t element = static_cast<int64_t>(
      collrt_reduce_type_size(collrt_reduce_type_from_name(rtype.str().c_str())));
  int64_t cores = topo.getRanksPerNode();
  int64_t ndims = static_cast<int64_t>(topo.getShape().size());
  bool switched = topo.getSwitched();
  // a switch: one ring over the nodes (kSwitchParts); a torus: one stage
  // per dimension, each dimension order both ways round
  int64_t stages = switched ? 1 : ndims;
  int64_t parts = switched ? kSwitchParts : 2 * ndims;
  MLIRContext *ctx = op.getContext();
  auto local = sched::FifoAttr::get(ctx, 1, 0);
  SmallVector<sched::FifoAttr> fifos{local};
  for (int64_t q = 0; q < parts; ++q)
    fifos.push_back(pipelineFifo(ctx, depth));
  if (cores > 1) // spread
    fifos.push_back(local);
  createPlanFor(builder, op, "allreduce", "slice-rings", fifos,
                {"in", "all", "folded", "got", "red", "sent", "gathered", "done", "out",
                 "back"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), e = b.c(element), c = b.c(cores);
  Value r = b.rank(), l = b.mod(r, c), node = b.floordiv(r, c);
  Value m = b.count(CountArray::recvcount, r);
  /// [start, start + length) of piece j when `bytes` at `base` are cut into
  /// pieces of `piece` bytes (whole elements).
  auto pieceOf = [&](Value bytes, Value ways) {
    return b.mul(b.ceildiv(b.floordiv(bytes, e), ways), e);
  };
  auto startOf = [&](Value base, Value bytes, Value piece, Value j) {
    return b.add(base, b.min(b.mul(j, piece), bytes));
  };
  auto lengthOf = [&](Value bytes, Value piece, Value j) {
    return b.sub(b.min(b.mul(b.add(j, one), piece), bytes), b.min(b.mul(j, piece), bytes));
  };
  // The message in Q part ranges, each in C slices: local rank l combines
  // slice l of every part. A part's fold, rings and spread follow one
  // another, so part q + 1 folds while part q is on the network.
  Value partPiece = pieceOf(m, b.c(parts));
  auto partStart = [&](Value q) { return startOf(zero, m, partPiece, q); };
  auto partLength = [&](Value q) { return lengthOf(m, partPiece, q); };
  auto slicePiece = [&](Value q) { return pieceOf(partLength(q), c); };
  auto sliceStart = [&](Value q) {
    return startOf(partStart(q), partLength(q), slicePiece(q), l);
  };
  auto sliceLength = [&](Value q) { return lengthOf(partLength(q), slicePiece(q), l); };
  // scratch: one slice-sized region per (stage, part), the largest slice's
  Value sliceMax = pieceOf(pieceOf(b.count(CountArray::recvcount, zero), b.c(parts)), c);
  builder.create<sched::ScratchOp>(op.getLoc(), b.mul(b.c(stages * parts), sliceMax));
  if (cores > 1)
    b.arena(b.mul(c, m), b.c(2 * parts));
  OpBuilder::InsertPoint top = builder.saveInsertionPoint();
  /// Inside `transfer`'s body (the insertion point is restored after).
  auto inBody = [&](Operation *transfer, function_ref<void()> body) {
    OpBuilder::InsertionGuard guard(builder);
    Region &region = transfer->getRegion(0);
    if (region.empty())
      region.emplaceBlock();
    builder.setInsertionPointToEnd(&region.front());
    body();
  };
  /// A zero-length COPY: a stage boundary that waits on `wait` and signals
  /// `signal` (more waits go in its body).
  auto marker = [&](Ev wait, Ev signal) {
    return b.copyWith(Buffer::recvbuf, zero, Buffer::recvbuf, zero, zero, wait, signal);
  };

  b.phase("fold", 0);
  {
    sched::ForOp loop = b.forLoop(zero, b.c(parts));
    Value q = loop.getInductionVar();
    if (cores == 1) {
      b.copyWith(Buffer::sendbuf, partStart(q), Buffer::recvbuf, partStart(q), partLength(q),
                 std::nullopt, Ev{"folded", {q, zero}});
    } else {
      // the part's range of this rank's contribution into its row, counter q
      b.copyWith(Buffer::sendbuf, partStart(q), Buffer::arena, b.add(b.mul(l, m), partStart(q)),
                 partLength(q), std::nullopt, Ev{"in", {q}});
      b.notify(q, Ev{"in", {q}});
      b.await(q, Ev{"all", {q}});
      b.copyWith(Buffer::arena, sliceStart(q), Buffer::recvbuf, sliceStart(q), sliceLength(q),
                 Ev{"all", {q}}, Ev{"folded", {q, zero}});
      sched::ForOp rows = b.forLoop(one, c);
      Value row = rows.getInductionVar();
      b.reduceInto(rop, rtype, Buffer::arena, b.add(b.mul(row, m), sliceStart(q)),
                   Buffer::recvbuf, sliceStart(q), sliceLength(q),
                   Ev{"folded", {q, b.sub(row, one)}}, Ev{"folded", {q, row}});
    }
  }
  builder.restoreInsertionPoint(top);

  // The ring of stage k of a part of rotation `rot`: dimension
  // (rot + k) mod D, picked at run time so that one phase loop serves every
  // part and the plan does not grow with their number.
  auto ringOf = [&](int64_t k, Value rot) -> Ring {
    if (switched) {
      Value nodes = b.nodes(ndims);
      return Ring{nodes, node, [&, nodes](Value x) { return b.add(b.mul(x, c), l); }};
    }
    Value d = b.mod(b.add(rot, b.c(k)), b.c(ndims));
    SmallVector<Value, 3> coords, extents;
    for (int64_t i = 0; i < ndims; ++i) {
      coords.push_back(b.coord(r, i));
      extents.push_back(b.dim(i));
    }
    return Ring{b.pick(d, extents), b.pick(d, coords), [&, coords, d](Value x) {
                  SmallVector<Value, 3> at;
                  for (auto [i, coord] : llvm::enumerate(coords))
                    at.push_back(b.select(b.eq(d, b.c(i)), x, coord));
                  return b.rankAt(at, l);
                }};
  };

  // One phase loop: part q runs on FIFO 1 + q.
  sched::ForOp partLoop = b.forLoop(zero, b.c(parts));
  {
    Value q = partLoop.getInductionVar();
    Value two = b.c(2);
    Value forward = b.eq(b.mod(q, two), zero);
    Value rot = b.floordiv(q, two);
    Value sliceAt = sliceStart(q);
    Value offset = sliceAt, length = sliceLength(q);
    b.phase("parts", 1, q);
    SmallVector<Stage, 3> done;
    for (int64_t k = 0; k < stages; ++k) {
      Ring ring = ringOf(k, rot);
      Stage st;
      st.n = ring.n;
      Value up = ring.rankAt(b.mod(b.add(ring.x, one), ring.n));
      Value down = ring.rankAt(b.mod(b.sub(ring.x, one), ring.n));
      st.v = b.select(forward, ring.x, b.mod(b.sub(ring.n, ring.x), ring.n));
      st.next = b.select(forward, up, down);
      st.prev = b.select(forward, down, up);
      st.id = b.add(b.mul(q, b.c(stages)), b.c(k));
      st.offset = offset;
      st.length = length;
      st.block = pieceOf(length, ring.n);
      st.own = b.mod(b.add(st.v, one), ring.n);
      // The range is ready: the marker stands for block v's combination
      // (block v is never combined in its own stage), once the slice is
      // folded or the previous stage's own block is complete (its last
      // combination, or its marker where that ring has one rank: own = v).
      Ev ready = k == 0 ? Ev{"folded", {q, b.c(cores - 1)}}
                        : Ev{"red", {done.back().id, done.back().own}};
      marker(ready, Ev{"red", {st.id, st.v}});
      auto blockStart = [&, st](Value j) { return startOf(st.offset, st.length, st.block, j); };
      auto blockLength = [&, st](Value j) { return lengthOf(st.length, st.block, j); };
      auto scratchAt = [&, st, k, q, sliceAt](Value j) {
        return b.add(b.mul(b.add(b.c(k * parts), q), sliceMax), b.sub(blockStart(j), sliceAt));
      };
      Value tag = b.c(2 * k);
      sched::ForOp steps = b.forLoop(zero, b.sub(st.n, one));
      Value s = steps.getInductionVar();
      Value sent = b.mod(b.sub(st.v, s), st.n);
      Value got = b.mod(b.sub(b.sub(st.v, s), one), st.n);
      b.sendSignalling(Buffer::recvbuf, blockStart(sent), blockLength(sent), st.next, tag,
                       Ev{"red", {st.id, sent}}, Ev{"sent", {st.id, sent}});
      b.recv(Buffer::scratch, scratchAt(got), blockLength(got), st.prev, tag,
             Ev{"got", {st.id, got}});
      sched::ReduceOp combine =
          b.reduceInto(rop, rtype, Buffer::scratch, scratchAt(got), Buffer::recvbuf,
                       blockStart(got), blockLength(got), Ev{"got", {st.id, got}},
                       Ev{"red", {st.id, got}});
      inBody(combine, [&] { b.after("red", {st.id, st.v}); });
      builder.setInsertionPointAfter(steps);
      offset = blockStart(st.own);
      length = blockLength(st.own);
      done.push_back(st);
    }
    // Allgather, innermost stage first. A marker stands for the arrival of
    // stage k's own block (the range of stage k + 1, whole): the last
    // stage's combination, or every block of the stage inside it.
    auto whole = [&](const Stage &st) { return Ev{"gathered", {st.id, st.own}}; };
    marker(Ev{"red", {done.back().id, done.back().own}}, whole(done.back()));
    /// A marker waiting on every block of `st` (the own block's marker too).
    auto afterAllOf = [&](const Stage &st, Ev signal) {
      sched::CopyOp all = marker(Ev{"gathered", {st.id, st.own}}, signal);
      inBody(all, [&] {
        sched::ForOp blocks = b.forLoop(zero, st.n);
        b.after("gathered", {st.id, blocks.getInductionVar()});
      });
    };
    for (int64_t k = stages - 1; k >= 0; --k) {
      Stage st = done[k];
      auto blockStart = [&](Value j) { return startOf(st.offset, st.length, st.block, j); };
      auto blockLength = [&](Value j) { return lengthOf(st.length, st.block, j); };
      Value tag = b.c(2 * k + 1);
      sched::ForOp steps = b.forLoop(zero, b.sub(st.n, one));
      Value g = steps.getInductionVar();
      Value out = b.mod(b.sub(b.add(st.v, one), g), st.n);
      Value in = b.mod(b.sub(st.v, g), st.n);
      b.send(Buffer::recvbuf, blockStart(out), blockLength(out), st.next, tag,
             Ev{"gathered", {st.id, out}});
      // the block's bytes were sent out during the reduce-scatter
      b.recvWaiting(Buffer::recvbuf, blockStart(in), blockLength(in), st.prev, tag,
                    Ev{"sent", {st.id, in}}, Ev{"gathered", {st.id, in}});
      builder.setInsertionPointAfter(steps);
      afterAllOf(st, k > 0 ? whole(done[k - 1]) : Ev{"done", {q}});
    }
    builder.restoreInsertionPoint(top);
  }

  if (cores > 1) {
    // each part's slice into the arena once its rings are done (over row
    // 0's bytes, which only this rank read), counter Q + q; then the part's
    // other slices out of it
    b.phase("spread", parts + 1);
    sched::ForOp loop = b.forLoop(zero, b.c(parts));
    Value q = loop.getInductionVar();
    b.copyWith(Buffer::recvbuf, sliceStart(q), Buffer::arena, sliceStart(q), sliceLength(q),
               Ev{"done", {q}}, Ev{"out", {q}});
    Value counter = b.add(b.c(parts), q);
    b.notify(counter, Ev{"out", {q}});
    b.await(counter, Ev{"back", {q}});
    Value sliceEnd = b.add(sliceStart(q), sliceLength(q));
    b.copyWith(Buffer::arena, partStart(q), Buffer::recvbuf, partStart(q),
               b.sub(sliceStart(q), partStart(q)), Ev{"back", {q}}, std::nullopt);
    b.copyWith(Buffer::arena, sliceEnd, Buffer::recvbuf, sliceEnd,
               b.sub(b.add(partStart(q), partLength(q)), sliceEnd), Ev{"back", {q}},
               std::nullopt);
    builder.restoreInsertionPoint(top);
  }
  return success();
}

struct CollLowerSliceRingsPass
    : public collc::impl::CollLowerSliceRingsBase<CollLowerSliceRingsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateSliceRingsLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns),
                                  ArrayRef<StringRef>{"slice-rings"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateSliceRingsLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AllreduceOp>(patterns, {"slice-rings"}, lowerSliceRings);
}

//===- LowerSliceRings.cpp - seed 003's node-team allreduce ---------------===//
//
// Mamidala et al. (seed 003, docs/design.md) make MPI_Allreduce on BG/P
// faster by treating a node's C cores as a team: each core combines a slice
// of the node's contributions in shared memory, the network part runs per
// slice, and the result spreads through shared memory. Here, with E
// elements cut into C slices of ⌈E/C⌉ (the last short or empty, never
// splitting an element), local rank l:
//
//   fold   (FIFO 0) copies its send buffer into its row of the arena
//          (contribution l at l·m), NOTIFYs counter 0, AWAITs it, and
//          combines slice l of the C rows into its receive buffer: a copy
//          of row 0, then row 1, ..., C − 1 combined into it, in that order;
//   parts  (FIFOs 1..Q) allreduce slice l among the ranks of local index l,
//          one per node, in Q parts of the slice that run side by side. On a
//          torus, part q crosses the dimensions in the order rotated by q/2,
//          a reduce-scatter over the ring of each dimension and then an
//          allgather over the same rings in reverse order; even parts go +
//          round each ring and odd parts −, so the 2·D parts use every link
//          of a node in both directions. Behind a switch one part runs one
//          ring over the nodes;
//   spread (FIFO Q + 1) copies its finished slice into the arena (over row
//          0's slice l, which only it read), NOTIFYs counter 1, AWAITs it,
//          and copies the other slices out of the arena.
//
// With one rank per node there is no arena: fold is a copy and spread is
// nothing. Ring stage k of a part: the range it holds (the whole part at
// k = 0) is cut into n_k blocks of whole elements; a rank at ring position v
// (+ parts: its coordinate; − parts: minus it, so that position v + 1 is
// always the next rank) sends block v − s at step s and combines the
// arriving block v − s − 1 into its receive buffer (its own partial the
// left operand), ending with block v + 1 complete, the range of stage k + 1.
// The allgather sends block v + 1 − g at step g and receives block v − g
// into its place. Each element is combined at one rank in an order the plan
// fixes and then only copied, so every rank holds the same bits.
//
// Events: a zero-length COPY marks each stage boundary of a part (a
// transfer of length 0 still signals), so a stage waits on one event
// whatever the ring sizes before it (a ring of 1 has no steps, and a wait on
// an event nothing signals is an error). Scratch: one region of ⌈E/C⌉
// elements per dimension, a block at its offset within the slice, so stages
// and parts never share scratch bytes.
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
  // a switch: one ring over the nodes; a torus: one stage per dimension
  int64_t stages = switched ? 1 : ndims;
  int64_t parts = switched ? 1 : 2 * ndims;
  MLIRContext *ctx = op.getContext();
  auto local = sched::FifoAttr::get(ctx, 1, 0);
  SmallVector<sched::FifoAttr> fifos{local};
  for (int64_t q = 0; q < parts; ++q)
    fifos.push_back(pipelineFifo(ctx, depth));
  fifos.push_back(local);
  createPlanFor(builder, op, "allreduce", "slice-rings", fifos,
                {"in", "all", "folded", "got", "red", "sent", "gathered", "mark", "out",
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
  Value slice = pieceOf(m, c);
  Value sliceStart = startOf(zero, m, slice, l), sliceLength = lengthOf(m, slice, l);
  builder.create<sched::ScratchOp>(
      op.getLoc(), b.mul(b.c(stages), pieceOf(b.count(CountArray::recvcount, zero), c)));
  if (cores > 1)
    b.arena(b.mul(c, m), b.c(2));
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
  Ev sliced{"folded", {b.c(cores - 1)}};

  b.phase("fold", 0);
  if (cores == 1) {
    b.copyWith(Buffer::sendbuf, zero, Buffer::recvbuf, zero, m, std::nullopt,
               Ev{"folded", {zero}});
  } else {
    b.copyWith(Buffer::sendbuf, zero, Buffer::arena, b.mul(l, m), m, std::nullopt,
               Ev{"in", {zero}});
    b.notify(zero, Ev{"in", {zero}});
    b.await(zero, Ev{"all", {zero}});
    b.copyWith(Buffer::arena, sliceStart, Buffer::recvbuf, sliceStart, sliceLength,
               Ev{"all", {zero}}, Ev{"folded", {zero}});
    sched::ForOp rows = b.forLoop(one, c);
    Value row = rows.getInductionVar();
    b.reduceInto(rop, rtype, Buffer::arena, b.add(b.mul(row, m), sliceStart), Buffer::recvbuf,
                 sliceStart, sliceLength, Ev{"folded", {b.sub(row, one)}},
                 Ev{"folded", {row}});
  }
  builder.restoreInsertionPoint(top);

  // The rings of stage k of a part of rotation `rot`.
  auto ringOf = [&](int64_t k, int64_t rot) -> Ring {
    if (switched) {
      Value nodes = b.nodes(ndims);
      return Ring{nodes, node, [&, nodes](Value x) { return b.add(b.mul(x, c), l); }};
    }
    int64_t d = (rot + k) % ndims;
    SmallVector<Value, 3> coords;
    for (int64_t i = 0; i < ndims; ++i)
      coords.push_back(b.coord(r, i));
    return Ring{b.dim(d), coords[d], [&, coords, d](Value x) {
                  SmallVector<Value, 3> at(coords);
                  at[d] = x;
                  return b.rankAt(at, l);
                }};
  };

  Value partBytes = pieceOf(sliceLength, b.c(parts));
  for (int64_t q = 0; q < parts; ++q) {
    b.phase("part" + std::to_string(q), 1 + q);
    bool forward = q % 2 == 0;
    int64_t rot = q / 2;
    Value offset = startOf(sliceStart, sliceLength, partBytes, b.c(q));
    Value length = lengthOf(sliceLength, partBytes, b.c(q));
    auto mark = [&](int64_t t) { return Ev{"mark", {b.c(q), b.c(t)}}; };
    SmallVector<Stage, 3> done;
    for (int64_t k = 0; k < stages; ++k) {
      Ring ring = ringOf(k, rot);
      Stage st;
      st.n = ring.n;
      Value up = ring.rankAt(b.mod(b.add(ring.x, one), ring.n));
      Value down = ring.rankAt(b.mod(b.sub(ring.x, one), ring.n));
      st.v = forward ? ring.x : b.mod(b.sub(ring.n, ring.x), ring.n);
      st.next = forward ? up : down;
      st.prev = forward ? down : up;
      st.id = b.c(q * stages + k);
      st.offset = offset;
      st.length = length;
      st.block = pieceOf(length, ring.n);
      st.own = b.mod(b.add(st.v, one), ring.n);
      // the range is ready: the previous stage's last combination is done
      if (k == 0) {
        marker(sliced, mark(0));
      } else {
        Stage &last = done.back();
        sched::CopyOp m = marker(mark(k - 1), mark(k));
        inBody(m, [&] {
          b.ifThen(b.lt(one, last.n));
          b.after("red", {last.id, last.own});
        });
      }
      auto blockStart = [&, st](Value j) { return startOf(st.offset, st.length, st.block, j); };
      auto blockLength = [&, st](Value j) { return lengthOf(st.length, st.block, j); };
      auto scratchAt = [&, st, k](Value j) {
        return b.add(b.mul(b.c(k), slice), b.sub(blockStart(j), sliceStart));
      };
      Value tag = b.c(2 * k);
      sched::ForOp steps = b.forLoop(zero, b.sub(st.n, one));
      Value s = steps.getInductionVar();
      Value sent = b.mod(b.sub(st.v, s), st.n);
      Value got = b.mod(b.sub(b.sub(st.v, s), one), st.n);
      OpBuilder::InsertPoint step = builder.saveInsertionPoint();
      b.ifThen(b.eq(s, zero));
      b.sendSignalling(Buffer::recvbuf, blockStart(sent), blockLength(sent), st.next, tag,
                       mark(k), Ev{"sent", {st.id, sent}});
      builder.restoreInsertionPoint(step);
      b.ifThen(b.ne(s, zero));
      b.sendSignalling(Buffer::recvbuf, blockStart(sent), blockLength(sent), st.next, tag,
                       Ev{"red", {st.id, sent}}, Ev{"sent", {st.id, sent}});
      builder.restoreInsertionPoint(step);
      b.recv(Buffer::scratch, scratchAt(got), blockLength(got), st.prev, tag,
             Ev{"got", {st.id, got}});
      sched::ReduceOp combine =
          b.reduceInto(rop, rtype, Buffer::scratch, scratchAt(got), Buffer::recvbuf,
                       blockStart(got), blockLength(got), Ev{"got", {st.id, got}},
                       Ev{"red", {st.id, got}});
      inBody(combine, [&] { b.after("mark", {b.c(q), b.c(k)}); });
      builder.setInsertionPointAfter(steps);
      offset = blockStart(st.own);
      length = blockLength(st.own);
      done.push_back(st);
    }
    {
      // the innermost range is complete
      Stage &last = done.back();
      sched::CopyOp m = marker(mark(stages - 1), mark(stages));
      inBody(m, [&] {
        b.ifThen(b.lt(one, last.n));
        b.after("red", {last.id, last.own});
      });
    }
    // allgather: stage k's ring once the range of stage k + 1 is whole
    // (marker t = 2·stages − k − 1), ending at marker 2·stages − k
    for (int64_t k = stages - 1; k >= 0; --k) {
      Stage st = done[k];
      auto blockStart = [&](Value j) { return startOf(st.offset, st.length, st.block, j); };
      auto blockLength = [&](Value j) { return lengthOf(st.length, st.block, j); };
      Value tag = b.c(2 * k + 1);
      sched::ForOp steps = b.forLoop(zero, b.sub(st.n, one));
      Value g = steps.getInductionVar();
      Value out = b.mod(b.sub(b.add(st.v, one), g), st.n);
      Value in = b.mod(b.sub(st.v, g), st.n);
      OpBuilder::InsertPoint step = builder.saveInsertionPoint();
      b.ifThen(b.eq(g, zero));
      b.send(Buffer::recvbuf, blockStart(out), blockLength(out), st.next, tag,
             mark(2 * stages - k - 1));
      builder.restoreInsertionPoint(step);
      b.ifThen(b.ne(g, zero));
      b.send(Buffer::recvbuf, blockStart(out), blockLength(out), st.next, tag,
             Ev{"gathered", {st.id, out}});
      builder.restoreInsertionPoint(step);
      // the block's bytes were sent out during the reduce-scatter
      b.recvWaiting(Buffer::recvbuf, blockStart(in), blockLength(in), st.prev, tag,
                    Ev{"sent", {st.id, in}}, Ev{"gathered", {st.id, in}});
      builder.setInsertionPointAfter(steps);
      sched::CopyOp m = marker(mark(2 * stages - k - 1), mark(2 * stages - k));
      inBody(m, [&] {
        sched::ForOp arrivals = b.forLoop(zero, b.sub(st.n, one));
        b.after("gathered", {st.id, b.mod(b.sub(st.v, arrivals.getInductionVar()), st.n)});
      });
    }
    builder.restoreInsertionPoint(top);
  }

  if (cores > 1) {
    b.phase("spread", parts + 1);
    sched::CopyOp mine =
        b.copyWith(Buffer::recvbuf, sliceStart, Buffer::arena, sliceStart, sliceLength,
                   Ev{"mark", {zero, b.c(2 * stages)}}, Ev{"out", {zero}});
    inBody(mine, [&] {
      for (int64_t q = 1; q < parts; ++q)
        b.after("mark", {b.c(q), b.c(2 * stages)});
    });
    b.notify(one, Ev{"out", {zero}});
    b.await(one, Ev{"back", {zero}});
    Value sliceEnd = b.add(sliceStart, sliceLength);
    b.copyWith(Buffer::arena, zero, Buffer::recvbuf, zero, sliceStart, Ev{"back", {zero}},
               std::nullopt);
    b.copyWith(Buffer::arena, sliceEnd, Buffer::recvbuf, sliceEnd, b.sub(m, sliceEnd),
               Ev{"back", {zero}}, std::nullopt);
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

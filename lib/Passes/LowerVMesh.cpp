//===- LowerVMesh.cpp - seed 000's 2D virtual-mesh message combining ------===//
//
// For short blocks a direct alltoall pays P − 1 message start-ups per rank
// (α = 1.7 µs each on BG/L) for a few bytes each. Seed 000 §4.2 (DESIGN.md
// A3) lays the P ranks out as a Pvx × Pvy virtual mesh, rank r at column
// r mod Pvx of row r / Pvx, and combines:
//
//   row    (FIFO 0) rank (x, y) sends each row peer (x2, y) ONE message with
//          its Pvy blocks for the ranks of column x2; of what (x2, y)
//          receives, the block for itself lands in its receive buffer and
//          the others are staged in scratch;
//   column (FIFO 1) rank (x, y) sends each column peer (x, y2) ONE message
//          with the Pvx blocks for it: its own, and those staged from every
//          row peer, each segment waiting for the row message that brought
//          it (a join over the row arrivals, event `row`).
//
// (Pvx − 1) + (Pvy − 1) messages per rank instead of P − 1, at the price of
// every byte crossing the network twice and a copy-free re-sort on the
// intermediate (gathered segments, no pack). Seed 000's eq. 4 models it.
//
// The mesh. Rows are Pvx consecutive ranks, and ranks are numbered core
// fastest, then x, y, z, so a row is a prefix of the torus dimensions
// (cores, an x line, an XY plane, ...) or such a prefix with its last
// dimension cut into equal parts: on 8×8×8, 32 × 16 with rows on half XY
// planes, as the seed ran it. Of those shapes the cost model's vmeshRows
// takes the one closest to square (the seed: rows and columns of about the
// same size), the wider one on a tie. Pvx is an expression of the topology (ranks per
// node, DIM), so the verifier's smaller instances of the program get a mesh
// of their own shape; a part count that does not divide a smaller extent
// keeps the whole extent there, so Pvx always divides P.
//
// alltoallv. A forwarder does not know the sizes of the blocks it stages.
// The bind-time exchange (plan format v2) tells it once per bind: every rank
// PUTs to each row peer the bytes it sends to every rank of that peer's
// column (table 0) and the total it will stage there (table 1). Staged
// blocks are laid out by source column, then destination row, with prefix
// sums over those tables: O(Pvx + Pvy) terms per segment, none over P. No
// per-block size header travels with the data (seed 000's `proto`): the
// sizes are known before the first start.
//
// smp-all-cores (seed 002's proposed design, DESIGN.md A4) is this schedule
// with one row per node (Pvx = the cores of a node, Pvy = the nodes): the row
// phase is the intra-node exchange after which core c of node A holds all
// that A sends to core c of every node, and the column phase is C concurrent
// inter-node alltoalls, one per local index, one message per node pair and
// core. Every core drives the network (onload NICs), where smp-leader
// funnels a node's traffic through one.
//
//===----------------------------------------------------------------------===//
#include "dialect/Coll/CollOps.h"
#include "lib/Cost/CostModel.h"
#include "dialect/Coll/CollAlgorithms.h"
#include "lib/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERVMESH
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


/// Pvx as an expression of the topology (see the file comment).
Value meshWidth(ScheduleBuilder &b, const MeshRows &rows) {
  Value width = b.expr<sched::RanksPerNodeOp>();
  for (size_t d = 0; d < rows.dims; ++d)
    width = b.mul(width, b.dim(static_cast<int64_t>(d)));
  Value extent = b.dim(static_cast<int64_t>(rows.dims));
  Value part = extent;
  if (rows.parts > 1) {
    Value parts = b.c(rows.parts);
    Value divides = b.eq(b.mod(extent, parts), b.c(0));
    part = b.select(divides, b.floordiv(extent, parts), extent);
  }
  return b.mul(width, part);
}



template <typename OpTy>
void lowerVMesh(OpTy op, bool isV, bool perNode) {
  OpBuilder builder(op);
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = options.getInt("fifo_depth").value_or(algorithms::defaultFifoDepth("vmesh"));
  coll::TopologyAttr topology = op.getTopology();
  // the cost model's mesh: what it predicts is what runs
  MeshRows rows = vmeshRows(topology.getShape(), topology.getRanksPerNode());
  MLIRContext *ctx = op.getContext();
  // Both phases post in matching shift orders (step i: to +i, from −i), so a
  // bounded receive window is deadlock-free.
  auto fifo = sched::FifoAttr::get(ctx, depth, depth);
  createPlanFor(builder, op, isV ? "alltoallv" : "alltoall",
                perNode ? "smp-all-cores" : "vmesh", {fifo, fifo},
                {"row"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), r = b.rank(), p = b.size();
  Value pvx, pvy;
  if (perNode) {
    // the nodes from the topology, so that the plan runs on exactly N·C ranks
    pvx = b.expr<sched::RanksPerNodeOp>();
    pvy = b.nodes(topology.getShape().size());
  } else {
    pvx = meshWidth(b, rows);
    pvy = b.floordiv(p, pvx);
  }
  Value vx = b.mod(r, pvx), vy = b.floordiv(r, pvx);
  auto rankAt = [&](Value x, Value y) { return b.add(b.mul(y, pvx), x); };

  // Staged blocks: from row peer (sx, vy) for column rank (vx, dy).
  Value m = isV ? Value() : b.count(CountArray::recvcount, r);
  std::function<Value(Value, Value)> stagedLen, stagedOff;
  Value staged;
  if (!isV) {
    stagedLen = [&](Value, Value) { return m; };
    stagedOff = [&](Value sx, Value dy) { return b.mul(b.add(b.mul(dy, pvx), sx), m); };
    staged = b.mul(p, m);
  } else {
    // table 0 [d]: bytes the putter sends to rank d (d in my column);
    // table 1 [0]: bytes the putter stages on me (its blocks for my column
    // but me, none when it is me).
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    sched::ForOp peers = b.forLoop(zero, pvx);
    Value x2 = peers.getInductionVar();
    Value peer = rankAt(x2, vy);
    Value total = b.sum(zero, pvy, [&](Value y2) {
      Value n = b.count(CountArray::sendcount, rankAt(x2, y2));
      return b.select(b.logicalAnd(b.ne(y2, vy), b.ne(x2, vx)), n, zero);
    });
    b.put(1, zero, total, peer);
    sched::ForOp dests = b.forLoop(zero, pvy);
    Value d = rankAt(x2, dests.getInductionVar());
    b.put(0, d, b.count(CountArray::sendcount, d), peer);
  }
  if (isV) { // what the exchange told this rank
    stagedLen = [&](Value sx, Value dy) {
      return b.table(0, rankAt(sx, vy), rankAt(vx, dy));
    };
    auto regionOf = [&](Value sx) { return b.table(1, rankAt(sx, vy), zero); };
    stagedOff = [&, regionOf](Value sx, Value dy) {
      Value base = b.sum(zero, sx, regionOf);
      Value within = b.sum(zero, dy, [&](Value y) {
        return b.select(b.ne(y, vy), stagedLen(sx, y), zero);
      });
      return b.add(base, within);
    };
    staged = b.sum(zero, pvx, regionOf);
  }
  builder.create<sched::ScratchOp>(op.getLoc(), staged);

  sched::PhaseOp rowPhase = b.phase("row", 0);
  b.copy(Buffer::sendbuf, b.count(CountArray::senddispl, r), Buffer::recvbuf,
         b.count(CountArray::recvdispl, r), b.count(CountArray::sendcount, r));
  {
    sched::ForOp loop = b.forLoop(one, pvx);
    Value i = loop.getInductionVar();
    Value x2 = b.mod(b.add(vx, i), pvx), xs = b.mod(b.sub(vx, i), pvx);
    Value to = rankAt(x2, vy), from = rankAt(xs, vy);
    {
      OpBuilder::InsertionGuard guard(builder);
      b.sendGathered(to, zero);
      sched::ForOp blocks = b.forLoop(zero, pvy);
      Value d = rankAt(x2, blocks.getInductionVar());
      b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, d),
                b.count(CountArray::sendcount, d));
    }
    b.recvGathered(from, zero, ScheduleBuilder::EventRef{"row", {xs}});
    sched::ForOp blocks = b.forLoop(zero, pvy);
    Value y2 = blocks.getInductionVar();
    {
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(b.eq(y2, vy));
      b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, from),
                b.count(CountArray::recvcount, from));
    }
    b.ifThen(b.ne(y2, vy));
    b.segment(Buffer::scratch, stagedOff(xs, y2), stagedLen(xs, y2));
  }

  builder.setInsertionPointAfter(rowPhase);
  b.phase("column", 1);
  sched::ForOp loop = b.forLoop(one, pvy);
  Value j = loop.getInductionVar();
  Value y2 = b.mod(b.add(vy, j), pvy), ys = b.mod(b.sub(vy, j), pvy);
  Value to = rankAt(vx, y2), from = rankAt(vx, ys);
  {
    OpBuilder::InsertionGuard guard(builder);
    b.sendGathered(to, zero);
    sched::ForOp sources = b.forLoop(zero, pvx);
    Value sx = sources.getInductionVar();
    {
      OpBuilder::InsertionGuard inner(builder);
      b.ifThen(b.eq(sx, vx));
      b.segment(Buffer::sendbuf, b.count(CountArray::senddispl, to),
                b.count(CountArray::sendcount, to));
    }
    b.ifThen(b.ne(sx, vx));
    b.after("row", ValueRange{sx});
    b.segment(Buffer::scratch, stagedOff(sx, y2), stagedLen(sx, y2));
  }
  b.recvGathered(from, zero);
  sched::ForOp sources = b.forLoop(zero, pvx);
  Value src = rankAt(sources.getInductionVar(), ys);
  b.segment(Buffer::recvbuf, b.count(CountArray::recvdispl, src),
            b.count(CountArray::recvcount, src));
  op.erase();
}

struct CollLowerVMeshPass : public collc::impl::CollLowerVMeshBase<CollLowerVMeshPass> {
  void runOnOperation() override {
    const StringRef names[] = {"vmesh", "smp-all-cores"};
    for (coll::AlltoallOp op : opsWithAlgorithm<coll::AlltoallOp>(getOperation(), names))
      lowerVMesh(op, /*isV=*/false, op.getAlgorithm().getName() == "smp-all-cores");
    for (coll::AlltoallvOp op : opsWithAlgorithm<coll::AlltoallvOp>(getOperation(), names))
      lowerVMesh(op, /*isV=*/true, op.getAlgorithm().getName() == "smp-all-cores");
  }
};

} // namespace

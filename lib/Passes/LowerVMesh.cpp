//===- LowerVMesh.cpp - seed 000's 2D virtual-mesh message combining ------===//
//
// For short blocks a direct alltoall pays P − 1 message start-ups per rank
// (α = 1.7 µs on BG/L) for a few bytes each. Seed 000 §4.2 (docs/algorithms/
// vmesh.md) lays the P ranks out as a Pvx × Pvy virtual mesh, rank r at column
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
// The mesh (MeshRows). A row holds a node's cores and, along each torus
// dimension, the whole extent, one coordinate, or a segment of extent /
// parts: lines, planes (the seed's XZ planes on 8×32×16), parts of them
// (its half XY planes on 8×8×8) or blocks. The spec's `mesh` gives the
// parts; otherwise the cost model's vmeshRows prices the choices that cut at
// most one dimension and takes the fastest at the spec's size, so what it
// predicts is what runs. Where
// rows are consecutive ranks (ranks are numbered core fastest, then x, y,
// z, and the rows take a prefix of the dimensions) rank r sits at column
// r mod Pvx of row r / Pvx; otherwise the column and row are mixed-radix
// digits of the rank's coordinates (COORD) and a mesh position maps back
// through RANK_AT. Pvx and Pvy are expressions of the topology (ranks per
// node, DIM), so the verifier's smaller instances of the program get a
// mesh of their own shape; a part count that does not divide a smaller
// extent keeps the whole extent there, so Pvx·Pvy is always P.
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
// smp-all-cores (seed 002; docs/algorithms/smp-all-cores.md) is this schedule
// with one row per node (Pvx = the cores of a node, Pvy = the nodes): the row
// phase is the intra-node exchange after which core c of node A holds all
// that A sends to core c of every node, and the column phase is C concurrent
// inter-node alltoalls, one per local index, one message per node pair and
// core. Every core drives the network (onload NICs), where smp-leader
// funnels a node's traffic through one.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Cost/CostModel.h"
#include "collc/Dialect/Coll/CollAlgorithms.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERVMESH
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


/// The mesh as expressions of the topology (see the file comment): Pvx,
/// and the maps between a rank and its (column, row) in the mesh.
struct MeshMap {
  Value width, height;
  std::function<Value(Value)> column, row; // of a rank
  std::function<Value(Value, Value)> rankAt;
};

/// Dimension d's row segment: whole, one coordinate, or the extent cut in
/// rows.parts[d] equal parts where that divides it (a smaller instance of
/// the program whose extent it does not divide keeps the whole extent).
Value segmentOf(ScheduleBuilder &b, const MeshRows &rows, size_t d) {
  if (rows.inRows(d))
    return b.dim(static_cast<int64_t>(d));
  if (rows.inColumns(d))
    return b.c(1);
  Value extent = b.dim(static_cast<int64_t>(d)), parts = b.c(rows.parts[d]);
  return b.select(b.eq(b.mod(extent, parts), b.c(0)), b.floordiv(extent, parts), extent);
}

/// Rows of Pvx consecutive ranks: rank r at column r mod Pvx of row r / Pvx.
void consecutiveRows(ScheduleBuilder &b, MeshMap &map) {
  Value width = map.width;
  map.column = [&b, width](Value r) { return b.mod(r, width); };
  map.row = [&b, width](Value r) { return b.floordiv(r, width); };
  map.rankAt = [&b, width](Value x, Value y) { return b.add(b.mul(y, width), x); };
}

MeshMap meshMap(ScheduleBuilder &b, const MeshRows &rows) {
  size_t dims = rows.parts.size();
  MeshMap map;
  Value cores = b.expr<sched::RanksPerNodeOp>();
  llvm::SmallVector<Value, 4> segments;
  map.width = cores;
  for (size_t d = 0; d < dims; ++d) {
    segments.push_back(segmentOf(b, rows, d));
    if (!rows.inColumns(d))
      map.width = b.mul(map.width, segments.back());
  }
  // Segments along dimension d in the columns: the extent, or extent / cut.
  auto along = [&b, rows](size_t d, Value segment) {
    Value extent = b.dim(static_cast<int64_t>(d));
    return rows.inColumns(d) ? extent : b.floordiv(extent, segment);
  };
  // Pvy from the topology's extents, not P / Pvx: a mesh whose rows are a
  // node's cores would otherwise not name the topology, and the plan would
  // claim to run on any P (the verifier's P = 1 with two ranks per node)
  map.height = b.c(1);
  for (size_t d = 0; d < dims; ++d)
    if (!rows.inRows(d))
      map.height = b.mul(map.height, along(d, segments[d]));
  if (rows.rowMajor()) { // the cheap form of the general one below
    consecutiveRows(b, map);
    return map;
  }
  // column = core + C·(mixed radix of each coordinate mod its segment),
  // row = mixed radix of each coordinate / its segment; a whole dimension
  // is one digit of one of them (a rank has a row and a column digit for
  // each cut dimension, none for a dimension of one node)
  map.column = [&b, rows, segments, cores, dims](Value r) {
    Value x;
    for (size_t d = dims; d-- > 0;) {
      if (rows.inColumns(d))
        continue;
      Value digit = b.mod(b.coord(r, static_cast<int64_t>(d)), segments[d]);
      x = x ? b.add(b.mul(x, segments[d]), digit) : digit;
    }
    return x ? b.add(b.mul(x, cores), b.mod(r, cores)) : b.mod(r, cores);
  };
  map.row = [&b, rows, segments, dims, along](Value r) {
    Value y;
    for (size_t d = dims; d-- > 0;) {
      if (rows.inRows(d))
        continue;
      Value coord = b.coord(r, static_cast<int64_t>(d));
      Value digit = rows.inColumns(d) ? coord : b.floordiv(coord, segments[d]);
      y = y ? b.add(b.mul(y, along(d, segments[d])), digit) : digit;
    }
    return y ? y : b.c(0);
  };
  map.rankAt = [&b, rows, segments, cores, dims, along](Value x, Value y) {
    llvm::SmallVector<Value, 4> coords;
    Value local = b.mod(x, cores), restX = b.floordiv(x, cores), restY = y;
    for (size_t d = 0; d < dims; ++d) {
      Value within, segmentAt;
      if (!rows.inColumns(d)) {
        within = b.mod(restX, segments[d]);
        restX = b.floordiv(restX, segments[d]);
      }
      if (!rows.inRows(d)) {
        Value extent = along(d, segments[d]);
        segmentAt = b.mod(restY, extent);
        restY = b.floordiv(restY, extent);
      }
      coords.push_back(rows.inColumns(d) ? segmentAt
                       : rows.inRows(d)  ? within
                                         : b.add(b.mul(segmentAt, segments[d]), within));
    }
    return b.rankAt(coords, local);
  };
  return map;
}

template <typename OpTy>
LogicalResult lowerVMesh(OpTy op, bool isV, bool perNode, OpBuilder &builder) {
  coll::AlgorithmAttr options = op.getAlgorithm();
  int64_t depth = *options.getInt("fifo_depth"); // decided by selection
  coll::TopologyAttr topology = op.getTopology();
  MLIRContext *ctx = op.getContext();
  // Both phases post in matching shift orders (step i: to +i, from −i), so a
  // bounded receive window is deadlock-free.
  auto fifo = sched::FifoAttr::get(ctx, depth, depth);
  createPlanFor(builder, op, isV ? "alltoallv" : "alltoall",
                perNode ? "smp-all-cores" : "vmesh", {fifo, fifo},
                {"row"});
  ScheduleBuilder b(builder, op.getLoc());
  Value zero = b.c(0), one = b.c(1), r = b.rank(), p = b.size();
  MeshMap map;
  if (perNode) {
    // the nodes from the topology, so that the plan runs on exactly N·C ranks
    map.width = b.expr<sched::RanksPerNodeOp>();
    map.height = b.nodes(topology.getShape().size());
    consecutiveRows(b, map);
  } else {
    // the mesh selection decided (lib/Algorithms/VMesh.cpp: the spec's, or
    // the one the model priced fastest); the op's verifier, C3, has checked
    // that it fits the topology
    map = meshMap(b, *meshOfParts(topology.getShape(), topology.getRanksPerNode(),
                                  options.getInts("mesh")));
  }
  Value pvx = map.width, pvy = map.height;
  Value vx = map.column(r), vy = map.row(r);
  const auto &rankAt = map.rankAt;

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
  return success();
}

struct CollLowerVMeshPass : public collc::impl::CollLowerVMeshBase<CollLowerVMeshPass> {
  void runOnOperation() override {
    // one lowering for both: smp-all-cores is vmesh with a node's cores as a row
    RewritePatternSet patterns(&getContext());
    populateVMeshLowering(patterns);
    populateSmpAllCoresLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"vmesh", "smp-all-cores"})))
      signalPassFailure();
  }
};

} // namespace

namespace {
template <typename OpTy>
void addVMeshLowering(RewritePatternSet &patterns, StringRef algorithm, bool isV, bool perNode) {
  addCollLowering<OpTy>(patterns, {algorithm}, [=](OpTy op, OpBuilder &builder) {
    return lowerVMesh(op, isV, perNode, builder);
  });
}
} // namespace

void collc::populateVMeshLowering(RewritePatternSet &patterns) {
  addVMeshLowering<coll::AlltoallOp>(patterns, "vmesh", /*isV=*/false, /*perNode=*/false);
  addVMeshLowering<coll::AlltoallvOp>(patterns, "vmesh", /*isV=*/true, /*perNode=*/false);
}

void collc::populateSmpAllCoresLowering(RewritePatternSet &patterns) {
  addVMeshLowering<coll::AlltoallOp>(patterns, "smp-all-cores", /*isV=*/false, /*perNode=*/true);
  addVMeshLowering<coll::AlltoallvOp>(patterns, "smp-all-cores", /*isV=*/true, /*perNode=*/true);
}

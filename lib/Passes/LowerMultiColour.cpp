//===- LowerMultiColour.cpp - one pipelined spanning tree per link direction ===//
//
// The long-message broadcast of a torus (the "rectangle" broadcasts of
// BG/L and BG/P): a node has a link in each direction of each dimension,
// and a chain uses only one of them, so the message is cut into one piece
// per colour, a colour being a dimension d and a direction s, and each
// piece travels down its own spanning tree, pipelined in chunks:
//
//   colour (d, s): a chain along the root's line in dimension d (direction
//   s), then from every node of that line a chain along dimension d + 1,
//   then from every node of that plane one along d + 2 (dimensions mod D).
//
// Colours: (d, +) for every dimension of extent > 1, (d, −) besides when d
// wraps and has extent > 2 (on a ring of 2, or a line, there is one link
// direction to a neighbour worth a colour). A wrapped dimension is walked
// in the colour's direction, an unwrapped one always + (the root, rank 0,
// sits at coordinate 0, so + covers a line without its missing wrap link).
// On one node (every extent 1) colour (0, +) carries the whole message
// with no network step. Piece k of the C active colours is bytes
// [⌊m·k/C⌋, ⌊m·(k+1)/C⌋); an inactive colour's piece is empty, so one
// program serves every shape the verifier tries.
//
// A colour's tree: with δ_e the node's distance from the root along e in
// the colour's walk direction, a node's parent steps back along the last
// dimension of the colour's order with δ ≠ 0; its children step on along
// every dimension from that one on (the same one while δ + 1 < n). With
// the rotations sharing one direction, a link of type (e, s) carries the
// colour ending in e everywhere, the colour with e in the middle on the
// root's plane and the colour starting with e on the root's line: at most
// D colours share a link (3 on the root's lines of a 3-D torus, 2 on its
// planes), and colours of opposite directions share none. The estimate
// (lib/Cost/ReductionCost.cpp, multiColourBcastUs) prices that.
//
// Ranks per node R > 1: colour k is received and forwarded by local rank
// k mod R of every node but the root's (rank 0 handles every colour
// there: only it holds the message). The handler receives a chunk into the
// node arena (one copy of the message a node), NOTIFYs the chunk's counter
// and copies it into its receive buffer; the node's other ranks AWAIT the
// counter and copy it out (seed 003's counters in node memory): no on-node
// message, so a rank pays a message's overhead only for the chunks of the
// colours it handles. Each
// colour runs on its own FIFO, so the colours progress independently; the
// chunk B = max(256, √(α·L/(4·β·H))) is computed at bind time from the
// piece L and the tree's depth H = Σ (n_e − 1) + 1 (the on-node hop).
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERMULTICOLOUR
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

// The chunk (kMinChunkBytes, kMultiColourFillWeight: lib/Cost/CostModel.h)
// balances the start-ups of ⌈L/B⌉ chunks against the fill of H hops as the
// chain's does, with a hop of the fill weighted 4: on the
// root's lines a chunk shares its link with up to 3 colours and each hop
// pays the receive's overhead too. Measured under SMPI on the BG/P-like
// 4x4x4 torus of 4-rank nodes at 1 MiB: weight 1 (B = 4.6 KB) 2158 us,
// 4 (B = 2.3 KB) 1841 us, 16 (B = 1.1 KB) 1933 us, the chain's formula
// over the whole message (B = 11 KB) 3013 us.

/// The per-colour event names (a plan has at most 16 events; 6 colours):
/// a chunk is in the handler's buffer (arrived), or another rank of the
/// node saw the handler's notify for it (landed).
constexpr llvm::StringLiteral kArrived[] = {"arrived0", "arrived1", "arrived2",
                                            "arrived3", "arrived4", "arrived5"};
constexpr llvm::StringLiteral kLanded[] = {"landed0", "landed1", "landed2",
                                           "landed3", "landed4", "landed5"};

LogicalResult lowerMultiColour(coll::BcastOp op, OpBuilder &builder) {
  coll::TopologyAttr topology = op.getTopology();
  if (topology.getSwitched())
    return op.emitError("the multi-colour bcast needs torus links (a colour per link "
                        "direction); behind a switch a node has one link: use "
                        "algorithm: pipelined-chain");
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth"); // decided by selection
  ArrayRef<bool> wrap = topology.getWrap();
  int64_t dims = static_cast<int64_t>(topology.getShape().size());
  int64_t slots = 2 * dims; // (d, +) and (d, −) for every dimension
  int64_t rpn = topology.getRanksPerNode();
  auto fifo = pipelineFifo(op.getContext(), depth);
  SmallVector<sched::FifoAttr, 6> fifos(slots, fifo);
  SmallVector<StringRef, 6> events;
  for (int64_t k = 0; k < slots; ++k)
    events.push_back(kArrived[k]);
  if (rpn > 1)
    for (int64_t k = 0; k < slots; ++k)
      events.push_back(kLanded[k]);
  createPlanFor(builder, op, "bcast", "multi-colour", fifos, events);
  ScheduleBuilder b(builder, op.getLoc());
  Value r = b.rank(), zero = b.c(0), one = b.c(1), two = b.c(2);
  Value n = b.count(CountArray::recvcount, r);
  Value R = b.c(rpn);
  Value local = rpn == 1 ? zero : b.mod(r, R);
  SmallVector<Value, 3> extent, at;
  for (int64_t e = 0; e < dims; ++e) {
    extent.push_back(b.dim(e));
    at.push_back(b.coord(r, e));
  }
  Value rootNode = zero;
  for (int64_t e = 0; e < dims; ++e)
    rootNode = e ? b.logicalAnd(rootNode, b.eq(at[e], zero)) : b.eq(at[e], zero);
  Value single = b.eq(b.nodes(dims), one);

  // Colour slot k = 2·d + (0 for +, 1 for −) and whether it carries a piece.
  auto direction = [](int64_t k) { return k % 2 ? -1 : 1; };
  SmallVector<Value, 6> active;
  for (int64_t k = 0; k < slots; ++k) {
    int64_t d = k / 2;
    Value on = direction(k) > 0 ? b.lt(one, extent[d])
                                : (wrap[d] ? b.lt(two, extent[d]) : zero);
    if (k == 0)
      on = b.logicalOr(on, single);
    active.push_back(on);
  }
  Value colours = zero;
  for (Value on : active)
    colours = b.add(colours, on);
  Value hops = one;
  for (int64_t e = 0; e < dims; ++e)
    hops = b.add(hops, b.sub(extent[e], one));
  int64_t alphaOverBeta = alphaOverBetaBytes(topology.getAlphaPs(), topology.getBetaPs());

  // Every colour's piece, chunk and chunk count, and (R > 1) its first
  // counter of the arena: counter base_k + c says chunk c of colour k is in.
  SmallVector<Value, 6> begins, pieces, chunks, bases;
  Value before = zero; // active colours below slot k
  Value counters = zero;
  for (int64_t k = 0; k < slots; ++k) {
    Value begin = b.floordiv(b.mul(n, before), colours);
    before = b.add(before, active[k]);
    Value piece = b.sub(b.floordiv(b.mul(n, before), colours), begin);
    Value chunk = b.max(b.c(kMinChunkBytes),
                        b.isqrt(b.floordiv(b.mul(b.c(alphaOverBeta), piece),
                                           b.mul(hops, b.c(kMultiColourFillWeight)))));
    begins.push_back(begin);
    pieces.push_back(piece);
    chunks.push_back(chunk);
    bases.push_back(counters);
    counters = b.add(counters, b.ceildiv(piece, chunk));
  }
  // The node's copy of the message: a handler receives its colour's chunks
  // into it, and every rank of the node copies them out.
  if (rpn > 1)
    b.arena(n, counters);

  using Ev = ScheduleBuilder::EventRef;
  for (int64_t k = 0; k < slots; ++k) {
    int64_t d = k / 2, s = direction(k);
    Value begin = begins[k], piece = pieces[k], chunk = chunks[k];

    OpBuilder::InsertionGuard phaseGuard(builder);
    b.phase("colour", k);
    // The walk direction of every dimension and the node's distance from the
    // root along it, in the colour's order d, d + 1, ...
    SmallVector<int64_t, 3> order, step;
    SmallVector<Value, 3> delta;
    for (int64_t j = 0; j < dims; ++j) {
      int64_t e = (d + j) % dims;
      order.push_back(e);
      step.push_back(wrap[e] ? s : 1);
      delta.push_back(step.back() > 0 ? at[e] : b.mod(b.sub(extent[e], at[e]), extent[e]));
    }
    // later[j]: δ = 0 along every dimension after position j of the order.
    SmallVector<Value, 3> later(dims);
    Value allZero = one;
    for (int64_t j = dims - 1; j >= 0; --j) {
      later[j] = allZero;
      allZero = b.logicalAnd(allZero, b.eq(delta[j], zero));
    }
    Value handlerLocal = b.c(k % rpn);
    Value handler = b.select(rootNode, b.eq(r, zero), b.eq(local, handlerLocal));
    // The parent: one step back along the last dimension with δ ≠ 0.
    SmallVector<Value, 3> parentAt(at.begin(), at.end());
    for (int64_t j = 0; j < dims; ++j) {
      int64_t e = order[j];
      Value last = b.logicalAnd(b.ne(delta[j], zero), later[j]);
      parentAt[e] = b.select(last, b.mod(b.sub(at[e], b.c(step[j])), extent[e]), at[e]);
    }
    Value parentIsRoot = zero;
    for (int64_t e = 0; e < dims; ++e)
      parentIsRoot = e ? b.logicalAnd(parentIsRoot, b.eq(parentAt[e], zero))
                       : b.eq(parentAt[e], zero);
    Value parent = b.rankAt(parentAt, b.select(parentIsRoot, zero, handlerLocal));

    sched::ForOp loop = b.forLoop(zero, b.ceildiv(piece, chunk));
    Value c = loop.getInductionVar();
    Value offset = b.mul(c, chunk);
    Value at0 = b.add(begin, offset);
    Value len = b.min(chunk, b.sub(piece, offset));
    Ev arrived{kArrived[k], {c}};
    Value counter = rpn > 1 ? b.add(bases[k], c) : Value();
    // Off the root the handler's chunk lands where the node's ranks find it.
    Buffer held = rpn > 1 ? Buffer::arena : Buffer::recvbuf;
    OpBuilder::InsertPoint body = builder.saveInsertionPoint();
    /// The handler's sends of the chunk to each child of the colour's tree.
    auto forward = [&](Buffer from, std::optional<Ev> wait) {
      OpBuilder::InsertPoint branch = builder.saveInsertionPoint();
      for (int64_t j = 0; j < dims; ++j) {
        int64_t e = order[j];
        b.ifThen(b.logicalAnd(later[j], b.lt(b.add(delta[j], one), extent[e])));
        SmallVector<Value, 3> childAt(at.begin(), at.end());
        childAt[e] = b.mod(b.add(at[e], b.c(step[j])), extent[e]);
        b.send(from, at0, len, b.rankAt(childAt, handlerLocal), zero, wait);
        builder.restoreInsertionPoint(branch);
      }
    };
    // The root: from its send buffer, and the chunk into the arena for the
    // node's other ranks.
    b.ifThen(b.eq(r, zero));
    forward(Buffer::sendbuf, std::nullopt);
    if (rpn > 1) {
      b.copyWith(Buffer::sendbuf, at0, Buffer::arena, at0, len, std::nullopt, arrived);
      b.notify(counter, arrived);
    }
    builder.restoreInsertionPoint(body);
    // Another handler: the chunk from its parent, forwarded once it arrived,
    // then announced to the node and copied into its own receive buffer.
    b.ifThen(b.logicalAnd(handler, b.ne(r, zero)));
    b.recv(held, at0, len, parent, zero, arrived);
    forward(held, arrived);
    if (rpn > 1) {
      b.notify(counter, arrived);
      b.copyWith(Buffer::arena, at0, Buffer::recvbuf, at0, len, arrived, std::nullopt);
    }
    builder.restoreInsertionPoint(body);
    if (rpn > 1) {
      // The node's other ranks: the chunk out of the arena once announced.
      Ev landed{kLanded[k], {c}};
      b.ifThen(b.eq(handler, zero));
      b.await(counter, landed);
      b.copyWith(Buffer::arena, at0, Buffer::recvbuf, at0, len, landed, std::nullopt);
    }
    if (k == 0) {
      builder.setInsertionPointAfter(loop);
      b.ifThen(b.eq(r, zero)); // the root's own message, behind its sends
      b.copy(Buffer::sendbuf, zero, Buffer::recvbuf, zero, n);
    }
  }
  return success();
}

struct CollLowerMultiColourPass
    : public collc::impl::CollLowerMultiColourBase<CollLowerMultiColourPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMultiColourLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns),
                                  ArrayRef<StringRef>{"multi-colour"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateMultiColourLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::BcastOp>(patterns, {"multi-colour"}, lowerMultiColour);
}

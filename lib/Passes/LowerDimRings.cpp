//===- LowerDimRings.cpp - torus alltoall as pipelined neighbour rings ----===//
//
// The alltoall runs dimension by dimension, and only between neighbours:
// each block's bytes are cut into parts, by default one per torus dimension
// longer than 1, and part p visits the dimensions in its own order (e.g.
// x y z, y z x, z x y). Fewer parts (the `parts` option, or the cost
// model's count: dimRingsParts) send fewer messages: short blocks are bound
// by the chain of ring steps, which the hand-off below makes the parts pay
// one after the other on a shared dimension. In the
// stage over dimension d a rank sends every item whose destination differs
// from it along d around its ring of n_d nodes, one hop per step, both ways
// (distances 1 .. n/2 each the shorter way; an even ring's n/2 items half
// each way), until it sits at the destination's coordinate along d. A
// dimension that does not wrap is a line, whose stage sends each node of
// the line its items directly (emitLineMessages); each stage takes the
// ring's schedule or the line's by its dimension, so meshes and mixed
// shapes run the same plan body.
//
// Why this reaches the bisection bound where a direct exchange cannot:
//   * Only neighbours talk, so routing plays no part: no tie at half a ring
//     loads the + links more than the − links (a direct exchange on
//     SimGrid's dimension-ordered torus tops out at 67% on rings of 4), and
//     no flow shares a link with another of the same part.
//   * Each ring's links carry D·n/8 per direction for D bytes per rank
//     (D·(n²−1)/(8n) when n is odd): the all-to-all bound of that ring.
//   * The parts use disjoint links at once (on a cube, the rotation keeps
//     all three dimensions busy all the time), so the whole exchange takes
//     about the bound of the longest dimension: P·(M/8)·m·β.
// Part orders are chosen at compile time by a fluid model of the stages
// (each stage a job on its dimension's links, parts on one dimension share
// it): the cube gets the rotation; on 8x4x4 one part starts on x and the
// others end on it, so the x links never idle. Two parts, one starting on
// x and one ending on it, keep x as busy; where the model cannot tell part
// counts apart it keeps the most, whose rotation survives waves
// (dimRingsParts, lib/Cost/CostModel.cpp).
//
// Within a stage the message of step t to the next rank is split in two:
// the items that travel on ("forward", sent first) and the items for that
// rank ("terminal"). Step t+1 waits only for the forward pieces of step t,
// so the next hop starts while the terminal piece is still on the wire and
// the per-message overhead does not idle the links.
//
// Layout (per part, items of len_p bytes: bytes [lo_p, lo_p + len_p) of a
// block). At a rank in stage k over dimension d, after stages D = e_0..e_{k−1}
// and before R = e_{k+1}..: the items (s, t) it holds agree with it on s
// along R and d, and on t along D. An item is keyed by (t_d, q) on the way
// in and (s_d, q) on the way out, q the mixed-radix index over
// [s_{e_0} .. s_{e_{k−1}}, t_{e_{k+1}} ..] (first digit fastest).
//   In_0 is the send buffer; In_k (k > 0) reads each item in place where it
//   last arrived: Out_l of the latest stage l that moved it, or the send
//   buffer (inSegment). Out_k is a scratch array [s_d][q], except the last
//   stage's, which is the receive buffer; its own row s_d = c_d stays
//   unwritten, since only the last stage copies its own items. A forward
//   piece lands in a transit slot of its own (direction, step), in order of
//   distance, so the next step sends its two pieces as two contiguous
//   ranges of it.
// Every receive of a wave is posted up front (no buffer is reused within a
// wave), so a wave's scratch is (stages − 1)·P plus Q·h·(h − 1) per stage
// items. Waves (the `waves` option, or as few as fit kScratchBudgetBytes) split
// each part's bytes further and run one after the other through the same
// scratch: a wave's receives wait until the wave before is done.
//
// Events (w the wave). forward[p·4 + k, w·2^20 + t]: both forward pieces
// of step t of stage k arrived (step t + 1's sends wait for it).
// stage[p, w·4 + k]: every send and terminal receive of stage k, and in the
// last stage the copy of the rank's own items (a ring of one: an empty
// copy), done (stage k + 1 starts on it; so does a part that takes over
// stage k's dimension: the hand-off, which continues across waves, a
// part's first stage taking over from the last stages of the wave before;
// the next wave's receives wait for the last stage's).
// Every lock-step rule here was measured: without them the ranks of 8x8x8
// drift apart stage by stage (see forwardEvent).
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/DimRingsAddressing.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERDIMRINGS
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


/// Transit items of one stage over a ring of n, both directions: Q·h·(h − 1)
/// (Q = P/n items per distance, slots of h − t items for steps t < h).
/// `ring`: whether the stage's dimension wraps, null when every dimension
/// does (a torus's plan holds no line arithmetic); a line forwards nothing.
Value transitItemsOf(ScheduleBuilder &b, Value nodes, Value n, Value ring = Value()) {
  Value h = b.floordiv(n, b.c(2));
  Value items = b.mul(b.floordiv(nodes, n), b.mul(h, b.sub(h, b.c(1))));
  return ring ? b.select(ring, items, b.c(0)) : items;
}

/// Every part's stages, written once: the program loops over the parts (a
/// phase loop, one FIFO each) and, inside a part's phase, over its stages.
/// What depends on the part or the stage (the dimension a stage crosses,
/// its extent, this rank's coordinate and stride along it, where Out and
/// transit arrays sit) is computed at run time from `part` and `stage`, so
/// the plan holds one stage body whatever the number of dimensions
/// (3187 B on any 3-D torus in plan format 3; 21.8 KB when every part and
/// stage was written out).
///
/// Dimensions are addressed by position in the part's order: position i is
/// dimension E_i = orders[part][i]; a stage k crosses E_k.
class PartLowering {
public:
  PartLowering(ScheduleBuilder &b, ArrayRef<SmallVector<int64_t, 3>> orders,
               ArrayRef<bool> wrap, Value part, Value partLo, Value partLen, Value waves,
               Value base)
      : b(b), orders(orders.begin(), orders.end()), part(part), partLo(partLo),
        partLen(partLen), waves(waves), base(base) {
    hasLines = llvm::is_contained(wrap, false);
    ndims = static_cast<int64_t>(orders.front().size());
    zero = b.c(0);
    one = b.c(1);
    two = b.c(2);
    r = b.rank();
    SmallVector<Value, 3> n, c, stride;
    Value s = one;
    for (int64_t d = 0; d < ndims; ++d) {
      n.push_back(b.dim(d));
      c.push_back(b.coord(r, d));
      stride.push_back(s); // one rank per node: rank = Σ c_d · stride_d
      s = b.mul(s, n.back());
    }
    p = b.nodes(ndims);
    // By position, for this part.
    for (int64_t i = 0; i < ndims; ++i) {
      SmallVector<Value> dims, extents, coords, strides, rings;
      for (ArrayRef<int64_t> order : orders) {
        dims.push_back(b.c(order[i]));
        extents.push_back(n[order[i]]);
        coords.push_back(c[order[i]]);
        strides.push_back(stride[order[i]]);
        rings.push_back(b.c(wrap[order[i]] ? 1 : 0));
      }
      dimAt.push_back(b.pick(part, dims));
      nAt.push_back(b.pick(part, extents));
      cAt.push_back(b.pick(part, coords));
      strideAt.push_back(b.pick(part, strides));
      if (hasLines)
        ringAt.push_back(b.pick(part, rings));
    }
  }

  /// Waves run one after the other through the same scratch: wave w's
  /// receives wait until wave w − 1 is done.
  void emit() {
    OpBuilder &builder = b.getBuilder();
    MLIRContext *ctx = builder.getContext();
    wave = zero;
    builder.create<sched::CopyOp>(
        b.getLoc(), sched::BufferAttr::get(ctx, Buffer::sendbuf), zero,
        sched::BufferAttr::get(ctx, Buffer::scratch), zero, zero, FlatSymbolRefAttr(),
        ValueRange(), FlatSymbolRefAttr::get(ctx, "stage"), ValueRange(previousWave().index));
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp loop = b.forLoop(zero, waves);
    wave = loop.getInductionVar();
    Value begin = b.floordiv(b.mul(partLen, wave), waves);
    Value end = b.floordiv(b.mul(partLen, b.add(wave, one)), waves);
    lo = b.add(partLo, begin);
    len = b.sub(end, begin);
    sched::ForOp stages = b.forLoop(zero, b.c(ndims));
    k = stages.getInductionVar();
    stageN = b.pick(k, nAt);
    stageC = b.pick(k, cAt);
    stageStride = b.pick(k, strideAt);
    if (hasLines)
      stageRing = b.pick(k, ringAt);
    // per position, once a stage (not once an item): whether it is the
    // stage's, and the radix that skips it
    for (int64_t i = 0; i < ndims; ++i) {
      atStage.push_back(b.eq(k, b.c(i)));
      stageRadix.push_back(b.select(atStage[i], one, nAt[i]));
    }
    emitStage();
  }

private:
  /// The stage's dimension: its extent, this rank's coordinate and stride.
  Value nk() { return stageN; }
  Value ck() { return stageC; }
  Value q() { return b.floordiv(p, nk()); }
  Value h() { return b.floordiv(nk(), two); }
  Value even() { return b.eq(b.mod(nk(), two), zero); }
  Value isLastStage() { return b.eq(k, b.c(ndims - 1)); }
  /// Items of one Out array: P.
  Value outBase(Value stage) { return b.add(base, b.mul(b.mul(stage, p), len)); }
  Value transitBase() {
    Value at = b.mul(b.mul(b.c(ndims - 1), p), len);
    for (int64_t i = 0; i + 1 < ndims; ++i)
      at = b.add(at, b.select(b.lt(b.c(i), k),
                              b.mul(transitItemsOf(b, p, nAt[i],
                                                   hasLines ? ringAt[i] : Value()),
                                    len),
                              zero));
    return b.add(base, at);
  }
  /// The slot of the forward piece received at step t (1-based) of this
  /// stage, direction dir: slots of (h − t') items for t' < t, per direction.
  Value transit(Value dir, Value t) {
    Value hk = h(), qk = q();
    Value tm = b.sub(t, one);
    Value before = b.sub(b.mul(tm, hk), b.floordiv(b.mul(tm, t), two));
    Value perDir = b.floordiv(b.mul(hk, b.sub(hk, one)), two);
    return b.add(transitBase(),
                 b.mul(b.mul(qk, b.add(b.mul(dir, perDir), before)), len));
  }

  /// Items of distance δ one way (an even ring's n/2: half the Q items each
  /// way, the first half +) and the first of them.
  Value isTie(Value delta) { return b.logicalAnd(even(), b.eq(delta, h())); }
  Value tieFirst() { return b.floordiv(q(), two); }
  Value count(Value dir, Value delta) {
    Value tieCount = b.select(b.eq(dir, zero), tieFirst(), b.sub(q(), tieFirst()));
    return b.select(isTie(delta), tieCount, q());
  }
  Value first(Value dir, Value delta) {
    return b.select(b.logicalAnd(isTie(delta), b.ne(dir, zero)), tieFirst(), zero);
  }
  /// Items beyond distance t: the forward piece of step t.
  Value forwardCount(Value dir, Value t) {
    Value full = b.mul(b.sub(h(), t), q());
    Value withTie = b.add(b.mul(b.sub(b.sub(h(), t), one), q()), count(dir, h()));
    return b.select(b.logicalAnd(even(), b.lt(t, h())), withTie,
                    b.select(b.lt(t, h()), full, zero));
  }

  /// The digits of q in this stage, by position: s along positions before
  /// k, t along those after it, first digit fastest; position k has radix
  /// 1 (its digit is 0), which skips it.
  SmallVector<Value, 3> decode(Value index) { return dimrings::decode(b, index, stageRadix); }
  /// The rank whose coordinate at position i is values[i].
  Value rankOf(ArrayRef<Value> values) { return dimrings::rankOf(b, values, strideAt); }

  /// A segment of item (j, q) of In_k: j the destination's coordinate along
  /// the stage's dimension. Read where the item last arrived
  /// (dimrings::itemHome): no stage copies a rank's own items on to the
  /// next, which would be 3/8·P·m more bytes of copies a rank on a 3-D
  /// torus.
  void inSegment(Value j, Value index) {
    dimrings::itemHome(
        b, decode(index), j, k, cAt, atStage, nAt, strideAt,
        [&](Value dest) {
          b.segment(Buffer::sendbuf, b.add(b.count(CountArray::senddispl, dest), lo), len);
        },
        [&](Value stage, Value position) {
          b.segment(Buffer::scratch, b.add(outBase(stage), b.mul(position, len)), len);
        });
  }
  /// Where item (o, q) of Out_k goes: o the source's coordinate along the
  /// stage's dimension. Every stage but the last writes scratch.
  Value outScratch(Value o, Value index) {
    return b.add(outBase(k), b.mul(b.add(b.mul(o, q()), index), len));
  }
  Value outRecv(Value o, Value index) {
    Value src = b.add(rankOf(decode(index)), b.mul(o, stageStride));
    return b.add(b.count(CountArray::recvdispl, src), lo);
  }
  void outSegment(Value o, Value index) {
    OpBuilder &builder = b.getBuilder();
    {
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(b.ne(k, b.c(ndims - 1)));
      b.segment(Buffer::scratch, outScratch(o, index), len, /*dst=*/true);
    }
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(isLastStage());
    b.segment(Buffer::recvbuf, outRecv(o, index), len, /*dst=*/true);
  }

  /// The rank `delta` steps along the stage's dimension (mod n).
  Value along(Value delta) {
    Value n = nk(), c = ck();
    Value to = b.mod(b.add(b.add(c, n), delta), n);
    return b.add(r, b.mul(b.sub(to, c), stageStride));
  }

  /// stage[p, w·4 + k]: stage k of part `of` (this part by default) in wave
  /// `w` (this wave by default).
  ScheduleBuilder::EventRef stageEvent(Value stage, Value of = Value(), Value w = Value()) {
    return {"stage", {of ? of : part, b.add(b.mul(w ? w : wave, b.c(4)), stage)}};
  }
  /// The end of the wave before (its last stage). For the first wave a
  /// zero-length copy before the loop signals it, so that every wave waits
  /// the same way (a skipped transfer's signal is satisfied at once).
  ScheduleBuilder::EventRef previousWave() {
    return stageEvent(b.c(ndims - 1), part, b.sub(wave, one));
  }
  /// The stage this one follows: the one before, or the wave before's last.
  ScheduleBuilder::EventRef ready() {
    return {"stage", {part, b.select(b.ne(k, zero), b.add(b.mul(wave, b.c(4)), b.sub(k, one)),
                                     b.add(b.mul(b.sub(wave, one), b.c(4)),
                                           b.c(ndims - 1)))}};
  }
  /// Both directions' forward pieces of step t: the next step's sends wait
  /// for both, so the two directions of a ring stay in step (with a wait
  /// per direction, one direction runs ahead and the ranks drift apart).
  ScheduleBuilder::EventRef forwardEvent(Value t) {
    return {"forward", {b.add(b.mul(part, b.c(4)), k), b.add(b.mul(wave, b.c(1 << 20)), t)}};
  }

  /// A transfer op with explicit events (the builder's helpers cover the
  /// common shapes only).
  template <typename OpTy>
  OpTy transfer(std::optional<Buffer> buffer, Value offset, Value length, Value peer,
                Value tag, std::optional<ScheduleBuilder::EventRef> wait,
                std::optional<ScheduleBuilder::EventRef> signal) {
    OpBuilder &builder = b.getBuilder();
    MLIRContext *ctx = builder.getContext();
    auto sym = [&](const std::optional<ScheduleBuilder::EventRef> &e) {
      return e ? FlatSymbolRefAttr::get(ctx, e->name) : FlatSymbolRefAttr();
    };
    auto index = [](const std::optional<ScheduleBuilder::EventRef> &e) {
      return e ? ValueRange(e->index) : ValueRange();
    };
    auto op = builder.create<OpTy>(
        b.getLoc(), buffer ? sched::BufferAttr::get(ctx, *buffer) : sched::BufferAttr(),
        offset, length, peer, tag, sym(wait), index(wait), sym(signal), index(signal));
    if (!buffer)
      builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    return op;
  }

  /// The first step's sends wait for the stage before (none in the first
  /// stage, which reads the send buffer) and take over the dimension. They
  /// may read Out_l of any earlier stage l (inSegment), which one wait
  /// covers: each stage's event has transfers that waited for the stage
  /// before (the step-1 sends, or the empty copy of a ring of one).
  void afterReadyAndHandOff() {
    {
      OpBuilder::InsertionGuard guard(b.getBuilder());
      b.ifThen(b.ne(k, zero));
      b.after("stage", ready().index);
    }
    afterHandOff();
  }

  /// Hand-off: a part entering dimension d waits until the parts that
  /// were on d in the stage before have received everything there, so
  /// that two parts never share d's links. Without it the ranks drift
  /// apart stage by stage, and the slowest rank's last stage runs long
  /// after the others' on links the others no longer load.
  ///
  /// Waves continue the rotation: a part's first stage of wave w takes over
  /// from the parts whose last stage of wave w − 1 was on its dimension
  /// (wave 0's "wave before" is the zero-length copy each part signals
  /// first). Without it, on shapes whose stages differ in length, a part
  /// done early starts its next wave on a dimension another part is still
  /// on, and the two share its links while another dimension idles.
  void afterHandOff() {
    OpBuilder &builder = b.getBuilder();
    Value later = b.ne(k, zero);
    Value before = b.select(later, b.sub(k, one), b.c(ndims - 1));
    Value w = b.select(later, wave, b.sub(wave, one));
    Value dim = b.pick(k, dimAt);
    for (auto [other, order] : llvm::enumerate(orders)) {
      SmallVector<Value, 3> dims;
      for (int64_t d : order)
        dims.push_back(b.c(d));
      Value of = b.c(static_cast<int64_t>(other));
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(b.logicalAnd(b.ne(part, of), b.eq(b.pick(before, dims), dim)));
      b.after("stage", stageEvent(before, of, w).index);
    }
  }

  /// The stage's messages first, then, in the last stage, the copy of the
  /// rank's own items to the receive buffer: the engine issues steps in
  /// plan order, so the copy's time (gamma per byte, which a real node and
  /// SMPI charge; the runtime copies in chunks with a poll in between)
  /// passes while the stage's first messages are on the wire. Copy first,
  /// the links waited for it. Earlier stages copy nothing: the next stage
  /// reads their own items where they are (inSegment).
  void emitStage() {
    emitStageMessages();
    OpBuilder &builder = b.getBuilder();
    {
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(isLastStage());
      emitOwnCopy();
    }
    // A ring of one has no messages: an empty copy ends its stage.
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.logicalAnd(b.ne(k, b.c(ndims - 1)), b.eq(nk(), one)));
    MLIRContext *ctx = builder.getContext();
    ScheduleBuilder::EventRef wait = ready();
    builder.create<sched::CopyOp>(
        b.getLoc(), sched::BufferAttr::get(ctx, Buffer::sendbuf), zero,
        sched::BufferAttr::get(ctx, Buffer::scratch), zero, zero,
        FlatSymbolRefAttr::get(ctx, wait.name), ValueRange(wait.index),
        FlatSymbolRefAttr::get(ctx, "stage"), ValueRange(stageEvent(k).index));
  }

  /// This rank's own items of the last stage: In_k[y] -> the receive buffer.
  void emitOwnCopy() {
    OpBuilder &builder = b.getBuilder();
    Value y = ck();
    {
      OpBuilder::InsertionGuard guard(builder);
      MLIRContext *ctx = builder.getContext();
      ScheduleBuilder::EventRef wait = ready();
      auto copy = builder.create<sched::CopyOp>(
          b.getLoc(), sched::BufferAttr(), Value(), sched::BufferAttr(), Value(), Value(),
          FlatSymbolRefAttr::get(ctx, wait.name), ValueRange(wait.index),
          FlatSymbolRefAttr::get(ctx, "stage"), ValueRange(stageEvent(k).index));
      builder.setInsertionPointToStart(&copy.getBody().emplaceBlock());
      {
        OpBuilder::InsertionGuard inner(builder);
        sched::ForOp items = b.forLoop(zero, q());
        inSegment(y, items.getInductionVar());
      }
      sched::ForOp items = b.forLoop(zero, q());
      outSegment(y, items.getInductionVar());
    }
  }

  /// A stage's messages: around its ring, or along its line (a dimension
  /// that does not wrap), as the stage's dimension says at run time.
  void emitStageMessages() {
    if (!hasLines)
      return emitRingMessages();
    OpBuilder &builder = b.getBuilder();
    {
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(b.ne(stageRing, zero));
      emitRingMessages();
    }
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.eq(stageRing, zero));
    emitLineMessages();
  }

  /// A line's stage: a rank sends each other node of its line the items
  /// for it, one message each (at step t the nodes t ahead and t behind),
  /// and the network carries them through the nodes between. A line has
  /// one way to every node, so no tie loads one direction more than the
  /// other, which is what made a ring forward its items hop by hop: here
  /// forwarding would buy nothing and chain every node's steps behind its
  /// neighbour's (measured on the 4x4x4 mesh: 64.0/219.5/2366.1 us at
  /// 8 B/256 B/4 KiB forwarding, 28.5/124.1/1804.4 us sent directly).
  /// The middle links carry the most: ⌊n/2⌋·⌈n/2⌉ nodes' items each way,
  /// as in any alltoall along a line.
  void emitLineMessages() {
    OpBuilder &builder = b.getBuilder();
    OpBuilder::InsertionGuard guard(builder);
    Value y = ck(), n = nk();
    sched::ForOp steps = b.forLoop(one, n);
    Value t = steps.getInductionVar();
    sched::ForOp dirs = b.forLoop(zero, two);
    Value dir = dirs.getInductionVar();
    Value delta = b.mul(b.sub(one, b.mul(dir, two)), t); // +t, then −t
    Value tag = b.add(b.mul(dir, two), one); // as a ring's terminal pieces
    auto onLine = [&](Value x) { return b.logicalAnd(b.ge(x, zero), b.lt(x, n)); };
    // The send reads In_k, after the stage before and the hand-off.
    Value j = b.add(y, delta);
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(onLine(j));
      transfer<sched::SendOp>(std::nullopt, Value(), Value(), along(delta), tag, std::nullopt,
                              stageEvent(k));
      afterReadyAndHandOff();
      sched::ForOp items = b.forLoop(zero, q());
      inSegment(j, items.getInductionVar());
    }
    // The receive from the node t behind (−t, then +t), posted up front
    // as a ring's.
    Value origin = b.sub(y, delta);
    b.ifThen(onLine(origin));
    Value from = along(b.sub(zero, delta));
    ScheduleBuilder::EventRef wait = previousWave();
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.ne(k, b.c(ndims - 1)));
      transfer<sched::RecvOp>(Buffer::scratch, outScratch(origin, zero), b.mul(q(), len), from,
                              tag, wait, stageEvent(k));
    }
    b.ifThen(isLastStage());
    transfer<sched::RecvOp>(std::nullopt, Value(), Value(), from, tag, wait, stageEvent(k));
    sched::ForOp each = b.forLoop(zero, q());
    b.segment(Buffer::recvbuf, outRecv(origin, each.getInductionVar()), len);
  }

  /// A ring's stage: h steps each way, every message to a neighbour.
  void emitRingMessages() {
    OpBuilder &builder = b.getBuilder();
    Value y = ck();
    OpBuilder::InsertionGuard guard(builder);
    Value n = nk();
    sched::ForOp steps = b.forLoop(one, b.add(h(), one));
    Value t = steps.getInductionVar();
    sched::ForOp dirs = b.forLoop(zero, two);
    Value dir = dirs.getInductionVar();
    Value sigma = b.sub(one, b.mul(dir, two));
    Value to = along(sigma), from = along(b.sub(zero, sigma));
    Value forwardTag = b.mul(dir, two), terminalTag = b.add(forwardTag, one);
    Value isFirst = b.eq(t, one);

    // Step 1 sends out of In_k, item by item.
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(isFirst);
      {
        OpBuilder::InsertionGuard inner(builder);
        b.ifThen(b.lt(one, h()));
        transfer<sched::SendOp>(std::nullopt, Value(), Value(), to, forwardTag, std::nullopt,
                                stageEvent(k));
        afterReadyAndHandOff();
        sched::ForOp dist = b.forLoop(two, b.add(h(), one));
        Value delta = dist.getInductionVar();
        Value j = b.mod(b.add(b.add(y, n), b.mul(sigma, delta)), n);
        Value firstItem = first(dir, delta);
        sched::ForOp items = b.forLoop(firstItem, b.add(firstItem, count(dir, delta)));
        inSegment(j, items.getInductionVar());
      }
      transfer<sched::SendOp>(std::nullopt, Value(), Value(), to, terminalTag, std::nullopt,
                              stageEvent(k));
      afterReadyAndHandOff();
      Value j = b.mod(b.add(b.add(y, n), sigma), n);
      Value firstItem = first(dir, one);
      sched::ForOp items = b.forLoop(firstItem, b.add(firstItem, count(dir, one)));
      inSegment(j, items.getInductionVar());
    }
    // Later steps pass on the forward piece of the step before: its first
    // Q items were for the next rank, the rest travel on.
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.ne(t, one));
      Value tm = b.sub(t, one);
      Value slot = transit(dir, tm);
      ScheduleBuilder::EventRef arrived = forwardEvent(tm);
      {
        OpBuilder::InsertionGuard inner(builder);
        b.ifThen(b.lt(t, h()));
        transfer<sched::SendOp>(Buffer::scratch, b.add(slot, b.mul(q(), len)),
                                b.mul(forwardCount(dir, t), len), to, forwardTag, arrived,
                                stageEvent(k));
      }
      transfer<sched::SendOp>(Buffer::scratch, slot, b.mul(count(dir, t), len), to,
                              terminalTag, arrived, stageEvent(k));
    }
    // Receives, all posted up front (from the second wave on, once the
    // wave before is done with the scratch they write).
    Value origin = b.mod(b.sub(b.add(y, b.mul(n, h())), b.mul(sigma, t)), n);
    Value firstItem = first(dir, t);
    Value items = count(dir, t);
    ScheduleBuilder::EventRef wait = previousWave();
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.lt(t, h()));
      transfer<sched::RecvOp>(Buffer::scratch, transit(dir, t), b.mul(forwardCount(dir, t), len),
                              from, forwardTag, wait, forwardEvent(t));
    }
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.ne(k, b.c(ndims - 1)));
      transfer<sched::RecvOp>(Buffer::scratch, outScratch(origin, firstItem), b.mul(items, len),
                              from, terminalTag, wait, stageEvent(k));
    }
    b.ifThen(isLastStage());
    transfer<sched::RecvOp>(std::nullopt, Value(), Value(), from, terminalTag, wait,
                            stageEvent(k));
    sched::ForOp each = b.forLoop(firstItem, b.add(firstItem, items));
    b.segment(Buffer::recvbuf, outRecv(origin, each.getInductionVar()), len);
  }

  ScheduleBuilder &b;
  int64_t ndims;
  SmallVector<SmallVector<int64_t, 3>> orders; // every part's
  Value part, partLo, partLen, waves, base;
  Value lo, len, wave, k; // of the wave and stage being emitted
  Value stageN, stageC, stageStride; // the stage's dimension, by position k
  Value stageRing; // 1 if it wraps, 0 if a line (built only if some dimension is)
  bool hasLines = false; // some dimension does not wrap
  SmallVector<Value, 3> atStage, stageRadix;
  Value zero, one, two, r, p;
  /// By position in this part's order: the dimension, its extent, this
  /// rank's coordinate and stride along it.
  SmallVector<Value, 3> dimAt, nAt, cAt, strideAt;
  SmallVector<Value, 3> ringAt; // 1 if it wraps (built only if some dimension does not)
};

LogicalResult lowerDimRings(coll::AlltoallOp op, OpBuilder &builder) {
  coll::TopologyAttr topology = op.getTopology();
  if (failed(dimrings::checkTopology(op, topology, /*lines=*/true)))
    return failure();
  ArrayRef<int64_t> shape = topology.getShape();
  ArrayRef<bool> wrap = topology.getWrap();
  bool hasLines = llvm::is_contained(wrap, false);
  // decided by selection (lib/Algorithms/DimRings.cpp): what the model
  // priced is what runs
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth");
  int64_t numParts = *op.getAlgorithm().getInt("parts");
  SmallVector<SmallVector<int64_t, 3>> orders = dimRingsOrders(shape, numParts, wrap).orders;
  int64_t parts = static_cast<int64_t>(orders.size());
  MLIRContext *ctx = op.getContext();
  SmallVector<sched::FifoAttr> fifos(parts,
                                     sched::FifoAttr::get(ctx, depth, /*recv_depth=*/0));
  createPlanFor(builder, op, "alltoall", "dim-rings", fifos, {"forward", "stage"});
  ScheduleBuilder b(builder, op.getLoc());

  Value m = b.count(CountArray::recvcount, b.rank());
  Value np = b.c(parts);
  // Items of scratch per part (each of the part's length): the Out arrays
  // of every stage but the last, P each, and the transit slots, Q·h·(h − 1)
  // per stage; the same for every order.
  Value nodes = b.nodes(static_cast<int64_t>(shape.size()));
  Value items = b.mul(b.c(static_cast<int64_t>(shape.size()) - 1), nodes);
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    items = b.add(items, transitItemsOf(b, nodes, b.dim(d),
                                        hasLines ? b.c(wrap[d] ? 1 : 0) : Value()));
  // Waves: the `waves` option, or as few as keep the scratch within
  // kScratchBudgetBytes (one up to 8x8x8 at 4 KiB; 64 KiB blocks on 40x32x16
  // need about 130), at most one per byte of the block.
  Value waves;
  if (std::optional<int64_t> fixed = op.getAlgorithm().getInt("waves"))
    waves = b.c(*fixed);
  else
    waves = b.max(b.c(1), b.min(b.max(m, b.c(1)),
                                b.ceildiv(b.mul(items, m), b.c(kScratchBudgetBytes))));
  // Each part's scratch: `items` items of its length per wave. Part p's
  // begins after those of the parts before it (a sum, so that the plan
  // does not grow with the number of parts).
  Value zero = b.c(0);
  auto partsBefore = [&](Value upto) {
    return b.mul(items, b.sum(zero, upto, [&](Value q) {
      Value lo = b.floordiv(b.mul(m, q), np);
      Value hi = b.floordiv(b.mul(m, b.add(q, b.c(1))), np);
      return b.ceildiv(b.sub(hi, lo), waves);
    }));
  };
  builder.create<sched::ScratchOp>(op.getLoc(), partsBefore(np));

  // One phase loop: part p runs on FIFO p.
  sched::ForOp loop = b.forLoop(b.c(0), np);
  Value part = loop.getInductionVar();
  Value lo = b.floordiv(b.mul(m, part), np);
  Value hi = b.floordiv(b.mul(m, b.add(part, b.c(1))), np);
  PartLowering lowering(b, orders, wrap, part, lo, b.sub(hi, lo), waves, partsBefore(part));
  b.phase(dimrings::partsPhaseName(orders), 0, part);
  lowering.emit();
  return success();
}

struct CollLowerDimRingsPass
    : public collc::impl::CollLowerDimRingsBase<CollLowerDimRingsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDimRingsLowering(patterns);
    if (failed(applyCollLowerings(getOperation(), std::move(patterns), ArrayRef<StringRef>{"dim-rings"})))
      signalPassFailure();
  }
};

} // namespace

void collc::populateDimRingsLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallOp>(patterns, {"dim-rings"}, lowerDimRings);
  populateDimRingsVLowering(patterns);
}

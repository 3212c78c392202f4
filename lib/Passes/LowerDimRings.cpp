//===- LowerDimRings.cpp - torus alltoall as pipelined neighbour rings ----===//
//
// The alltoall runs dimension by dimension, and only between neighbours:
// each block's bytes are cut into one part per torus dimension, and part p
// visits the dimensions in its own order (e.g. x y z, y z x, z x y). In the
// stage over dimension d a rank sends every item whose destination differs
// from it along d around its ring of n_d nodes, one hop per step, both ways
// (distances 1 .. n/2 each the shorter way; an even ring's n/2 items half
// each way), until it sits at the destination's coordinate along d.
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
// others end on it, so the x links never idle (measured under SMPI, 4 KiB:
// rotation 3413.5 us, these orders 3196.4 us, bound 2996.5 us).
//
// Within a stage the message of step t to the next rank is split in two:
// the items that travel on ("forward", sent first) and the items for that
// rank ("terminal"). Step t+1 waits only for the forward pieces of step t,
// so the next hop starts while the terminal piece is still on the wire and
// the per-message overhead does not idle the links (a timing-only SMPI
// program, 4x4x4 at 4 KiB: 856.9 us unsplit, 823.6 us split; this lowering
// 828.6 us; bound 749.0 us).
//
// Layout (per part, items of len_p bytes: bytes [lo_p, lo_p + len_p) of a
// block). At a rank in stage k over dimension d, after stages D = e_0..e_{k−1}
// and before R = e_{k+1}..: the items (s, t) it holds agree with it on s
// along R and d, and on t along D. An item is keyed by (t_d, q) on the way
// in and (s_d, q) on the way out, q the mixed-radix index over
// [s_{e_0} .. s_{e_{k−1}}, t_{e_{k+1}} ..] (first digit fastest).
//   In_0 is the send buffer; In_k (k > 0) reads Out_{k−1} in place, item by
//   item; Out_k is a scratch array [s_d][q], except the last stage's, which
//   is the receive buffer. A forward piece lands in a transit slot of its
//   own (direction, step), in order of distance, so the next step sends its
//   two pieces as two contiguous ranges of it.
// Every receive of a wave is posted up front (no buffer is reused within a
// wave), so a wave's scratch is (stages − 1)·P plus Q·h·(h − 1) per stage
// items. Waves (the `waves` option, or as few as fit kScratchBudgetBytes) split
// each part's bytes further and run one after the other through the same
// scratch: a wave's receives and its first copy wait until the wave before
// is done.
//
// Events (w the wave). forward[p·4 + k, w·2^20 + t]: both forward pieces
// of step t of stage k arrived (step t + 1's sends wait for it).
// stage[p, w·4 + k]: every send and terminal receive of stage k, and the
// copy of the rank's own items, done (stage k + 1 starts on it; so does a
// part that takes over stage k's dimension: the hand-off, which continues
// across waves, a part's first stage taking over from the last stages of
// the wave before; the next wave's receives wait for the last stage's).
// Every lock-step rule here was measured: without them the ranks of 8x8x8
// drift apart stage by stage (see forwardEvent).
//
//===----------------------------------------------------------------------===//
#include "dialect/Coll/CollOps.h"
#include "lib/Passes/Passes.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/ScheduleBuilder.h"

namespace collc {
#define GEN_PASS_DEF_COLLLOWERDIMRINGS
#include "lib/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {

/// Sends in flight per part: a step has four, the next step's wait for
/// their forward pieces anyway.
constexpr int64_t kDefaultDepth = 16;

/// Transit items of one stage over a ring of n, both directions: Q·h·(h − 1)
/// (Q = P/n items per distance, slots of h − t items for steps t < h).
Value transitItemsOf(ScheduleBuilder &b, Value nodes, Value n) {
  Value h = b.floordiv(n, b.c(2));
  return b.mul(b.floordiv(nodes, n), b.mul(h, b.sub(h, b.c(1))));
}

/// One part's stages over the dimensions `order`.
class PartLowering {
public:
  /// Bytes [partLo, partLo + partLen) of every block, in `waves` waves.
  PartLowering(ScheduleBuilder &b, int64_t part, ArrayRef<SmallVector<int64_t, 3>> orders,
               Value partLo, Value partLen, Value waves, Value base)
      : b(b), part(part), order(orders[part]), orders(orders.begin(), orders.end()),
        partLo(partLo), partLen(partLen), waves(waves), base(base) {
    ndims = static_cast<int64_t>(order.size());
    zero = b.c(0);
    one = b.c(1);
    two = b.c(2);
    r = b.rank();
    for (int64_t d = 0; d < ndims; ++d) {
      n.push_back(b.dim(d));
      c.push_back(b.coord(r, d));
    }
    p = b.nodes(ndims);
  }

  /// Waves run one after the other through the same scratch: wave w's
  /// receives, and its first copy, wait until wave w − 1 is done.
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
    for (int64_t k = 0; k < ndims; ++k)
      emitStage(k);
  }

private:
  int64_t dimOf(int64_t k) { return order[k]; }
  Value q(int64_t k) { return b.floordiv(p, n[dimOf(k)]); }
  Value h(int64_t k) { return b.floordiv(n[dimOf(k)], two); }
  Value even(int64_t k) { return b.eq(b.mod(n[dimOf(k)], two), zero); }
  /// Items of one Out array: P.
  Value outBase(int64_t k) { return b.add(base, b.mul(b.mul(b.c(k), p), len)); }
  Value transitBase(int64_t k) {
    Value at = b.mul(b.mul(b.c(ndims - 1), p), len);
    for (int64_t i = 0; i < k; ++i)
      at = b.add(at, b.mul(transitItemsOf(b, p, n[dimOf(i)]), len));
    return b.add(base, at);
  }
  /// The slot of the forward piece received at step t (1-based) of stage k,
  /// direction dir: slots of (h − t') items for t' < t, per direction.
  Value transit(int64_t k, Value dir, Value t) {
    Value hk = h(k), qk = q(k);
    Value tm = b.sub(t, one);
    Value before = b.sub(b.mul(tm, hk), b.floordiv(b.mul(tm, t), two));
    Value perDir = b.floordiv(b.mul(hk, b.sub(hk, one)), two);
    return b.add(transitBase(k),
                 b.mul(b.mul(qk, b.add(b.mul(dir, perDir), before)), len));
  }

  /// Items of distance δ one way (an even ring's n/2: half the Q items each
  /// way, the first half +) and the first of them.
  Value isTie(int64_t k, Value delta) { return b.logicalAnd(even(k), b.eq(delta, h(k))); }
  Value tieFirst(int64_t k) { return b.floordiv(q(k), two); }
  Value count(int64_t k, Value dir, Value delta) {
    Value tieCount = b.select(b.eq(dir, zero), tieFirst(k), b.sub(q(k), tieFirst(k)));
    return b.select(isTie(k, delta), tieCount, q(k));
  }
  Value first(int64_t k, Value dir, Value delta) {
    return b.select(b.logicalAnd(isTie(k, delta), b.ne(dir, zero)), tieFirst(k), zero);
  }
  /// Items beyond distance t: the forward piece of step t.
  Value forwardCount(int64_t k, Value dir, Value t) {
    Value full = b.mul(b.sub(h(k), t), q(k));
    Value withTie = b.add(b.mul(b.sub(b.sub(h(k), t), one), q(k)),
                          count(k, dir, h(k)));
    return b.select(b.logicalAnd(even(k), b.lt(t, h(k))), withTie,
                    b.select(b.lt(t, h(k)), full, zero));
  }

  /// The digits of q in stage k: s along e_0..e_{k−1}, then t along
  /// e_{k+1}..; returns coordinates by dimension (unset = not a digit).
  void decode(int64_t k, Value index, SmallVector<Value, 3> &s,
              SmallVector<Value, 3> &t) {
    s.assign(ndims, Value());
    t.assign(ndims, Value());
    for (int64_t i = 0; i < ndims; ++i) {
      if (i == k)
        continue;
      int64_t d = dimOf(i);
      Value digit = b.mod(index, n[d]);
      index = b.floordiv(index, n[d]);
      (i < k ? s : t)[d] = digit;
    }
  }
  Value encode(int64_t k, ArrayRef<Value> s, ArrayRef<Value> t) {
    Value index = zero;
    for (int64_t i = ndims - 1; i >= 0; --i) {
      if (i == k)
        continue;
      int64_t d = dimOf(i);
      index = b.add(b.mul(index, n[d]), i < k ? s[d] : t[d]);
    }
    return index;
  }

  /// Where item (j, q) of In_k lives: j the destination's coordinate along
  /// the stage's dimension.
  std::pair<Buffer, Value> inItem(int64_t k, Value j, Value index) {
    SmallVector<Value, 3> s, t;
    decode(k, index, s, t);
    int64_t d = dimOf(k);
    t[d] = j;
    if (k == 0) {
      Value dst = b.rankAt(t, zero); // every digit of t: s is this rank
      return {Buffer::sendbuf, b.add(b.count(CountArray::senddispl, dst), lo)};
    }
    int64_t prev = dimOf(k - 1);
    Value origin = s[prev];
    Value inPrev = encode(k - 1, s, t);
    return {Buffer::scratch,
            b.add(outBase(k - 1), b.mul(b.add(b.mul(origin, q(k - 1)), inPrev), len))};
  }
  /// Where item (o, q) of Out_k goes: o the source's coordinate along the
  /// stage's dimension.
  std::pair<Buffer, Value> outItem(int64_t k, Value o, Value index) {
    if (k < ndims - 1)
      return {Buffer::scratch, b.add(outBase(k), b.mul(b.add(b.mul(o, q(k)), index), len))};
    SmallVector<Value, 3> s, t;
    decode(k, index, s, t);
    s[dimOf(k)] = o;
    Value src = b.rankAt(s, zero);
    return {Buffer::recvbuf, b.add(b.count(CountArray::recvdispl, src), lo)};
  }

  /// The rank `delta` steps along the stage's dimension (mod n).
  Value along(int64_t k, Value delta) {
    int64_t d = dimOf(k);
    SmallVector<Value, 3> at(c.begin(), c.end());
    at[d] = b.mod(b.add(b.add(c[d], n[d]), delta), n[d]);
    return b.rankAt(at, zero);
  }

  /// stage[p, w·4 + k]: stage k of part `of` (this part by default) in wave
  /// `w` (this wave by default).
  ScheduleBuilder::EventRef stageEvent(int64_t k, int64_t of = -1, Value w = Value()) {
    return {"stage", {b.c(of < 0 ? part : of), b.add(b.mul(w ? w : wave, b.c(4)), b.c(k))}};
  }
  /// The end of the wave before (its last stage). For the first wave a
  /// zero-length copy before the loop signals it, so that every wave waits
  /// the same way (a skipped transfer's signal is satisfied at once).
  ScheduleBuilder::EventRef previousWave() {
    return stageEvent(ndims - 1, part, b.sub(wave, one));
  }
  /// Both directions' forward pieces of step t: the next step's sends wait
  /// for both, so the two directions of a ring stay in step (one running
  /// ahead let ranks drift apart: 8x8x8 at 4 KiB under SMPI, 13617.3 us
  /// with a wait per direction, 12664.3 us with this one; bound 11983.7).
  ScheduleBuilder::EventRef forwardEvent(int64_t k, Value t) {
    return {"forward", {b.c(part * 4 + k), b.add(b.mul(wave, b.c(1 << 20)), t)}};
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

  /// Hand-off: a part entering dimension d waits until the parts that
  /// were on d in the stage before have received everything there, so
  /// that two parts never share d's links. Without it ranks drift apart
  /// stage by stage (8x8x8 at 4 KiB under SMPI: stage starts spread over
  /// 30, 110, then 580 us, and the last stage of the slowest rank took
  /// 5900 us instead of 4200).
  ///
  /// Waves continue the rotation: a part's first stage of wave w takes over
  /// from the parts whose last stage of wave w − 1 was on its dimension
  /// (wave 0's "wave before" is the zero-length copy each part signals
  /// first). Without it, on shapes whose stages differ in length, a part
  /// done early starts its next wave on a dimension another part is still
  /// on (4 KiB under SMPI: 4x16x16 in 2 waves 85.1% of the bound against
  /// 95.0% in one; 4x8x8 in 2 waves 87.7%, with this rule 93.1%, in one
  /// 94.4%; 8x16x16, 2 waves by default, 88.6% and with this rule 95.0%).
  void afterHandOff(int64_t k) {
    int64_t before = k > 0 ? k - 1 : ndims - 1;
    Value w = k > 0 ? wave : b.sub(wave, one);
    for (int64_t q = 0; q < static_cast<int64_t>(orders.size()); ++q)
      if (q != part && orders[q][before] == dimOf(k))
        b.after("stage", stageEvent(before, q, w).index);
  }

  void emitStage(int64_t k) {
    OpBuilder &builder = b.getBuilder();
    int64_t d = dimOf(k);
    Value y = c[d];
    std::optional<ScheduleBuilder::EventRef> ready;
    if (k > 0)
      ready = stageEvent(k - 1);

    // This rank's own items: In_k[y] -> Out_k[y]. The first stage's copy
    // writes scratch the wave before may still be sending from.
    auto ownItems = [&](std::optional<ScheduleBuilder::EventRef> wait) {
      OpBuilder::InsertionGuard guard(builder);
      MLIRContext *ctx = builder.getContext();
      auto copy = builder.create<sched::CopyOp>(
          b.getLoc(), sched::BufferAttr(), Value(), sched::BufferAttr(), Value(), Value(),
          wait ? FlatSymbolRefAttr::get(ctx, wait->name) : FlatSymbolRefAttr(),
          wait ? ValueRange(wait->index) : ValueRange(),
          FlatSymbolRefAttr::get(ctx, "stage"), ValueRange(stageEvent(k).index));
      builder.setInsertionPointToStart(&copy.getBody().emplaceBlock());
      {
        OpBuilder::InsertionGuard inner(builder);
        sched::ForOp items = b.forLoop(zero, q(k));
        auto [buffer, offset] = inItem(k, y, items.getInductionVar());
        b.segment(buffer, offset, len);
      }
      sched::ForOp items = b.forLoop(zero, q(k));
      auto [buffer, offset] = outItem(k, y, items.getInductionVar());
      b.segment(buffer, offset, len, /*dst=*/true);
    };
    ownItems(k > 0 ? ready : std::optional<ScheduleBuilder::EventRef>(previousWave()));

    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp steps = b.forLoop(one, b.add(h(k), one));
    Value t = steps.getInductionVar();
    sched::ForOp dirs = b.forLoop(zero, two);
    Value dir = dirs.getInductionVar();
    Value sigma = b.sub(one, b.mul(dir, two));
    Value to = along(k, sigma), from = along(k, b.sub(zero, sigma));
    Value forwardTag = b.mul(dir, two), terminalTag = b.add(forwardTag, one);
    Value isFirst = b.eq(t, one);

    // Step 1 sends out of In_k, item by item.
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(isFirst);
      {
        OpBuilder::InsertionGuard inner(builder);
        b.ifThen(b.lt(one, h(k)));
        transfer<sched::SendOp>(std::nullopt, Value(), Value(), to, forwardTag, ready,
                                stageEvent(k));
        afterHandOff(k);
        sched::ForOp dist = b.forLoop(two, b.add(h(k), one));
        Value delta = dist.getInductionVar();
        Value j = b.mod(b.add(b.add(y, n[d]), b.mul(sigma, delta)), n[d]);
        Value firstItem = first(k, dir, delta);
        sched::ForOp items = b.forLoop(firstItem, b.add(firstItem, count(k, dir, delta)));
        auto [buffer, offset] = inItem(k, j, items.getInductionVar());
        b.segment(buffer, offset, len);
      }
      transfer<sched::SendOp>(std::nullopt, Value(), Value(), to, terminalTag, ready,
                              stageEvent(k));
      afterHandOff(k);
      Value j = b.mod(b.add(b.add(y, n[d]), sigma), n[d]);
      Value firstItem = first(k, dir, one);
      sched::ForOp items = b.forLoop(firstItem, b.add(firstItem, count(k, dir, one)));
      auto [buffer, offset] = inItem(k, j, items.getInductionVar());
      b.segment(buffer, offset, len);
    }
    // Later steps pass on the forward piece of the step before: its first
    // Q items were for the next rank, the rest travel on.
    {
      OpBuilder::InsertionGuard branch(builder);
      b.ifThen(b.ne(t, one));
      Value tm = b.sub(t, one);
      Value slot = transit(k, dir, tm);
      ScheduleBuilder::EventRef arrived = forwardEvent(k, tm);
      {
        OpBuilder::InsertionGuard inner(builder);
        b.ifThen(b.lt(t, h(k)));
        transfer<sched::SendOp>(Buffer::scratch, b.add(slot, b.mul(q(k), len)),
                                b.mul(forwardCount(k, dir, t), len), to, forwardTag,
                                arrived, stageEvent(k));
      }
      transfer<sched::SendOp>(Buffer::scratch, slot, b.mul(count(k, dir, t), len), to,
                              terminalTag, arrived, stageEvent(k));
    }
    // Receives, all posted up front (from the second wave on, once the
    // wave before is done with the scratch they write).
    Value origin = b.mod(b.sub(b.add(y, b.mul(n[d], h(k))), b.mul(sigma, t)), n[d]);
    Value firstItem = first(k, dir, t);
    Value items = count(k, dir, t);
    ScheduleBuilder::EventRef wait = previousWave();
    {
      {
        OpBuilder::InsertionGuard branch(builder);
        b.ifThen(b.lt(t, h(k)));
        transfer<sched::RecvOp>(Buffer::scratch, transit(k, dir, t),
                                b.mul(forwardCount(k, dir, t), len), from, forwardTag, wait,
                                forwardEvent(k, t));
      }
      if (k < ndims - 1) {
        transfer<sched::RecvOp>(Buffer::scratch, outItem(k, origin, firstItem).second,
                                b.mul(items, len), from, terminalTag, wait, stageEvent(k));
        return;
      }
      transfer<sched::RecvOp>(std::nullopt, Value(), Value(), from, terminalTag, wait,
                              stageEvent(k));
      sched::ForOp each = b.forLoop(firstItem, b.add(firstItem, items));
      auto [buffer, offset] = outItem(k, origin, each.getInductionVar());
      b.segment(buffer, offset, len);
    }
  }

  ScheduleBuilder &b;
  int64_t part, ndims;
  SmallVector<int64_t, 3> order;
  SmallVector<SmallVector<int64_t, 3>> orders; // every part's, for hand-offs
  Value partLo, partLen, waves, base;
  Value lo, len, wave; // of the wave being emitted (set by emit())
  Value zero, one, two, r, p;
  SmallVector<Value, 3> n, c;
};

LogicalResult lowerDimRings(coll::AlltoallOp op) {
  coll::TopologyAttr topology = op.getTopology();
  if (topology.getRanksPerNode() != 1)
    return op.emitError("the dim-rings alltoall schedules one rank per torus node; "
                        "this topology has ")
           << topology.getRanksPerNode() << " ranks per node (use algorithm: direct)";
  ArrayRef<int64_t> shape = topology.getShape();
  for (auto [d, wraps] : llvm::enumerate(topology.getWrap()))
    if (!wraps)
      return op.emitError("the dim-rings alltoall needs a torus (every dimension "
                          "wrapped); dimension ")
             << d << " does not wrap (use algorithm: direct or balanced)";
  OpBuilder builder(op);
  int64_t depth = op.getAlgorithm().getInt("fifo_depth").value_or(kDefaultDepth);
  SmallVector<SmallVector<int64_t, 3>> orders = dimRingsOrders(shape).orders;
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
    items = b.add(items, transitItemsOf(b, nodes, b.dim(d)));
  // Waves: the `waves` option, or as few as keep the scratch within
  // kScratchBudgetBytes (one up to 8x8x8 at 4 KiB; 64 KiB blocks on 40x32x16
  // need about 130), at most one per byte of the block.
  Value waves;
  if (std::optional<int64_t> fixed = op.getAlgorithm().getInt("waves"))
    waves = b.c(*fixed);
  else
    waves = b.max(b.c(1), b.min(b.max(m, b.c(1)),
                                b.ceildiv(b.mul(items, m), b.c(kScratchBudgetBytes))));
  SmallVector<PartLowering, 3> lowerings;
  Value base = b.c(0);
  for (int64_t part = 0; part < parts; ++part) {
    Value lo = b.floordiv(b.mul(m, b.c(part)), np);
    Value hi = b.floordiv(b.mul(m, b.c(part + 1)), np);
    Value len = b.sub(hi, lo);
    lowerings.emplace_back(b, part, orders, lo, len, waves, base);
    base = b.add(base, b.mul(items, b.ceildiv(len, waves)));
  }
  builder.create<sched::ScratchOp>(op.getLoc(), base);

  static const char *const names[] = {"x", "y", "z"};
  for (int64_t part = 0; part < parts; ++part) {
    std::string name = "part " + std::to_string(part) + ":";
    for (int64_t d : orders[part])
      name += std::string(" ") + names[d];
    OpBuilder::InsertionGuard guard(builder);
    b.phase(name, part);
    lowerings[part].emit();
  }
  op.erase();
  return success();
}

struct CollLowerDimRingsPass
    : public collc::impl::CollLowerDimRingsBase<CollLowerDimRingsPass> {
  void runOnOperation() override {
    for (coll::AlltoallOp op :
         opsWithAlgorithm<coll::AlltoallOp>(getOperation(), {"dim-rings"}))
      if (failed(lowerDimRings(op)))
        return signalPassFailure();
  }
};

} // namespace

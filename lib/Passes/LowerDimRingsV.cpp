//===- LowerDimRingsV.cpp - torus alltoallv, one dimension at a time ------===//
//
// The dim-rings schedule for alltoallv. As in the alltoall (LowerDimRings.cpp)
// every block is cut into parts (at most one per active torus dimension:
// the spec's `parts` or dimRingsParts, priced with this schedule's model), part p
// crosses the dimensions in its own order (the same orders, from the same
// fluid model), and a stage moves every item along one dimension only, so
// every flow stays inside one ring of the torus and the parts keep
// different dimensions' links busy at once.
//
// What differs is how a stage crosses its ring. The alltoall passes items
// hop by hop, and every rank on the way cuts what it received into the
// piece for itself and the piece that travels on. With counts known only at
// run time, each of those ranks would have to learn the length of every
// item passing through it: about D·n/4 bind-time records per item and part.
// Here a stage is an exchange within the ring instead: a rank sends ring
// peer j (at distance δ = 1 .. n − 1) ONE message with all its items for
// coordinate j along the stage's dimension. Only the rank that lays an item
// out in scratch must know its length, one record per item and stage, and
// the links carry the same bytes as hop by hop (an item at distance δ
// crosses δ links either way).
//
// Ties. SimGrid's torus routes a message at exactly n/2 the + way from
// every coordinate but n/2, whose tie goes − (wrappedStep, lib/Spec), so on
// an even ring the tie groups would load the + links n − 1 times and the −
// links once. The lowering sends part of each tie group the other way
// round: to the neighbour on the other side, which forwards it n/2 − 1 hops
// further (origin n/2: through n/2 + 1, +; every other origin c: through
// c − 1, −). Origin c sends the first ⌊(Q + c mod 2)/2⌋ of its Q tie items
// straight, the rest through the forwarder (alternating the odd item, so a
// ring of 1-item groups balances too). Rings of 2 have one link pair and no
// tie to balance. Assuming every tie went + would leave the − links from
// n/2 to 0 carrying more than their share, and the stage would end with
// them.
//
// Layout. Stage k of part p, over dimension d = E_k (positions as in the
// alltoall): an item (s, t) waiting at a rank agrees with it on t along
// E_0 .. E_{k−1} and on s along E_k ..; q is the mixed-radix index of its
// free coordinates, s along E_0 .. E_{k−1} and t along E_{k+1} .. (first
// digit fastest, position k skipped). In_k holds items keyed (t_d, q), each
// read where it last arrived (the send buffer, or Out_l of the latest stage
// l that moved it: dimrings::itemHome), Out_k items keyed (s_d, q):
// position s_d·Q + q, Q = P/n_d; the items a stage does not move (s_d = c_d)
// are not laid out, only the last stage copies its own. The last stage's Out is the
// receive buffer, whose lengths the receiver knows; every other Out_k lies
// in scratch in position order, so the message from origin o fills one
// position range.
//
// Bind-time exchange (plan format v2), once per bind: as a source, a rank
// PUTs the length of its part p of block (s, t) to the rank that lays it
// out in Out_k, in table 0 under key ((p·(D − 1) + k)·P + position); a
// TABLE_SUM over the keys below gives an item's offset, over one key its
// length, over a range a message's length. Tie items that take the
// detour are also PUT to the forwarder (table 1, key ((p·D + k)·2 + side)·P
// + q, side 1 when the origin is the forwarder's − neighbour: n/2 + 1
// forwards for both of its neighbours), which receives them as one range
// and sums that range for its two messages.
// Zero lengths are not PUT (TABLE_SUM counts a missing key as 0).
//
// Events. got[p, k]: every receive of part p's stage k, and in the last
// stage the copy of the rank's own items (a ring of one: an empty copy);
// the sends and copy of every later stage wait for it.
// fwd[p, 2k + side]: the detoured tie half, received by its forwarder.
//
//===----------------------------------------------------------------------===//
#include "collc/Dialect/Coll/CollOps.h"
#include "lib/Cost/CostModel.h"
#include "lib/Passes/CollLowering.h"
#include "collc/Passes/Passes.h"
#include "lib/Passes/DimRingsAddressing.h"
#include "lib/Passes/ScheduleBuilder.h"

using namespace mlir;
using namespace collc;
using sched::Buffer;
using sched::CountArray;

namespace {


/// Tags: stage k's direct messages, the leg to a tie forwarder, the
/// forwarder's leg on.
enum Kind { kDirect = 0, kToForwarder = 1, kForwarded = 2, kKinds = 3 };

class DimRingsV {
public:
  DimRingsV(ScheduleBuilder &b, ArrayRef<SmallVector<int64_t, 3>> orders)
      : b(b), orders(orders.begin(), orders.end()) {
    ndims = static_cast<int64_t>(orders.front().size());
    parts = static_cast<int64_t>(orders.size());
    zero = b.c(0);
    one = b.c(1);
    two = b.c(2);
    r = b.rank();
    p = b.nodes(ndims);
    Value s = one;
    for (int64_t d = 0; d < ndims; ++d) {
      n.push_back(b.dim(d));
      stride.push_back(s); // one rank per node: rank = Σ c_d · stride_d
      s = b.mul(s, n.back());
    }
  }

  void emit() {
    OpBuilder &builder = b.getBuilder();
    emitExchange();
    // Scratch: every Out_k but the last stage's, then the forwarders' slots.
    outTotal = b.tableSum(0, zero, key0(b.c(parts), zero, zero));
    Value fwdTotal = b.tableSum(1, zero, key1(b.c(parts), zero, zero, zero));
    builder.create<sched::ScratchOp>(b.getLoc(), b.add(outTotal, fwdTotal));

    sched::ForOp loop = b.forLoop(zero, b.c(parts));
    bindPart(loop.getInductionVar());
    b.phase(dimrings::partsPhaseName(orders), 0, part);
    sched::ForOp stages = b.forLoop(zero, b.c(ndims));
    bindStage(stages.getInductionVar());
    emitStage();
  }

private:
  //===--- addressing, for a part (p) and a stage (k) ---------------------===//

  /// Table keys: table 0 by (part, stage, Out position), table 1 by (part,
  /// stage, tie item q).
  Value key0(Value of, Value stage, Value pos) {
    return b.add(b.mul(b.add(b.mul(of, b.c(ndims - 1)), stage), p), pos);
  }
  Value key1(Value of, Value stage, Value side, Value q) {
    Value group = b.add(b.mul(b.add(b.mul(of, b.c(ndims)), stage), two), side);
    return b.add(b.mul(group, p), q);
  }
  /// Part `of`'s bytes of a block of m: [lo, lo + len).
  Value partLo(Value m, Value of) { return b.floordiv(b.mul(m, of), b.c(parts)); }
  Value partLen(Value m, Value of) {
    return b.sub(partLo(m, b.add(of, one)), partLo(m, of));
  }

  /// Per-position values of this part's order, picked at run time.
  void bindPart(Value of) {
    part = of;
    nAt.clear();
    strideAt.clear();
    for (int64_t i = 0; i < ndims; ++i) {
      SmallVector<Value> extents, strides;
      for (ArrayRef<int64_t> order : orders) {
        extents.push_back(n[order[i]]);
        strides.push_back(stride[order[i]]);
      }
      nAt.push_back(b.pick(part, extents));
      strideAt.push_back(b.pick(part, strides));
    }
  }
  /// Rank x's coordinate along position i of this part's order.
  Value coordAt(Value x, int64_t i) {
    SmallVector<Value> coords;
    for (ArrayRef<int64_t> order : orders)
      coords.push_back(b.coord(x, order[i]));
    return b.pick(part, coords);
  }
  void bindStage(Value stage) {
    k = stage;
    nk = b.pick(k, nAt);
    strideK = b.pick(k, strideAt);
    mine.clear();
    for (int64_t i = 0; i < ndims; ++i)
      mine.push_back(coordAt(r, i));
    ck = b.pick(k, mine);
    qk = b.floordiv(p, nk);
    h = b.floordiv(nk, two);
    // an even ring longer than 2 sends part of its tie groups the other way
    tieSplit = b.logicalAnd(b.eq(b.mod(nk, two), zero), b.lt(two, nk));
    atStage.clear();
    stageRadix.clear();
    for (int64_t i = 0; i < ndims; ++i) {
      atStage.push_back(b.eq(k, b.c(i)));
      stageRadix.push_back(b.select(atStage[i], one, nAt[i]));
    }
  }
  Value lastStage() { return b.eq(k, b.c(ndims - 1)); }

  /// The digits of q by position (position k has radix 1: digit 0).
  SmallVector<Value, 3> decode(Value index) { return dimrings::decode(b, index, stageRadix); }
  Value rankOf(ArrayRef<Value> digits) { return dimrings::rankOf(b, digits, strideAt); }
  /// The rank `delta` steps along the stage's dimension (mod n).
  Value along(Value delta) {
    Value to = b.mod(b.add(b.add(ck, b.mul(nk, two)), delta), nk);
    return b.add(r, b.mul(b.sub(to, ck), strideK));
  }
  /// Tie items origin `o` sends straight (the rest take the detour).
  Value straight(Value o) { return b.floordiv(b.add(qk, b.mod(o, two)), two); }
  /// Whether origin `o`'s tie goes − (wrappedStep: only from n/2), so its
  /// detour goes + through o + 1 instead of − through o − 1.
  Value tieGoesMinus(Value o) { return b.eq(o, h); }
  /// The side of the detour from origin `o`: +1 or −1.
  Value detourStep(Value o) { return b.select(tieGoesMinus(o), one, b.sub(zero, one)); }

  /// A segment of item (j, q) of In_k, where it last arrived
  /// (dimrings::itemHome): the send buffer, or Out_l of the latest stage l
  /// that moved it. No stage copies a rank's own items on to the next.
  void inSegment(Value j, Value q) {
    dimrings::itemHome(
        b, decode(q), j, k, mine, atStage, nAt, strideAt,
        [&](Value dest) {
          Value m = b.count(CountArray::sendcount, dest);
          b.segment(Buffer::sendbuf, b.add(b.count(CountArray::senddispl, dest), partLo(m, part)),
                    partLen(m, part));
        },
        [&](Value stage, Value position) {
          Value at = key0(part, stage, position);
          b.segment(Buffer::scratch, b.tableSum(0, zero, at),
                    b.tableSum(0, at, b.add(at, one)));
        });
  }
  /// A segment of item (o, q) of Out_k: scratch, or the receive buffer in
  /// the last stage.
  void outSegment(Value o, Value q, bool dst) {
    OpBuilder &builder = b.getBuilder();
    {
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(b.ne(k, b.c(ndims - 1)));
      Value at = key0(part, k, b.add(b.mul(o, qk), q));
      b.segment(Buffer::scratch, b.tableSum(0, zero, at), b.tableSum(0, at, b.add(at, one)),
                dst);
    }
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(lastStage());
    Value src = b.add(rankOf(decode(q)), b.mul(o, strideK));
    Value m = b.count(CountArray::recvcount, src);
    b.segment(Buffer::recvbuf, b.add(b.count(CountArray::recvdispl, src), partLo(m, part)),
              partLen(m, part), dst);
  }

  ScheduleBuilder::EventRef got(Value stage) { return {"got", {part, stage}}; }
  ScheduleBuilder::EventRef fwd(Value side) { return {"fwd", {part, b.add(b.mul(k, two), side)}}; }
  Value tag(Kind kind) { return b.add(b.mul(k, b.c(kKinds)), b.c(kind)); }
  /// Stage k reads items from every Out_l, l < k (inSegment): its sends
  /// and copy wait for each of those stages' receives. (got(k − 1) alone
  /// would not do: a rank can have all of stage k − 1's items while some
  /// of stage k − 2's are still on the wire.)
  void afterEarlierStages() {
    for (int64_t l = 0; l + 1 < ndims; ++l) {
      OpBuilder::InsertionGuard guard(b.getBuilder());
      b.ifThen(b.lt(b.c(l), k));
      b.after("got", got(b.c(l)).index);
    }
  }

  //===--- the bind-time exchange -----------------------------------------===//

  /// For every part, stage and block (s, t): PUT the part's length to the
  /// rank laying the item out in Out_k, and a detoured tie item's to its
  /// forwarder. Who PUTs keeps each rank's peers to a few rings and lines
  /// (the exchange's messages are what bind costs under SMPI): the source
  /// s where the receiver shares all but one coordinate with s (Out_0: s's
  /// ring along E_0; a forwarder before the last stage: a line through s's
  /// neighbour), the destination t where it shares all but one with t
  /// (Out_{D−2} and the last stage's forwarders: t's ring along E_{D−1}).
  void emitExchange() {
    OpBuilder &builder = b.getBuilder();
    OpBuilder::InsertionGuard guard(builder);
    b.exchange();
    sched::ForOp parts = b.forLoop(zero, b.c(this->parts));
    bindPart(parts.getInductionVar());
    sched::ForOp stages = b.forLoop(zero, b.c(ndims));
    bindStage(stages.getInductionVar());
    for (bool asSource : {true, false}) {
      OpBuilder::InsertionGuard inner(builder);
      sched::ForOp others = b.forLoop(zero, p);
      Value x = others.getInductionVar();
      Value src = asSource ? r : x, dst = asSource ? x : r;
      Value m = asSource ? b.count(CountArray::sendcount, x) : b.count(CountArray::recvcount, x);
      Value outBySource = b.eq(k, zero);
      Value fwdBySource = b.lt(k, b.c(ndims - 1));
      putRecords(src, dst, partLen(m, part),
                 asSource ? outBySource : b.logicalAnd(b.ne(k, zero), b.lt(k, b.c(ndims - 1))),
                 asSource ? fwdBySource : b.eq(k, b.c(ndims - 1)));
    }
  }
  /// The records of block (src, dst) at this part and stage: Out_k's if
  /// `out`, the forwarder's if `fwd` (and the item is detoured).
  void putRecords(Value src, Value dst, Value len, Value out, Value fwd) {
    OpBuilder &builder = b.getBuilder();
    b.ifThen(b.ne(len, zero));
    // q: s along positions before k, t along those after (k skipped).
    Value q = zero;
    for (int64_t i = ndims - 1; i >= 0; --i) {
      Value digit = b.select(b.lt(b.c(i), k), coordAt(src, i), coordAt(dst, i));
      q = b.add(b.mul(q, stageRadix[i]), b.select(atStage[i], zero, digit));
    }
    // Where the item waits before stage k (t before k, s from k on) and
    // where it is laid out after it (t up to k, s after).
    Value waits = zero, laid = zero;
    SmallVector<Value, 3> srcAt, dstAt;
    for (int64_t i = 0; i < ndims; ++i) {
      srcAt.push_back(coordAt(src, i));
      dstAt.push_back(coordAt(dst, i));
      Value before = b.lt(b.c(i), k);
      waits = b.add(waits, b.mul(b.select(before, dstAt[i], srcAt[i]), strideAt[i]));
      laid = b.add(laid, b.mul(b.select(b.le(b.c(i), k), dstAt[i], srcAt[i]), strideAt[i]));
    }
    Value cs = b.pick(k, srcAt), ct = b.pick(k, dstAt);
    {
      OpBuilder::InsertionGuard inner(builder);
      // an item the stage does not move stays where it is (inSegment)
      b.ifThen(b.logicalAnd(b.logicalAnd(out, b.ne(k, b.c(ndims - 1))), b.ne(cs, ct)));
      b.put(0, key0(part, k, b.add(b.mul(cs, qk), q)), len, laid);
    }
    // the stage's origin is `waits`, whose coordinate along k is s's
    Value delta = b.mod(b.add(b.sub(ct, cs), nk), nk);
    Value detoured = b.logicalAnd(b.logicalAnd(tieSplit, b.eq(delta, h)), b.le(straight(cs), q));
    b.ifThen(b.logicalAnd(fwd, detoured));
    Value via = b.mod(b.add(b.add(cs, nk), detourStep(cs)), nk);
    Value forwarder = b.add(waits, b.mul(b.sub(via, cs), strideK));
    Value side = b.select(tieGoesMinus(cs), one, zero);
    b.put(1, key1(part, k, side, q), len, forwarder);
  }

  //===--- one stage of one part ------------------------------------------===//

  void emitStage() {
    OpBuilder &builder = b.getBuilder();
    // Sends, in shift order: distance δ to coordinate c + δ, and the
    // detoured part of the tie group to its forwarder, every message of the
    // stage at once, so every link of the ring is busy from the start.
    // Holding the direct messages behind the detour, or cutting the detour
    // into chunks forwarded one by one, leaves links idle while the first
    // leg runs (the chunks share the link and arrive together anyway).
    {
      OpBuilder::InsertionGuard guard(builder);
      sched::ForOp steps = b.forLoop(one, nk);
      Value delta = steps.getInductionVar();
      Value j = b.mod(b.add(ck, delta), nk);
      Value tie = b.logicalAnd(tieSplit, b.eq(delta, h));
      Value direct = b.select(tie, straight(ck), qk);
      {
        OpBuilder::InsertionGuard inner(builder);
        b.sendGathered(along(delta), tag(kDirect));
        afterEarlierStages();
        sched::ForOp items = b.forLoop(zero, direct);
        inSegment(j, items.getInductionVar());
      }
      b.ifThen(tie);
      b.sendGathered(along(detourStep(ck)), tag(kToForwarder));
      afterEarlierStages();
      sched::ForOp items = b.forLoop(direct, qk);
      inSegment(j, items.getInductionVar());
    }
    // Forwarder of a neighbour's detoured tie items (side 0: the +
    // neighbour's, on −; side 1: the − neighbour's when that is n/2, on +):
    // one range of scratch in, the same range on to origin + n/2.
    for (int64_t side = 0; side < 2; ++side) {
      OpBuilder::InsertionGuard guard(builder);
      Value step = side ? b.sub(zero, one) : one; // where the origin is
      Value origin = b.mod(b.add(b.add(ck, nk), step), nk);
      Value serves = b.eq(tieGoesMinus(origin), side ? one : zero);
      b.ifThen(b.logicalAnd(tieSplit, serves));
      Value at = key1(part, k, b.c(side), zero);
      Value slot = b.add(outTotal, b.tableSum(1, zero, at));
      Value len = b.tableSum(1, at, b.add(at, p));
      b.recv(Buffer::scratch, slot, len, along(step), tag(kToForwarder), fwd(b.c(side)));
      b.send(Buffer::scratch, slot, len, along(b.add(step, h)), tag(kForwarded), fwd(b.c(side)));
    }
    emitOwnCopy();
    // Receives: from origin c − δ its items for this rank, and the detoured
    // half of a tie group from that origin's forwarder.
    OpBuilder::InsertionGuard guard(builder);
    sched::ForOp steps = b.forLoop(one, nk);
    Value delta = steps.getInductionVar();
    Value o = b.mod(b.sub(b.add(ck, nk), delta), nk);
    Value tie = b.logicalAnd(tieSplit, b.eq(delta, h));
    Value direct = b.select(tie, straight(o), qk);
    {
      OpBuilder::InsertionGuard inner(builder);
      b.recvGathered(along(b.sub(zero, delta)), tag(kDirect), got(k));
      sched::ForOp items = b.forLoop(zero, direct);
      outSegment(o, items.getInductionVar(), /*dst=*/false);
    }
    b.ifThen(tie);
    // the detour comes from the origin's forwarder: o + 1 or o − 1
    Value via = b.add(b.sub(zero, h), detourStep(o));
    b.recvGathered(along(via), tag(kForwarded), got(k));
    sched::ForOp items = b.forLoop(direct, qk);
    outSegment(o, items.getInductionVar(), /*dst=*/false);
  }

  /// The last stage copies the rank's own items, In_k[c], to the receive
  /// buffer, after the stage's sends so that its time passes while they
  /// are on the wire. Earlier stages copy nothing (inSegment reads their
  /// own items where they are); a ring of one, which has no receives, ends
  /// its stage with an empty copy.
  void emitOwnCopy() {
    OpBuilder &builder = b.getBuilder();
    {
      OpBuilder::InsertionGuard guard(builder);
      b.ifThen(lastStage());
      std::optional<ScheduleBuilder::EventRef> none;
      b.copyWith(std::nullopt, Value(), std::nullopt, Value(), Value(), none, got(k));
      afterEarlierStages();
      {
        OpBuilder::InsertionGuard inner(builder);
        sched::ForOp items = b.forLoop(zero, qk);
        inSegment(ck, items.getInductionVar());
      }
      sched::ForOp items = b.forLoop(zero, qk);
      outSegment(ck, items.getInductionVar(), /*dst=*/true);
    }
    OpBuilder::InsertionGuard guard(builder);
    b.ifThen(b.logicalAnd(b.ne(k, b.c(ndims - 1)), b.eq(nk, one)));
    std::optional<ScheduleBuilder::EventRef> none;
    b.copyWith(sched::Buffer::sendbuf, zero, sched::Buffer::scratch, zero, zero, none, got(k));
  }

  ScheduleBuilder &b;
  SmallVector<SmallVector<int64_t, 3>> orders;
  int64_t ndims, parts;
  Value zero, one, two, r, p, outTotal;
  SmallVector<Value, 3> n, stride;       // by dimension
  Value part;                            // of the part being emitted
  SmallVector<Value, 3> nAt, strideAt;   // by position in its order
  Value k, nk, ck, strideK, qk, h, tieSplit; // of the stage being emitted
  SmallVector<Value, 3> atStage, stageRadix;
  SmallVector<Value, 3> mine; // this rank's coordinates, by position
};

LogicalResult lowerDimRingsV(coll::AlltoallvOp op, OpBuilder &builder) {
  coll::TopologyAttr topology = op.getTopology();
  if (failed(dimrings::checkTopology(op, topology, /*lines=*/false)))
    return failure();
  // decided by selection, as in lowerDimRings
  int64_t depth = *op.getAlgorithm().getInt("fifo_depth");
  int64_t numParts = *op.getAlgorithm().getInt("parts");
  SmallVector<SmallVector<int64_t, 3>> orders =
      dimRingsOrders(topology.getShape(), numParts).orders;
  MLIRContext *ctx = op.getContext();
  SmallVector<sched::FifoAttr> fifos(orders.size(),
                                     sched::FifoAttr::get(ctx, depth, /*recv_depth=*/0));
  createPlanFor(builder, op, "alltoallv", "dim-rings", fifos, {"got", "fwd"});
  ScheduleBuilder b(builder, op.getLoc());
  DimRingsV(b, orders).emit();
  return success();
}

} // namespace

void collc::populateDimRingsVLowering(RewritePatternSet &patterns) {
  addCollLowering<coll::AlltoallvOp>(patterns, {"dim-rings"}, lowerDimRingsV);
}

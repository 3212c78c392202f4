//===- ScheduleBuilder.h - concise construction of sched IR -----*- C++ -*-===//
//
// Lowerings write schedules as arithmetic on index values; this wraps the
// builder so that `b.mod(b.add(r, k), p)` reads like the formula it encodes.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PASSES_SCHEDULEBUILDER_H
#define COLLC_PASSES_SCHEDULEBUILDER_H

#include "collc/Dialect/Sched/SchedOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"

namespace collc {

class ScheduleBuilder {
public:
  ScheduleBuilder(mlir::OpBuilder &builder, mlir::Location loc)
      : builder(builder), loc(loc) {}

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::Location getLoc() { return loc; }

  /// Creates an expression op; every expression has one index result.
  template <typename OpTy, typename... Args>
  mlir::Value expr(Args &&...args) {
    return builder.create<OpTy>(loc, builder.getIndexType(),
                                std::forward<Args>(args)...);
  }

  mlir::Value c(int64_t v) { return expr<sched::ConstOp>(v); }
  mlir::Value rank() { return expr<sched::RankOp>(); }
  mlir::Value size() { return expr<sched::SizeOp>(); }
  mlir::Value count(sched::CountArray array, mlir::Value index) {
    return expr<sched::CountOp>(array, index);
  }
  mlir::Value stat(sched::CountStat stat) {
    return expr<sched::CountStatOp>(stat);
  }

#define COLLC_BINARY(NAME, OP)                                                 \
  mlir::Value NAME(mlir::Value a, mlir::Value b) {                             \
    return expr<sched::OP>(a, b);                                              \
  }
  COLLC_BINARY(add, AddOp)
  COLLC_BINARY(sub, SubOp)
  COLLC_BINARY(mul, MulOp)
  COLLC_BINARY(floordiv, FloorDivOp)
  COLLC_BINARY(mod, ModOp)
  COLLC_BINARY(min, MinOp)
  COLLC_BINARY(max, MaxOp)
  COLLC_BINARY(ceildiv, CeilDivOp)
  COLLC_BINARY(eq, EqOp)
  COLLC_BINARY(lt, LtOp)
  COLLC_BINARY(le, LeOp)
  COLLC_BINARY(ge, GeOp)
  COLLC_BINARY(logicalAnd, AndOp)
  COLLC_BINARY(logicalOr, OrOp)
  COLLC_BINARY(ne, NeOp)
#undef COLLC_BINARY
  mlir::Value select(mlir::Value condition, mlir::Value a, mlir::Value b) {
    return expr<sched::SelectOp>(condition, a, b);
  }
  /// values[index] for a run-time index in [0, values.size()), as a chain
  /// of selects: how one loop body reads what its unrolled copies had as
  /// constants (a part's dimension order, a tie set's dimensions).
  mlir::Value pick(mlir::Value index, llvm::ArrayRef<mlir::Value> values) {
    mlir::Value v = values.back();
    for (int64_t i = static_cast<int64_t>(values.size()) - 2; i >= 0; --i)
      v = select(eq(index, c(i)), values[i], v);
    return v;
  }
  /// Topology: nodes along `d`, a rank's coordinate, the rank at coordinates.
  mlir::Value dim(int64_t d) { return expr<sched::DimOp>(d); }
  mlir::Value coord(mlir::Value rank, int64_t d) {
    return expr<sched::CoordOp>(rank, d);
  }
  mlir::Value rankAt(mlir::ValueRange coords, mlir::Value local) {
    return expr<sched::RankAtOp>(coords, local);
  }
  /// Nodes of the topology (the product of its `ndims` extents). A plan that
  /// uses it runs on exactly nodes × ranks_per_node ranks, and the verifier
  /// checks it on a family of smaller shapes.
  mlir::Value nodes(int64_t ndims) {
    mlir::Value n = c(1);
    for (int64_t d = 0; d < ndims; ++d)
      n = mul(n, dim(d));
    return n;
  }
  mlir::Value isqrt(mlir::Value a) {
    return expr<sched::IsqrtOp>(a);
  }

  /// Creates a sched.for and returns it with the insertion point in its body.
  /// With a seed the order is random; `shared`: the same on every rank.
  sched::ForOp forLoop(mlir::Value lower, mlir::Value upper,
                       mlir::Value randomSeed = {}, bool shared = false) {
    auto loop = builder.create<sched::ForOp>(
        loc, lower, upper, static_cast<bool>(randomSeed),
        static_cast<bool>(randomSeed) && shared, randomSeed);
    mlir::Block &body = loop.getBody().emplaceBlock();
    body.addArgument(builder.getIndexType(), loc);
    builder.setInsertionPointToStart(&body);
    return loop;
  }
  sched::IfOp ifThen(mlir::Value condition) {
    auto branch = builder.create<sched::IfOp>(loc, condition);
    builder.setInsertionPointToStart(&branch.getBody().emplaceBlock());
    return branch;
  }
  /// A phase on FIFO `fifo` (+ `offset`, in a phase loop).
  sched::PhaseOp phase(llvm::StringRef name, int64_t fifo, mlir::Value offset = {}) {
    auto phase = builder.create<sched::PhaseOp>(
        loc, builder.getStringAttr(name), builder.getI64IntegerAttr(fifo), offset);
    builder.setInsertionPointToStart(&phase.getBody().emplaceBlock());
    return phase;
  }

  /// Transfers; `event` is the optional (name, index) to wait on or signal.
  struct EventRef {
    llvm::StringRef name;
    llvm::SmallVector<mlir::Value, 2> index;
  };
  void send(sched::Buffer buffer, mlir::Value offset, mlir::Value length,
            mlir::Value peer, mlir::Value tag,
            std::optional<EventRef> wait = std::nullopt) {
    builder.create<sched::SendOp>(loc, attr(buffer), offset, length, peer, tag,
                                  ref(wait), indexOf(wait), nullptr,
                                  mlir::ValueRange());
  }
  void recv(sched::Buffer buffer, mlir::Value offset, mlir::Value length,
            mlir::Value peer, mlir::Value tag,
            std::optional<EventRef> signal = std::nullopt) {
    builder.create<sched::RecvOp>(loc, attr(buffer), offset, length, peer, tag,
                                  nullptr, mlir::ValueRange(), ref(signal),
                                  indexOf(signal));
  }
  /// A gathered send or receive (one message of the segments its body
  /// produces); the insertion point moves into the body.
  sched::SendOp sendGathered(mlir::Value peer, mlir::Value tag,
                             std::optional<EventRef> wait = std::nullopt) {
    auto op = builder.create<sched::SendOp>(
        loc, sched::BufferAttr(), mlir::Value(), mlir::Value(), peer, tag,
        ref(wait), indexOf(wait), nullptr, mlir::ValueRange());
    builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    return op;
  }
  sched::RecvOp recvGathered(mlir::Value peer, mlir::Value tag,
                             std::optional<EventRef> signal = std::nullopt,
                             std::optional<EventRef> wait = std::nullopt) {
    auto op = builder.create<sched::RecvOp>(
        loc, sched::BufferAttr(), mlir::Value(), mlir::Value(), peer, tag,
        ref(wait), indexOf(wait), ref(signal), indexOf(signal));
    builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    return op;
  }
  /// One segment of the enclosing gathered transfer; `dst`: of a COPY's
  /// destination side.
  void segment(sched::Buffer buffer, mlir::Value offset, mlir::Value length,
               bool dst = false) {
    builder.create<sched::SegmentOp>(loc, dst, buffer, offset, length);
  }
  /// The node arena (plan format 4): declared once before the phases;
  /// notify adds one to a counter, await completes once every notify of
  /// the counter by the node's ranks in this run happened.
  void arena(mlir::Value bytes, mlir::Value counters) {
    builder.create<sched::ArenaOp>(loc, bytes, counters);
  }
  void notify(mlir::Value counter, std::optional<EventRef> wait = std::nullopt) {
    builder.create<sched::NotifyOp>(loc, counter, ref(wait), indexOf(wait), nullptr,
                                    mlir::ValueRange());
  }
  void await(mlir::Value counter, std::optional<EventRef> signal) {
    builder.create<sched::AwaitOp>(loc, counter, nullptr, mlir::ValueRange(), ref(signal),
                                   indexOf(signal));
  }
  /// A COPY with the given sides (std::nullopt: gathered from the body's
  /// segments, the insertion point then moves into the body) and events.
  sched::CopyOp copyWith(std::optional<sched::Buffer> src, mlir::Value srcOffset,
                         std::optional<sched::Buffer> dst, mlir::Value dstOffset,
                         mlir::Value length, std::optional<EventRef> wait,
                         std::optional<EventRef> signal) {
    auto attrOf = [&](std::optional<sched::Buffer> b) {
      return b ? attr(*b) : sched::BufferAttr();
    };
    auto op = builder.create<sched::CopyOp>(loc, attrOf(src), srcOffset, attrOf(dst), dstOffset,
                                            length, ref(wait), indexOf(wait), ref(signal),
                                            indexOf(signal));
    if (!src || !dst)
      builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    return op;
  }
  /// A REDUCE (plan format 5): dst[i] = dst[i] OP src[i] over `length`
  /// bytes, the destination the left operand.
  sched::ReduceOp reduceInto(llvm::StringRef op, llvm::StringRef type, sched::Buffer src,
                             mlir::Value srcOffset, sched::Buffer dst, mlir::Value dstOffset,
                             mlir::Value length, std::optional<EventRef> wait,
                             std::optional<EventRef> signal) {
    return builder.create<sched::ReduceOp>(
        loc, builder.getStringAttr(op), builder.getStringAttr(type), attr(src), srcOffset,
        attr(dst), dstOffset, length, ref(wait), indexOf(wait), ref(signal), indexOf(signal));
  }
  /// A receive that waits on `wait` (its destination is free again) and
  /// signals `signal`.
  void recvWaiting(sched::Buffer buffer, mlir::Value offset, mlir::Value length,
                   mlir::Value peer, mlir::Value tag, std::optional<EventRef> wait,
                   std::optional<EventRef> signal) {
    builder.create<sched::RecvOp>(loc, attr(buffer), offset, length, peer, tag, ref(wait),
                                  indexOf(wait), ref(signal), indexOf(signal));
  }
  /// Adds a wait on `event` to `transfer` (a sched.after in its body),
  /// keeping the insertion point.
  void addWait(mlir::Operation *transfer, llvm::StringRef event, mlir::ValueRange index) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    mlir::Region &body = transfer->getRegion(0);
    if (body.empty())
      body.emplaceBlock();
    builder.setInsertionPointToEnd(&body.front());
    after(event, index);
  }
  /// 2^k for 0 <= k < 62, as a sum of k's indicator terms (the plan's
  /// expressions have no shift; a sum keeps the evaluation stack shallow,
  /// where a chain of selects would nest one level per term).
  mlir::Value pow2(mlir::Value k, int64_t terms = 31) {
    mlir::Value v = c(0);
    for (int64_t i = 0; i < terms; ++i)
      v = add(v, mul(eq(k, c(i)), c(int64_t(1) << i)));
    return v;
  }

  /// One more event the enclosing transfer waits on (a join).
  void after(llvm::StringRef event, mlir::ValueRange index) {
    builder.create<sched::AfterOp>(
        loc, mlir::FlatSymbolRefAttr::get(builder.getContext(), event), index);
  }
  /// A COPY gathered on both sides; the insertion point moves into its body
  /// (source segments first, then `dst` ones).
  sched::CopyOp copyGathered() {
    auto op = builder.create<sched::CopyOp>(loc, sched::BufferAttr(), mlir::Value(),
                                            sched::BufferAttr(), mlir::Value(), mlir::Value(),
                                            nullptr, mlir::ValueRange(), nullptr,
                                            mlir::ValueRange());
    builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    return op;
  }

  /// The bind-time exchange: a sched.exchange (insertion point moves into
  /// its body), PUTs inside it, and TABLE reads of what peers put.
  sched::ExchangeOp exchange() {
    auto op = builder.create<sched::ExchangeOp>(loc);
    builder.setInsertionPointToStart(&op.getBody().emplaceBlock());
    return op;
  }
  void put(int64_t table, mlir::Value index, mlir::Value value, mlir::Value peer) {
    builder.create<sched::PutOp>(loc, table, index, value, peer);
  }
  mlir::Value table(int64_t t, mlir::Value from, mlir::Value index) {
    return expr<sched::TableOp>(t, from, index);
  }
  mlir::Value tableSum(int64_t t, mlir::Value lower, mlir::Value upper) {
    return expr<sched::TableSumOp>(t, lower, upper);
  }
  mlir::Value tableAny(int64_t t, mlir::Value index) {
    return expr<sched::TableAnyOp>(t, index);
  }
  /// sum over k in [lo, hi) of term(k), as a sched.sum.
  mlir::Value sum(mlir::Value lo, mlir::Value hi,
                  llvm::function_ref<mlir::Value(mlir::Value)> term) {
    return reduce(lo, hi, term, /*max=*/false);
  }
  /// max over k in [lo, hi) of term(k) (0 if empty), as a sched.sum max.
  mlir::Value maxOf(mlir::Value lo, mlir::Value hi,
                    llvm::function_ref<mlir::Value(mlir::Value)> term) {
    return reduce(lo, hi, term, /*max=*/true);
  }
  mlir::Value reduce(mlir::Value lo, mlir::Value hi,
                     llvm::function_ref<mlir::Value(mlir::Value)> term, bool max) {
    auto op = builder.create<sched::SumOp>(loc, builder.getIndexType(), lo, hi, max);
    mlir::Block &body = op.getBody().emplaceBlock();
    mlir::Value k = body.addArgument(builder.getIndexType(), loc);
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&body);
    builder.create<sched::YieldOp>(loc, term(k));
    return op.getResult();
  }
  /// `value()`'s expression as one plan expression, inlined where it is
  /// used: a sched.sum of a single term. The emitter gives a multi-use value
  /// of a body a plan variable (at most 64 are live), but never one of a
  /// sum's summand, so a large expression built of many shared parts (a
  /// layout of prefix sums) costs one variable at most instead of dozens.
  mlir::Value inlined(llvm::function_ref<mlir::Value()> value) {
    mlir::Value zero = c(0);
    return sum(zero, c(1), [&](mlir::Value) { return value(); });
  }
  /// A send that waits on `wait` and signals `signal`.
  void sendSignalling(sched::Buffer buffer, mlir::Value offset, mlir::Value length,
                      mlir::Value peer, mlir::Value tag, std::optional<EventRef> wait,
                      std::optional<EventRef> signal) {
    builder.create<sched::SendOp>(loc, attr(buffer), offset, length, peer, tag,
                                  ref(wait), indexOf(wait), ref(signal),
                                  indexOf(signal));
  }
  void copy(sched::Buffer src, mlir::Value srcOffset, sched::Buffer dst,
            mlir::Value dstOffset, mlir::Value length) {
    builder.create<sched::CopyOp>(loc, attr(src), srcOffset, attr(dst), dstOffset, length,
                                  nullptr, mlir::ValueRange(), nullptr,
                                  mlir::ValueRange());
  }

private:
  sched::BufferAttr attr(sched::Buffer buffer) {
    return sched::BufferAttr::get(builder.getContext(), buffer);
  }
  mlir::FlatSymbolRefAttr ref(const std::optional<EventRef> &event) {
    return event ? mlir::FlatSymbolRefAttr::get(builder.getContext(),
                                                event->name)
                 : mlir::FlatSymbolRefAttr();
  }
  static mlir::ValueRange indexOf(const std::optional<EventRef> &event) {
    return event ? mlir::ValueRange(event->index) : mlir::ValueRange();
  }

  mlir::OpBuilder &builder;
  mlir::Location loc;
};

/// Whether `collOp` carries the parameters coll-select-algorithm decides
/// for its algorithm (lib/Algorithms/Algorithm.h: fifo_depth always, order
/// for the exchanges, parts for dim-rings, mesh for vmesh); an error naming
/// the first missing one if not. A lowering reads its parameters from the
/// IR and decides none itself.
bool hasDecidedParameters(mlir::Operation *collOp);

/// The default bound on a plan's scratch per rank, for schedules that stage
/// a share of P·m bytes (two-phase's stage slots, dim-rings' waves): 64 KiB
/// blocks on a 40x32x16 torus still fit, in two slots or in waves.
constexpr int64_t kScratchBudgetBytes = 64ll << 20;

/// The FIFO of a pipeline stage whose receiver knows its sender's order:
/// `depth` sends in flight and twice that many windowed receives (a receiver
/// a little ahead of its sender absorbs jitter, while posting every receive
/// at once would make MPI match each arrival against a long queue), which
/// also keeps the engine's per-poll work at O(depth).
sched::FifoAttr pipelineFifo(mlir::MLIRContext *ctx, int64_t depth);

/// B at bind time for a pipeline `depth` hops long (the blocked ring: P;
/// the SMP ring: N + C): max(1024, sqrt(2·α·m / (β·(depth + z − 2)))), m the
/// total bytes and z the number of empty contributions (Träff et al.). 2·α/β
/// is folded into one constant (bytes) so the product cannot overflow for
/// realistic m.
/// `depth` builds the depth where the formula needs it (the blocked ring's
/// tests pin the order of the ops).
mlir::Value pipelineBlockBytes(ScheduleBuilder &b, int64_t alphaPs, int64_t betaPs,
                               llvm::function_ref<mlir::Value()> depth);

/// The peers of step k (1 <= k < P) of a direct exchange: the rank this
/// rank sends to and the one it receives from; every step is a permutation
/// and a receiver computes its sender's step. Orders (kOrders in
/// CollAlgorithms.h): "shift" and "random" (whose loop visits k shuffled)
/// pair r with r ± k mod P and run on any communicator; "dimension"
/// translates the torus of `ndims` dimensions and `ranksPerNode` ranks a
/// node: the node offset is k / ranksPerNode written digit by digit (x
/// fastest), the local offset k mod ranksPerNode, so the plan needs the
/// topology's exact size.
struct StepPeers {
  mlir::Value to, from;
};
/// `r` and `p` are the schedule's rank and size values.
StepPeers directStepPeers(ScheduleBuilder &b, mlir::Value r, mlir::Value p, mlir::Value k,
                          llvm::StringRef order, int64_t ndims, int64_t ranksPerNode);


/// Torus schedules that route between nodes, one rank on each (balanced,
/// two-phase, dim-rings), refuse a topology with more ranks per node, with
/// one message: "the <algorithm> <op> schedules one rank per torus node ...".
mlir::LogicalResult requireOneRankPerNode(mlir::Operation *collOp, llvm::StringRef algorithm);

/// Creates an empty sched.plan for `collectiveOp` (a coll op) in place of it
/// and positions `builder` inside its body.
sched::PlanOp createPlanFor(mlir::OpBuilder &builder, mlir::Operation *collOp,
                            llvm::StringRef collective,
                            llvm::StringRef algorithm,
                            llvm::ArrayRef<sched::FifoAttr> fifos,
                            llvm::ArrayRef<llvm::StringRef> events);

} // namespace collc

#endif // COLLC_PASSES_SCHEDULEBUILDER_H

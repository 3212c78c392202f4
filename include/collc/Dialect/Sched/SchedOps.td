//===- SchedOps.td - sched operations -------------------------*- tablegen -*-===//
//
// Verifier constraints carry the numbers used in SchedOps.cpp and in
// test/Dialect/Sched/invalid.mlir.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_SCHED_OPS_TD
#define COLLC_SCHED_OPS_TD

include "collc/Dialect/Sched/SchedDialect.td"
include "collc/Dialect/Sched/SchedAttrs.td"
include "collc/Dialect/Coll/CollAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

// (P1) 1 <= size(fifos) <= 16; (P2) size(events) <= 16, names unique;
// (P3) the body holds only exchanges, phases, at most one sched.scratch and
// expressions, every exchange before the first phase;
// (P4) the topology has at most 3 dimensions (checked by the attribute);
// (P5) block_bytes is [min, max] with 0 <= min <= max.
// `unverified` marks a plan compiled with --no-verify; the plan file keeps it.
// `block_bytes` records the message sizes the plan was compiled for.
def Sched_PlanOp : Sched_Op<"plan", [Symbol, IsolatedFromAbove, SingleBlock,
                                     NoTerminator]> {
  let summary = "a complete schedule for one collective";
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    StrAttr:$collective,
    StrAttr:$algorithm,
    Coll_TopologyAttr:$topology,
    TypedArrayAttrBase<Sched_FifoAttr, "FIFO declarations">:$fifos,
    DefaultValuedAttr<StrArrayAttr, "{}">:$events,
    UnitAttr:$unverified,
    OptionalAttr<DenseI64ArrayAttr>:$block_bytes
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Index of `event` in the events list, or -1.
    int64_t lookupEvent(llvm::StringRef event);
  }];
}

// (S1) directly inside sched.plan, at most once.
def Sched_ScratchOp : Sched_Op<"scratch"> {
  let summary = "declares the per-rank scratch buffer size in bytes";
  let arguments = (ins Index:$bytes);
  let assemblyFormat = "$bytes attr-dict";
  let hasVerifier = 1;
}

// (N1) directly inside sched.plan, at most once, after every sched.exchange
// and before the first phase.
def Sched_ArenaOp : Sched_Op<"arena"> {
  let summary = "declares the node arena: bytes and counters the ranks of a node share";
  let description = [{
    `sched.arena %bytes counters %n` allocates, once per bind, `%bytes`
    bytes of node shared memory (buffer `arena`) and `%n` counters for the
    ranks r / ranks_per_node of each node; every rank of a node must
    compute the same values. `sched.notify %c` adds one to counter %c;
    `sched.await %c` completes once every notify of %c by the node's ranks
    in this run has happened. Runs never overlap on the arena (plan format
    4, "Node arena").
  }];
  let arguments = (ins Index:$bytes, Index:$counters);
  let assemblyFormat = "$bytes `counters` $counters attr-dict";
  let hasVerifier = 1;
}

// (PH1) directly inside sched.plan, or in a phase loop (sched.for ops
// directly inside sched.plan, nested); (PH2) 0 <= fifo < size(plan.fifos);
// (PH3) an offset only in a phase loop.
def Sched_PhaseOp : Sched_Op<"phase", [SingleBlock, NoTerminator]> {
  let summary = "a part of the schedule bound to one reserved FIFO";
  let description = [{
    Phases are not barriers: every transfer is issued in program order on its
    FIFO's queues, so phases on different FIFOs overlap and pipeline.

    In a phase loop, `fifo(0 + %p)` runs the body on FIFO 0 + %p in each
    iteration: one body serves several FIFOs, and the plan does not grow
    with their number (the expansion checks that the FIFO is declared).
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$fifo, Optional<Index>:$offset);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name `fifo` `(` $fifo (`+` $offset^)? `)` attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

// (L1) seed is given iff order is random; (L2) the body takes one index;
// (L3) `shared` only with random. The induction variable prints as %k.
def Sched_ForOp : Sched_Op<"for", [SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a loop over [lower, upper), ascending or in random order";
  let description = [{
    `sched.for %k = %lo to %hi random(%seed) { ... }` visits the range in a
    permutation seeded by %seed and the rank (BG/L's randomized "AR" order).
    With `shared`, the permutation is seeded by %seed alone: every rank
    visits the range in the same order, so a receiver can reproduce the
    order of its senders and window its receives.
  }];
  let arguments = (ins Index:$lower, Index:$upper, UnitAttr:$random,
                       UnitAttr:$shared, Optional<Index>:$seed);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    mlir::Value getInductionVar() { return getBody().front().getArgument(0); }
  }];
}

// (E1) directly inside sched.plan, before its first phase; (E2) the body
// holds only sched.for, sched.if, sched.put and expressions, and reads no
// sched.table (the tables are what the exchange produces).
def Sched_ExchangeOp : Sched_Op<"exchange", [SingleBlock, NoTerminator]> {
  let summary = "the bind-time exchange: values other ranks need, sent once per bind";
  let description = [{
    Runs once when the plan is bound, before the program is expanded: the
    sched.put ops inside tell peers values only this rank knows (e.g. the
    counts of alltoallv blocks an intermediate will forward); sched.table
    reads them everywhere else in the plan. The MPI runtime delivers them
    with one MPI_Alltoall of record counts and one MPI_Alltoallv of records
    per bind, never per start (seed 004's planned collective).
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

// (T1) inside a sched.exchange; (T2) 0 <= table < 8.
def Sched_PutOp : Sched_Op<"put"> {
  let summary = "tells rank `peer` entry `index` of this rank's table";
  let arguments = (ins I64Attr:$table, Index:$index, Index:$value, Index:$peer);
  let assemblyFormat = "`table` $table `[` $index `]` `=` $value `to` $peer attr-dict";
  let hasVerifier = 1;
}

def Sched_IfOp : Sched_Op<"if", [SingleBlock, NoTerminator]> {
  let summary = "runs its body when the condition is non-zero";
  let arguments = (ins Index:$condition);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$condition attr-dict-with-keyword $body";
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

// (X1) inside a sched.phase; (X2) events are declared by the plan;
// (X3) an event index has 1 or 2 values; (X4) the scratch buffer needs a
// sched.scratch in the plan; (X5) the body holds only sched.for, sched.if,
// sched.segment, sched.after and expressions; (X6) a side without a buffer is
// gathered from the body's segments and has no offset; a contiguous side has
// one; the length is given exactly when no side is gathered; (X7) sched.recv
// and sched.copy write recvbuf, scratch or arena; (X8) the arena buffer needs
// a sched.arena in the plan.
class Sched_TransferOp<string mnemonic, dag extraArgs, string fmt>
    : Sched_Op<mnemonic, [AttrSizedOperandSegments, SingleBlock, NoTerminator]> {
  let arguments = !con(extraArgs, (ins
    OptionalAttr<FlatSymbolRefAttr>:$wait_event,
    Variadic<Index>:$wait_index,
    OptionalAttr<FlatSymbolRefAttr>:$signal_event,
    Variadic<Index>:$signal_index));
  let regions = (region AnyRegion:$body);
  let assemblyFormat = fmt # [{
    (`wait` $wait_event^ `[` $wait_index `]`)?
    (`signal` $signal_event^ `[` $signal_index `]`)? attr-dict-with-keyword
    ($body^)?
  }];
  let hasVerifier = 1;
}

def Sched_SendOp : Sched_TransferOp<"send",
    (ins OptionalAttr<Sched_Buffer>:$buffer, Optional<Index>:$offset,
         Optional<Index>:$length, Index:$peer, Index:$tag),
    "($buffer^ `[` $offset `,` $length `]`)? `to` $peer `tag` $tag"> {
  let summary = "sends a buffer region, or the segments of its body as one "
                "message, to a peer on the phase's FIFO";
}

def Sched_RecvOp : Sched_TransferOp<"recv",
    (ins OptionalAttr<Sched_Buffer>:$buffer, Optional<Index>:$offset,
         Optional<Index>:$length, Index:$peer, Index:$tag),
    "($buffer^ `[` $offset `,` $length `]`)? `from` $peer `tag` $tag"> {
  let summary = "receives into a buffer region, or scattered into the "
                "segments of its body, from a peer on the phase's FIFO";
}

def Sched_CopyOp : Sched_TransferOp<"copy",
    (ins OptionalAttr<Sched_Buffer>:$src_buffer, Optional<Index>:$src_offset,
         OptionalAttr<Sched_Buffer>:$dst_buffer, Optional<Index>:$dst_offset,
         Optional<Index>:$length),
    "($src_buffer^ `[` $src_offset `]`)? `to` ($dst_buffer^ `[` $dst_offset `]`)? (`len` $length^)?"> {
  let summary = "copies bytes between local buffers (packs or unpacks "
                "segments when a side is gathered)";
}

// (R1) the operation and the element type are spelled as in the plan's one
// table (COLLRT_REDUCE_OPS, COLLRT_REDUCE_TYPES in plan_format.h) and the
// operation applies to the type; (R2) both sides are contiguous (the body
// holds no segments); (X1)-(X8) as for sched.copy.
def Sched_ReduceOp : Sched_TransferOp<"reduce",
    (ins StrAttr:$reduce_op, StrAttr:$elem_type, Sched_Buffer:$src_buffer,
         Index:$src_offset, Sched_Buffer:$dst_buffer, Index:$dst_offset,
         Index:$length),
    "$reduce_op $elem_type $src_buffer `[` $src_offset `]` `to` $dst_buffer `[` $dst_offset `]` `len` $length"> {
  let summary = "combines a region into another, element by element, with "
                "an MPI built-in operation";
  let description = [{
    `sched.reduce "sum" "double" scratch[%a] to recvbuf[%b] len %n` sets
    dst[i] = dst[i] + src[i] for the %n / 8 doubles, in ascending order, the
    destination the left operand (plan format 5, REDUCE; the arithmetic is
    the runtime's reduce.c). A reduction reads its source and reads and
    writes its destination: it waits on and signals events like any
    transfer, and the verifier checks that it combines each rank's
    contribution once.
  }];
}

// (X1)-(X3) and (X5) as for transfers, but the body holds no segments;
// (X8) the plan has a sched.arena.
def Sched_NotifyOp : Sched_TransferOp<"notify", (ins Index:$counter), "$counter"> {
  let summary = "adds one to a counter of the node arena once its waits are satisfied";
}

def Sched_AwaitOp : Sched_TransferOp<"await", (ins Index:$counter), "$counter"> {
  let summary = "completes once every notify of the counter by the node's ranks in this run happened";
}

// (G1) inside the body of a transfer that gathers the segment's side (the
// message or copy source; `dst`: a copy's destination); (G2) a segment the
// transfer writes (sched.recv, `dst`) names recvbuf, scratch or arena.
def Sched_SegmentOp : Sched_Op<"segment"> {
  let summary = "one contiguous piece of the enclosing gathered transfer";
  let arguments = (ins UnitAttr:$dst, Sched_Buffer:$buffer, Index:$offset,
                       Index:$length);
  let assemblyFormat = "(`dst` $dst^)? $buffer `[` $offset `,` $length `]` attr-dict";
  let hasVerifier = 1;
}

// (A1) inside the body of a transfer; (A2) the event is declared by the plan
// and indexed by 1 or 2 values.
def Sched_AfterOp : Sched_Op<"after"> {
  let summary = "one more event the enclosing transfer waits on (a join)";
  let description = [{
    A wait is satisfied once every transfer that signals the event has
    completed, wherever it stands in the program (later statements too).
  }];
  let arguments = (ins FlatSymbolRefAttr:$event, Variadic<Index>:$index);
  let assemblyFormat = "$event `[` $index `]` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Expressions (int64 on index values, evaluated per rank at bind time)
//===----------------------------------------------------------------------===//

class Sched_ExprOp<string mnemonic, list<Trait> traits = []>
    : Sched_Op<mnemonic, !listconcat([Pure], traits)> {
  let results = (outs Index:$result);
}

def Sched_ConstOp : Sched_ExprOp<"const", [ConstantLike,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let arguments = (ins I64Attr:$value);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def Sched_RankOp : Sched_ExprOp<"rank", [DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "the calling rank in the bound communicator";
  let assemblyFormat = "attr-dict";
}

def Sched_SizeOp : Sched_ExprOp<"size", [DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "the communicator size P";
  let assemblyFormat = "attr-dict";
}

def Sched_RanksPerNodeOp : Sched_ExprOp<"ranks_per_node"> {
  let assemblyFormat = "attr-dict";
}

// (D1) 0 <= dim < number of topology dimensions.
def Sched_DimOp : Sched_ExprOp<"dim"> {
  let summary = "nodes along one topology dimension";
  let arguments = (ins I64Attr:$dim);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

// (D1) as for sched.dim.
def Sched_CoordOp : Sched_ExprOp<"coord"> {
  let summary = "a node coordinate of a rank";
  let arguments = (ins Index:$rank, I64Attr:$dim);
  let assemblyFormat = "$rank `[` $dim `]` attr-dict";
  let hasVerifier = 1;
}

// (D2) one coordinate per topology dimension.
def Sched_RankAtOp : Sched_ExprOp<"rank_at"> {
  let summary = "the rank of a core (local index) on the node at coordinates";
  let arguments = (ins Variadic<Index>:$coords, Index:$local);
  let assemblyFormat = "`(` $coords `)` `local` $local attr-dict";
  let hasVerifier = 1;
}

def Sched_CountOp : Sched_ExprOp<"count"> {
  let summary = "a run-time count or displacement in bytes, for rank `index`";
  let arguments = (ins Sched_CountArray:$array, Index:$index);
  let assemblyFormat = "$array `[` $index `]` attr-dict";
}

def Sched_CountStatOp : Sched_ExprOp<"count_stat"> {
  let summary = "a reduction over the receive counts";
  let arguments = (ins Sched_CountStat:$stat);
  let assemblyFormat = "$stat attr-dict";
}

// Values are the plan's expression opcodes (collrt_expr_op_t).
class Sched_BinaryOp<string mnemonic, int opcode, string summaryText>
    : Sched_ExprOp<mnemonic> {
  let summary = summaryText;
  let arguments = (ins Index:$lhs, Index:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
  let extraClassDeclaration = "static constexpr unsigned kOpcode = " # opcode # ";";
  // Two constants fold to the value the runtime computes (collrt_expr_fold).
  let hasFolder = 1;
}

def Sched_AddOp : Sched_BinaryOp<"add", 0x20, "lhs + rhs">;
def Sched_SubOp : Sched_BinaryOp<"sub", 0x21, "lhs - rhs">;
def Sched_MulOp : Sched_BinaryOp<"mul", 0x22, "lhs * rhs">;
def Sched_FloorDivOp : Sched_BinaryOp<"floordiv", 0x23, "floor(lhs / rhs)">;
def Sched_ModOp : Sched_BinaryOp<"mod", 0x24, "floor modulo, the sign of rhs">;
def Sched_MinOp : Sched_BinaryOp<"min", 0x25, "the smaller value">;
def Sched_MaxOp : Sched_BinaryOp<"max", 0x26, "the larger value">;
def Sched_CeilDivOp : Sched_BinaryOp<"ceildiv", 0x27, "ceil(lhs / rhs)">;
def Sched_EqOp : Sched_BinaryOp<"eq", 0x30, "1 if lhs == rhs, else 0">;
def Sched_NeOp : Sched_BinaryOp<"ne", 0x31, "1 if lhs != rhs, else 0">;
def Sched_LtOp : Sched_BinaryOp<"lt", 0x32, "1 if lhs < rhs, else 0">;
def Sched_LeOp : Sched_BinaryOp<"le", 0x33, "1 if lhs <= rhs, else 0">;
def Sched_GtOp : Sched_BinaryOp<"gt", 0x34, "1 if lhs > rhs, else 0">;
def Sched_GeOp : Sched_BinaryOp<"ge", 0x35, "1 if lhs >= rhs, else 0">;
def Sched_AndOp : Sched_BinaryOp<"and", 0x36, "1 if both are non-zero">;
def Sched_OrOp : Sched_BinaryOp<"or", 0x37, "1 if either is non-zero">;

// (T2) 0 <= table < 8; (T3) not inside a sched.exchange.
def Sched_TableOp : Sched_ExprOp<"table"> {
  let summary = "the value rank `from` put at `index` of `table` for this rank";
  let arguments = (ins I64Attr:$table, Index:$from, Index:$index);
  let assemblyFormat = "$table `[` $from `,` $index `]` attr-dict";
  let hasVerifier = 1;
}

// (T2), (T3) as for sched.table.
def Sched_TableSumOp : Sched_ExprOp<"table_sum"> {
  let summary = "the sum of what any rank put at indices [lower, upper) of `table` for this rank";
  let description = [{
    A prefix sum over the exchange's result, evaluated once per bind: slots
    laid out in index order begin at `sched.table_sum t [0, index)`.
    Indices nobody put count 0.
  }];
  let arguments = (ins I64Attr:$table, Index:$lower, Index:$upper);
  let assemblyFormat = "$table `[` $lower `,` $upper `)` attr-dict";
  let hasVerifier = 1;
}

// (T2), (T3) as for sched.table.
def Sched_TableAnyOp : Sched_ExprOp<"table_any"> {
  let summary = "the value the one rank that put `index` of `table` for this rank put";
  let description = [{
    For a receiver that knows what it will be told but not by whom: an
    intermediate keys its stage slots by its own flow index, and each
    source puts its flow's length there. Expansion fails if no rank or
    several ranks put that index.
  }];
  let arguments = (ins I64Attr:$table, Index:$index);
  let assemblyFormat = "$table `[` $index `]` attr-dict";
  let hasVerifier = 1;
}

// (U1) the body takes one index and yields one index; (U2) at most 4 nested.
def Sched_SumOp : Sched_Op<"sum", [Pure, SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "the sum (or maximum) of the body's value over %k in [lower, upper)";
  let description = [{
    `%s = sched.sum %k = %lo to %hi { ... sched.yield %v }` is 0 when
    %hi <= %lo. Prefix sums over run-time counts and exchanged tables lay
    out stages of variable size. `sched.sum max %k = ...` is the largest
    value instead (0 when the range is empty): the size of a slot that
    stages of variable size take turns in.
  }];
  let arguments = (ins Index:$lower, Index:$upper, UnitAttr:$max);
  let results = (outs Index:$result);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    mlir::Value getInductionVar() { return getBody().front().getArgument(0); }
    mlir::Value getYielded();
  }];
}

def Sched_YieldOp : Sched_Op<"yield", [Pure, Terminator, HasParent<"SumOp">]> {
  let summary = "the value of one term of a sched.sum";
  let arguments = (ins Index:$value);
  let assemblyFormat = "$value attr-dict";
}

def Sched_NotOp : Sched_ExprOp<"not"> {
  let arguments = (ins Index:$operand);
  let assemblyFormat = "$operand attr-dict";
}

def Sched_IsqrtOp : Sched_ExprOp<"isqrt"> {
  let summary = "floor(sqrt(operand)), operand >= 0";
  let arguments = (ins Index:$operand);
  let assemblyFormat = "$operand attr-dict";
}

def Sched_SelectOp : Sched_ExprOp<"select"> {
  let arguments = (ins Index:$condition, Index:$true_value, Index:$false_value);
  let assemblyFormat = "$condition `,` $true_value `,` $false_value attr-dict";
}

#endif // COLLC_SCHED_OPS_TD

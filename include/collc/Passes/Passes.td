//===- Passes.td - collc passes -------------------------------*- tablegen -*-===//
//
// One job per pass; the lit test of each pass is named after its argument.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PASSES_TD
#define COLLC_PASSES_TD

include "mlir/Pass/PassBase.td"

def CollSelectAlgorithm : Pass<"coll-select-algorithm", "mlir::ModuleOp"> {
  let summary = "choose an algorithm for every collective with the cost model";
  let description = [{
    Replaces algorithm = "auto" with the algorithm the docs/design.md cost model
    predicts fastest for the op's topology and byte range, and records the
    prediction (predicted_us) so a user can see why.
  }];
  let dependentDialects = ["::collc::coll::CollDialect"];
}

def CollLower : Pass<"coll-lower", "mlir::ModuleOp"> {
  let summary = "lower every collective to sched with its algorithm's lowering";
  let description = [{
    Applies every algorithm's lowering pattern (CollLowering.h) with the coll
    dialect illegal: each collective becomes the sched.plan of the algorithm
    and parameters recorded on it, and one left over (an algorithm not
    chosen, parameters not decided, a shape its lowering refuses) fails the
    conversion with the reason. The per-algorithm passes below apply one
    algorithm's pattern and leave the others.
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerDirect : Pass<"coll-lower-direct", "mlir::ModuleOp"> {
  let summary = "lower direct alltoall, alltoallv and allgatherv to sched";
  let description = [{
    Every rank exchanges with every other rank directly, P-1 steps, peer
    (r + k) mod P at step k; with order = "random" the steps run in a seeded
    permutation every rank shares (BG/L's AR strategy); with order =
    "dimension" step k is a translation of the torus by the digits of k (x
    fastest; directStepPeers). Sends and receives are windowed by the FIFO
    depth.
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerBalanced : Pass<"coll-lower-balanced", "mlir::ModuleOp"> {
  let summary = "lower alltoall(v) to the direct exchange balanced for routed tori";
  let description = [{
    For tori that route dimension by dimension with ties at half a ring
    going +: blocks a tie away are split, their second half detoured through
    a chain of intermediates one hop against the tie in each tie dimension,
    so that the + and − links carry equal load and the exchange can reach
    the bisection bound (LowerBalanced.cpp). FIFO 0: the direct exchange;
    FIFO j: leg j of the detours. alltoallv: the intermediates learn the
    halves' lengths from the bind-time exchange.
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerDimRings : Pass<"coll-lower-dim-rings", "mlir::ModuleOp"> {
  let summary = "lower alltoall(v) on a torus to pipelined neighbour rings, one dimension at a time";
  let description = [{
    Every block is cut into parts, at most one per dimension longer than 1
    (the `parts` option selection decided);
    each part crosses the
    torus dimension by dimension, each dimension as a ring of neighbours
    (forward pieces first, so the next hop starts early), the parts in
    orders that keep every dimension's links busy. Only neighbours talk, so
    routing ties do not matter (LowerDimRings.cpp). One FIFO per part.
    alltoallv (LowerDimRingsV.cpp): counts bound at run time, each stage an
    exchange within one ring (one message per ring peer, part of every tie
    group detoured the other way round); the ranks that lay items out learn
    their lengths from the bind-time exchange.
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerTwoPhase : Pass<"coll-lower-two-phase", "mlir::ModuleOp"> {
  let summary = "lower alltoall(v) to seed 000's two-phase torus schedule";
  let description = [{
    Phase 1 along a line (one combined message per intermediate), phase 2
    in the plane (each block forwarded as soon as its line message
    arrived), each phase on its own FIFO, intermediate memory bounded by
    credit-based stage slots (LowerTwoPhase.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerSmpLeader : Pass<"coll-lower-smp-leader", "mlir::ModuleOp"> {
  let summary = "lower alltoall to seed 002's leader-based SMP schedule";
  let description = [{
    Cores gather their send buffers at their node's leader, leaders exchange
    one message per node pair, leaders scatter to their cores
    (LowerSmpLeader.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerVMesh : Pass<"coll-lower-vmesh", "mlir::ModuleOp"> {
  let summary = "lower alltoall(v) to seed 000's 2D virtual-mesh combining "
                "(and seed 002's all-cores SMP alltoall, one row per node)";
  let description = [{
    A Pvx x Pvy mesh of ranks (rows aligned with torus lines or planes):
    one combined message per row peer, then one per column peer forwarding
    the staged blocks as their row messages arrive; alltoallv learns the
    staged sizes from the bind-time exchange (LowerVMesh.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerSmpRing : Pass<"coll-lower-smp-ring", "mlir::ModuleOp"> {
  let summary = "lower allgatherv to seed 001's SMP blocked ring";
  let description = [{
    Cores gather at their node's leader, the leaders run the pipelined
    blocked ring over the nodes, and every block flows down a chain of the
    node's cores as soon as it arrived (LowerSmpRing.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerPlanned : Pass<"coll-lower-planned", "mlir::ModuleOp"> {
  let summary = "lower alltoallv to seed 004's planned SMP schedule";
  let description = [{
    Counts exchanged once at bind; then per start: collect at the agent core
    of each node pair, one message per node pair, distribute; blocks within
    a node go directly (LowerPlanned.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerBlockedRing : Pass<"coll-lower-blocked-ring", "mlir::ModuleOp"> {
  let summary = "lower allgatherv to the pipelined blocked ring (Träff et al.)";
  let description = [{
    Each contribution is cut into ceil(m_i / B) blocks that travel around the
    ring in one linear pipeline: a block is forwarded as soon as it arrived,
    empty contributions send nothing, and no rank receives a block it has.
    B is block_bytes if given, else computed at bind time from the counts:
    B = max(floor, sqrt(2·α·m / (β·(p+z−2)))).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerRecursiveDoubling : Pass<"coll-lower-recursive-doubling", "mlir::ModuleOp"> {
  let summary = "lower allreduce to recursive doubling (MPICH's short allreduce)";
  let description = [{
    log2 P steps of exchange-and-combine with the partner 2^k away, the
    lower rank's partial result always the left operand, so every rank
    holds the same bits; the ranks beyond the largest power of two fold in
    first and receive the result last (LowerRecursiveDoubling.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerBinomial : Pass<"coll-lower-binomial", "mlir::ModuleOp"> {
  let summary = "lower bcast to a binomial tree from rank 0";
  let description = [{
    Rank r receives from r minus its lowest set bit and forwards to
    r + 2^j for each smaller 2^j, the largest subtree first
    (LowerBinomial.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerRing : Pass<"coll-lower-ring", "mlir::ModuleOp"> {
  let summary = "lower allreduce to the ring reduce-scatter + allgather";
  let description = [{
    P blocks of whole elements; P − 1 reduce-scatter steps around the ring
    of ranks, each combining the rank's own contribution into the arriving
    partial, then P − 1 allgather steps (LowerRing.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerSliceRings : Pass<"coll-lower-slice-rings", "mlir::ModuleOp"> {
  let summary = "lower allreduce to seed 003's node-team slice rings";
  let description = [{
    Each core of a node combines one slice of the node's contributions in
    the node arena, allreduces it with the cores of its local index over the
    torus' dimension rings (both directions, rotated dimension orders) or one
    ring of nodes behind a switch, and the slices spread back through the
    arena (LowerSliceRings.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerPipelinedChain : Pass<"coll-lower-pipelined-chain", "mlir::ModuleOp"> {
  let summary = "lower bcast to a pipelined chain of chunks from rank 0";
  let description = [{
    The message in chunks of B bytes (bind time), each forwarded down the
    chain 0 → 1 → ... → P − 1 as soon as it arrived (LowerPipelinedChain.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def CollLowerMultiColour : Pass<"coll-lower-multi-colour", "mlir::ModuleOp"> {
  let summary = "lower bcast to one pipelined spanning tree per torus link direction";
  let description = [{
    The message cut into one piece per colour (a direction of a torus
    dimension); each piece travels in chunks down its colour's rectangle
    tree (a line, then planes, then the rest); each node's handler of the
    colour receives the chunks into the node arena, where the node's other
    ranks copy them out (LowerMultiColour.cpp).
  }];
  let dependentDialects = ["::collc::sched::SchedDialect"];
}

def SchedVerify : Pass<"sched-verify", "mlir::ModuleOp"> {
  let summary = "simulate every plan for all ranks and check its result";
  let description = [{
    Encodes each sched.plan, then for every communicator size up to
    max-ranks and several count distributions expands every rank with the
    runtime's own expander and simulates the FIFOs with rendezvous semantics:
    each receive buffer must end up holding exactly its bytes, sends must
    match receives, nothing may deadlock under the declared depths, and no
    two unordered transfers may race on a buffer. A plan that needs an exact
    communicator size (it uses the topology) is verified on its real shape
    when that fits max-ranks, and always on the family of small shapes of
    the same dimensionality and wrap (every extent in {1, 2, 3}, and 4 where
    the plan's extent is 4 or more) that fit:
    the program is parametric, so the same statements run. A plan for which
    no size fits is an error, never a silent success.
  }];
  let options = [
    Option<"maxRanks", "max-ranks", "int64_t", /*default=*/"16",
           "verify every communicator size from 1 to this">
  ];
}

#endif // COLLC_PASSES_TD

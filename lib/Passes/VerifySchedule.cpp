//===- VerifySchedule.cpp - simulate plans for every rank count -----------===//
//
// The runtime's own expander and FIFO rules (collrt_simulate) run the encoded
// plan for every communicator size up to max-ranks and for count
// distributions that stress the corner cases: empty blocks, a single
// non-empty contributor, irregular sizes, and blocks larger than the ring's
// block size. Any byte in the wrong place, unmatched or mismatched message,
// deadlock under the declared FIFO depths, or race on a buffer fails the
// pass. Plans tied to their topology are also run on a family of smaller
// shapes, so verification never silently skips them.
//
//===----------------------------------------------------------------------===//
#include "collc/Passes/Passes.h"
#include "lib/Plan/PlanEmitter.h"

#include "collc/simulate.h"

#include <numeric>
#include <random>
#include <vector>

namespace collc {
#define GEN_PASS_DEF_SCHEDVERIFY
#include "collc/Passes/Passes.h.inc"
} // namespace collc

using namespace mlir;
using namespace collc;

namespace {

struct Distribution {
  std::string name;
  std::vector<int64_t> counts;
};

/// The element every REDUCE of the plan can split a message into: the
/// least common multiple of their types' sizes (1 if the plan reduces
/// nothing), so that verified message sizes are whole numbers of elements.
int64_t reduceUnit(const collrt_plan_t *plan) {
  const collrt_plan_desc_t *d = collrt_plan_desc(plan);
  int64_t unit = 1;
  for (unsigned i = 0; i < d->nstmts; ++i)
    if (d->stmts[i].kind == COLLRT_STMT_REDUCE)
      unit = std::lcm(unit, int64_t(collrt_reduce_type_size(d->stmts[i].rtype)));
  return unit;
}

/// Count sets for P ranks: a P*P matrix for alltoall(v), P entries for
/// allgatherv, allreduce and bcast (the last two uniform: one message).
std::vector<Distribution> distributionsFor(const collrt_plan_t *plan, int p) {
  uint8_t op = collrt_plan_desc(plan)->op;
  std::vector<Distribution> out;
  std::mt19937_64 rng(12345 + p);
  auto uniform = [&](const std::string &name, int64_t bytes, size_t n) {
    out.push_back({name, std::vector<int64_t>(n, bytes)});
  };
  if (op == COLLRT_OP_ALLREDUCE || op == COLLRT_OP_BCAST) {
    // empty, one element, a few, and more than a pipeline's few blocks
    int64_t unit = reduceUnit(plan);
    for (int64_t elems : {0, 1, 3, 1000})
      uniform(std::to_string(elems * unit) + " B", elems * unit, p);
    return out;
  }
  if (op == COLLRT_OP_ALLTOALL) {
    for (int64_t bytes : {0, 1, 7})
      uniform("uniform " + std::to_string(bytes) + " B", bytes, size_t(p) * p);
    return out;
  }
  if (op == COLLRT_OP_ALLTOALLV) {
    Distribution random{"random with zeros", {}};
    Distribution single{"one sender", std::vector<int64_t>(size_t(p) * p, 0)};
    for (int i = 0; i < p * p; ++i)
      random.counts.push_back(rng() % 3 == 0 ? 0 : int64_t(rng() % 9));
    for (int j = 0; j < p; ++j)
      single.counts[size_t(p - 1) * p + j] = 5;
    out.push_back(random);
    out.push_back(single);
    uniform("uniform 3 B", 3, size_t(p) * p);
    return out;
  }
  Distribution spike{"spike", std::vector<int64_t>(p, 1)};
  spike.counts[p / 2] = 5000; // several run-time blocks
  Distribution lone{"one contributor", std::vector<int64_t>(p, 0)};
  lone.counts[p - 1] = 3000;
  Distribution random{"random with zeros", {}};
  for (int i = 0; i < p; ++i)
    random.counts.push_back(rng() % 3 == 0 ? 0 : int64_t(rng() % 2500));
  out.push_back(spike);
  out.push_back(lone);
  out.push_back(random);
  uniform("all empty", 0, p);
  uniform("uniform 2 B", 2, p);
  return out;
}

/// Simulates `plan` at P = `p` with every distribution; `shapeNote`
/// names the shape when it is not the plan's own.
LogicalResult verifyAt(sched::PlanOp planOp, const collrt_plan_t *plan,
                       int p, const std::string &shapeNote) {
  for (const Distribution &dist :
       distributionsFor(plan, p)) {
    collrt_sim_input_t input{p, dist.counts.data()};
    collrt_sim_result_t result;
    collrt_diag_t diag;
    diag.message[0] = '\0';
    collrt_status_t status = collrt_simulate(plan, &input, &result, &diag);
    if (status != COLLRT_OK)
      return planOp.emitError("schedule fails verification for P = ")
             << p << shapeNote << " with " << dist.name
             << " counts: " << collrt_strerror(status) << ": "
             << diag.message;
  }
  return success();
}

/// The same program on a smaller shape: only the header changes.
FailureOr<PlanPtr> reshaped(const collrt_plan_t *plan,
                            const uint32_t shape[COLLRT_MAX_DIMS]) {
  collrt_plan_desc_t desc = *collrt_plan_desc(plan);
  for (int d = 0; d < COLLRT_MAX_DIMS; ++d)
    desc.shape[d] = shape[d];
  collrt_plan_t *out = nullptr;
  collrt_diag_t diag;
  if (collrt_plan_encode(&desc, &out, &diag) != COLLRT_OK)
    return failure();
  return PlanPtr(out);
}

} // namespace

LogicalResult collc::verifyEncodedPlan(sched::PlanOp planOp, const collrt_plan_t *encoded,
                                        int64_t maxRanks) {
  const collrt_plan_desc_t *desc = collrt_plan_desc(encoded);
  if (!collrt_plan_needs_exact_size(encoded)) {
    for (int p = 1; p <= maxRanks; ++p)
      if (failed(verifyAt(planOp, encoded, p, "")))
        return failure();
    return success();
  }
  int64_t topologyRanks = collrt_plan_topology_ranks(encoded);
  int verified = 0;
  if (topologyRanks <= maxRanks) {
    if (failed(verifyAt(planOp, encoded, topologyRanks, "")))
      return failure();
    ++verified;
  }
  // Every shape with extents in {1, 2, 3} per used dimension, and 4 in a
  // dimension whose extent is 4 or more (unused dimensions stay 1), the
  // plan's ranks per node, that fits max-ranks. An even ring of 4 is the
  // smallest with a tie that is not also a neighbour (offset 2 is neither
  // +1 nor −1), where the tie rules of balanced, two-phase and dim-rings
  // live; extents 1–3 alone never exercise them.
  uint32_t shape[COLLRT_MAX_DIMS];
  int extents[COLLRT_MAX_DIMS];
  int combos = 1;
  for (unsigned d = 0; d < desc->ndims; ++d) {
    extents[d] = desc->shape[d] >= 4 ? 4 : 3;
    combos *= extents[d];
  }
  for (int c = 0; c < combos; ++c) {
    int64_t ranks = desc->ranks_per_node;
    std::string note = " on the shape ";
    for (int d = 0, rest = c; d < COLLRT_MAX_DIMS; ++d) {
      shape[d] = d < desc->ndims ? 1 + rest % extents[d] : 1;
      rest = d < desc->ndims ? rest / extents[d] : rest;
      ranks *= shape[d];
      if (d < desc->ndims)
        note += (d ? "x" : "") + std::to_string(shape[d]);
    }
    bool same = true;
    for (int d = 0; d < COLLRT_MAX_DIMS; ++d)
      same &= shape[d] == desc->shape[d];
    if (ranks > maxRanks || same)
      continue;
    FailureOr<PlanPtr> small = reshaped(encoded, shape);
    if (failed(small))
      return planOp.emitError("cannot re-encode the plan for the shape")
             << note.substr(13);
    if (failed(verifyAt(planOp, small->get(), ranks,
                        note + " (a smaller instance of the same program)")))
      return failure();
    ++verified;
  }
  if (verified == 0)
    return planOp.emitError("schedule cannot be verified: it needs exactly ")
           << topologyRanks << " ranks and even its smallest shape (every "
              "extent 1) needs "
           << desc->ranks_per_node << ", above --verify-ranks = " << int64_t(maxRanks)
           << "; raise --verify-ranks, or pass --no-verify (the plan then "
              "records that it was not verified)";
  return success();
}

namespace {

struct SchedVerifyPass : public collc::impl::SchedVerifyBase<SchedVerifyPass> {
  using collc::impl::SchedVerifyBase<SchedVerifyPass>::SchedVerifyBase;

  void runOnOperation() override {
    getOperation().walk([&](sched::PlanOp planOp) {
      FailureOr<PlanPtr> plan = emitPlan(planOp);
      if (failed(plan) || failed(verifyEncodedPlan(planOp, plan->get(), maxRanks)))
        signalPassFailure();
    });
  }
};

} // namespace

//===- Registry.cpp - the algorithm modules of CollAlgorithms.def ---------===//
#include "lib/Algorithms/Algorithm.h"

#include "dialect/Coll/CollAlgorithms.h"

#include <algorithm>

using namespace collc;

namespace collc {
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, DEPTH)     \
  extern const AlgorithmModule MODULE##Module;
#include "dialect/Coll/CollAlgorithms.def"
} // namespace collc

namespace {
const AlgorithmModule *const kModules[] = {
#define COLL_ALGORITHM(SPELLING, MODULE, ALLTOALL, ALLTOALLV, ALLGATHERV, DEPTH)     \
  &MODULE##Module,
#include "dialect/Coll/CollAlgorithms.def"
};

int columnOf(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::Alltoall:
    return 0;
  case CollectiveKind::Alltoallv:
    return 1;
  default:
    return 2;
  }
}
} // namespace

llvm::ArrayRef<const AlgorithmModule *> collc::algorithmModules() { return kModules; }

const AlgorithmModule *collc::findAlgorithm(llvm::StringRef name) {
  for (const AlgorithmModule *module : kModules)
    if (module->name == name)
      return module;
  return nullptr;
}

bool collc::lowersOp(llvm::StringRef name, CollectiveKind kind) {
  for (const algorithms::AlgorithmRow &row : algorithms::kAlgorithms)
    if (row.name == name)
      return row.lowers[columnOf(kind)];
  return false;
}

int64_t collc::estimateBytes(const Spec &spec) {
  return spec.collective.maxBytes.value_or(kDefaultEstimateBytes);
}

Decision collc::decideParameters(const Spec &spec, llvm::StringRef name) {
  const CollectiveSpec &coll = spec.collective;
  Decision decision;
  decision.algorithm = name.str();
  if (coll.fifoDepth && algorithms::takesOption(name, "fifo_depth"))
    decision.fifoDepth = *coll.fifoDepth;
  else if (coll.throttle.value_or("none") == "bisection" &&
           algorithms::takesOption(name, "throttle"))
    // seed 000's eq. 2 at the smallest block the plan serves: the depth
    // that injects no faster than the bisection drains
    decision.fifoDepth = bisectionThrottleDepth(spec.topology, coll.minBytes.value_or(1));
  else
    decision.fifoDepth = algorithms::defaultFifoDepth(name);
  if (const AlgorithmModule *module = findAlgorithm(name))
    module->decide(spec, decision);
  return decision;
}

void collc::finishAlltoallEstimate(const Spec &spec, AlgorithmEstimate &estimate) {
  estimate.percentOfPeak =
      percentOfPeak(peakAlltoallUs(spec.topology, estimate.bytes), estimate.timeUs);
  if (spec.topology.nic.kind != NicKind::None && !estimate.nicSlowdown)
    estimate.nicSlowdown = nicSlowdown(spec.topology, estimate.algorithm);
}

std::vector<AlgorithmEstimate> collc::estimateAlgorithms(const Spec &spec) {
  AlgorithmEstimate base;
  base.ranks = spec.topology.numRanks();
  base.bytes = estimateBytes(spec);
  base.contention = contention(spec.topology);
  std::vector<AlgorithmEstimate> estimates;
  for (const AlgorithmModule *module : kModules) {
    if (!lowersOp(module->name, spec.collective.kind) || module->whyNotWeighed(spec))
      continue;
    AlgorithmEstimate &estimate = estimates.emplace_back(base);
    estimate.algorithm = module->name.str();
    module->estimate(spec, decideParameters(spec, module->name), estimate);
  }
  std::stable_sort(estimates.begin(), estimates.end(),
                   [](const AlgorithmEstimate &a, const AlgorithmEstimate &b) {
                     return a.timeUs < b.timeUs;
                   });
  return estimates;
}

std::vector<std::pair<std::string, std::string>> collc::algorithmsNotWeighed(const Spec &spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const AlgorithmModule *module : kModules)
    if (lowersOp(module->name, spec.collective.kind))
      if (std::optional<std::string> why = module->whyNotWeighed(spec))
        out.emplace_back(module->name.str(), *why);
  return out;
}

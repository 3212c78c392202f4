//===- SmpAllCores.cpp - seed 002's all-cores SMP alltoall ----------------===//
//
// An exchange within each node, then every core sends one message of its
// node's C blocks to each other node: a virtual mesh whose rows are nodes.
// Lowering: lib/Passes/LowerVMesh.cpp (the per-node mesh).
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

using namespace collc;

namespace {

void estimate(const Spec &spec, const Decision &, AlgorithmEstimate &e) {
  e.timeUs = smpAllCoresAlltoallUs(spec.topology, e.bytes);
  finishAlltoallEstimate(spec, e);
}

} // namespace

namespace collc {
extern const AlgorithmModule SmpAllCoresModule{whyNotSmpCluster, nullptr, estimate};
} // namespace collc

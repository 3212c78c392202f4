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

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  double c = static_cast<double>(topo.ranksPerNode), n = static_cast<double>(topo.numNodes());
  // every core sends N − 1 messages of C blocks
  NicLoad nic{c, n - 1, c, static_cast<double>(decision.fifoDepth)};
  e.timeUs = smpAllCoresAlltoallUs(topo, e.bytes, nic);
  finishAlltoallEstimate(spec, e, &nic);
}

} // namespace

namespace collc {
extern const AlgorithmModule SmpAllCoresModule{whyNotSmpCluster, nullptr, estimate};
} // namespace collc

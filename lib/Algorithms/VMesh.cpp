//===- VMesh.cpp - seed 000's two-dimensional virtual mesh ----------------===//
//
// The ranks as a Pvx × Pvy mesh: an alltoall within each row, whose
// messages combine a column's blocks, then one within each column. The mesh
// (MeshRows: parts per torus dimension) is the spec's or the one the model
// prices fastest. Lowering: lib/Passes/LowerVMesh.cpp.
//
//===----------------------------------------------------------------------===//
#include "lib/Algorithms/Algorithm.h"

#include <algorithm>

using namespace collc;

namespace {

bool evenBlocks(const Spec &spec) {
  return spec.collective.kind == CollectiveKind::Alltoall || spec.collective.evenCounts;
}

std::optional<std::string> whyNotWeighed(const Spec &spec) {
  const TopologySpec &topo = spec.topology;
  if (topo.numRanks() < 4)
    return std::string("fewer than 4 ranks: a mesh needs two rows and two columns");
  // A row holds a node's cores and whole torus segments, so one node (or a
  // torus whose extents cannot be cut) allows only one row: that "mesh" is
  // the direct exchange with an extra copy of every block.
  MeshRows rows = vmeshRows(topo, /*bytes=*/0, /*evenCounts=*/true);
  if (rows.width < 2 || rows.height < 2)
    return "no mesh of two rows and two columns fits " + std::to_string(topo.numRanks()) +
           " ranks here (a row is whole nodes: " + rows.describe() + ")";
  return std::nullopt;
}

void decide(const Spec &spec, Decision &decision) {
  const CollectiveSpec &coll = spec.collective;
  // the spec's mesh (its parser and the op's verifier, C3, check that it
  // fits), or the fastest
  if (!coll.meshParts.empty()) {
    decision.mesh.assign(coll.meshParts.begin(), coll.meshParts.end());
    return;
  }
  MeshRows rows = vmeshRows(spec.topology, estimateBytes(spec), evenBlocks(spec));
  decision.mesh.assign(rows.parts.begin(), rows.parts.end());
}

void estimate(const Spec &spec, const Decision &decision, AlgorithmEstimate &e) {
  const TopologySpec &topo = spec.topology;
  MeshRows rows = *meshOfParts(topo.shape, topo.ranksPerNode, decision.mesh);
  // each core sends to its row peers, then its column peers, each message
  // combining the blocks of the other side: the wider side's count
  double widest = static_cast<double>(std::max(rows.width, rows.height));
  NicLoad nic{static_cast<double>(topo.ranksPerNode), widest - 1, widest,
              static_cast<double>(decision.fifoDepth)};
  e.timeUs = vmeshAlltoallUs(topo, e.bytes, evenBlocks(spec), rows, nic);
  e.shape = rows.describe();
  finishAlltoallEstimate(spec, e, &nic);
}

} // namespace

namespace collc {
extern const AlgorithmModule VMeshModule{whyNotWeighed, decide, estimate};
} // namespace collc

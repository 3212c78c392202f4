//===- Platform.h - SimGrid platforms from a spec's topology ----*- C++ -*-===//
//
// The machine a spec describes, as a SimGrid platform (XML, DTD 4.1) and an
// SMPI hostfile, so that plans run under smpirun on the machine they were
// compiled for (docs/smpi.md documents the model):
//
//  - torus, every dimension wrapped: one TORUS cluster, topo_parameters =
//    shape (x fastest, like collc's node coordinates), SPLITDUPLEX links of
//    link_mb_per_s and hop_latency_us; SimGrid routes dimension by dimension.
//  - torus with a mesh dimension (wrap: false): SimGrid's torus always wraps,
//    so a Full zone with one link per direction between neighbours and an
//    explicit dimension-ordered route (x, then y, then z; shortest way round
//    in wrapped dimensions, ties as SimGrid breaks them: wrappedStep) for
//    every ordered pair of nodes. P² routes: limited to
//    kMaxExplicitRouteNodes nodes.
//  - switch: a cluster without backbone (a non-blocking crossbar), each node
//    one SPLITDUPLEX link of link_mb_per_s and hop_latency_us.
//
// With a NIC (fabric: switch; NicParams in Spec.h): onload, each core injects
// at most core_mb_per_s (smpi/os and smpi/ois charge the sender per byte);
// offload, the node's link loses throughput beyond `contexts` transfers in
// flight, which only a C++ platform can say (writeSimGridPlatformSource).
//
// A node is one host with ranks_per_node cores; messages between ranks of a
// node take its loopback link (shm_mb_per_s, shm_latency_us; FATPIPE: every
// transfer gets the full shared-memory bandwidth). The platform's <config>
// makes the network plain α–β: SMPI's bandwidth and latency correction
// factors are 1 and α is charged as send and receive overhead.
//
//===----------------------------------------------------------------------===//
#ifndef COLLC_PLATFORM_PLATFORM_H
#define COLLC_PLATFORM_PLATFORM_H

#include "lib/Spec/Spec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace collc {

/// Most nodes a platform with explicit routes (a mesh dimension) may have:
/// its file holds P² routes.
constexpr int64_t kMaxExplicitRouteNodes = 256;

/// Host name of node `node` in every generated platform and hostfile.
std::string platformHostName(int64_t node);

/// Writes the SimGrid platform of `topo`; fails (writing nothing) when the
/// topology cannot be modelled.
llvm::Error writeSimGridPlatform(const TopologySpec &topo,
                                 llvm::raw_ostream &os);

/// Writes the SimGrid platform of a switch (fabric: switch) as C++ source
/// defining load_platform(), for smpirun -platform once built into a shared
/// library: the machine of writeSimGridPlatform, plus an offload NIC's
/// congestion (NONLINEAR link sharing), which XML cannot declare.
llvm::Error writeSimGridPlatformSource(const TopologySpec &topo,
                                       llvm::raw_ostream &os);

/// Writes an SMPI hostfile: line r names the host of rank r, node
/// r / ranks_per_node.
void writeSimGridHostfile(const TopologySpec &topo, llvm::raw_ostream &os);

} // namespace collc

#endif // COLLC_PLATFORM_PLATFORM_H

#!/usr/bin/env bash
# Single copy vs MPI's alltoall on one node, 2 ranks (bench/shm/single-copy.c),
# with MPICH's default UCX transports (CMA rendezvous: one copy) and with
# UCX_TLS=self,sysv,posix (shared-memory bounce buffers: two copies).
#   bench/shm/run.sh [build dir] [extra single-copy args]
set -euo pipefail
build=${1:-build}; shift || true
bin=$build/bin/single-copy
echo "== MPICH defaults (UCX picks its transports)"
mpiexec -n 2 "$bin" "$@"
echo "== UCX_TLS=self,sysv,posix (no CMA in MPI)"
UCX_TLS=self,sysv,posix mpiexec -n 2 "$bin" "$@"

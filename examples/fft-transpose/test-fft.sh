#!/bin/sh
# example.fft-transpose: installs the build into a temporary prefix, builds
# examples/fft-transpose against it as a user would (find_package(collc),
# collc_add_plan, FFTW through pkg-config) and runs it at 2 and 4 ranks with
# the embedded plan and with --native; each run checks its result against a
# serial FFT and fails above the tolerance. Exit 77 (skip) without FFTW.
#   test-fft.sh BUILD_DIR FFT_SOURCE_DIR MPIEXEC
set -eu
build=$1 src=$2 mpiexec=$3
if ! pkg-config --exists fftw3; then
  echo "test-fft: FFTW 3 not found by pkg-config (Debian: apt-get install libfftw3-dev); skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
generator=
command -v ninja >/dev/null && generator="-G Ninja"
cmake -S "$src" -B "$tmp/build" $generator -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log"
cmake --build "$tmp/build"
for np in 2 4; do
  for mode in "" --native; do
    "$mpiexec" -n $np "$tmp/build/fft-transpose" --n 128 --iters 3 $mode | tee "$tmp/out"
    grep -q "max_rel_error=.* ok$" "$tmp/out"
  done
done
# Unmodified: the --native build's MPI_Alltoall served through the installed
# PMPI library with a plan directory (not under sanitizers: their runtime
# must be the first library loaded).
if ! grep -q "^COLLC_SANITIZE:STRING=..*" "$build/CMakeCache.txt" 2>/dev/null; then
  mkdir "$tmp/plans"
  "$tmp/prefix/bin/collc" "$src/transpose.yaml" -o "$tmp/plans/transpose.plan"
  pmpi=$(find "$tmp/prefix" -name libcollc_pmpi.so | head -n 1)
  COLLC_PLANS="$tmp/plans" COLLC_VERBOSE=1 LD_PRELOAD="$pmpi" \
    "$mpiexec" -n 2 "$tmp/build/fft-transpose" --n 128 --iters 3 --native >"$tmp/out" 2>&1
  cat "$tmp/out"
  grep -q "max_rel_error=.* ok$" "$tmp/out"
  grep -q "MPI_Alltoall on comm of 2 ranks: served by plan .*/transpose.plan" "$tmp/out"
  grep -q "rank 0: [1-9][0-9]* calls served" "$tmp/out"
fi
echo "test-fft: ok"

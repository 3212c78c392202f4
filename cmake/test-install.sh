#!/bin/sh
# package.install: installs the build into a temporary prefix and builds
# examples/embed against it twice, as a user would: with CMake
# (find_package(collc) + collc_add_plan) and with pkg-config (collrt.pc and
# collc --emit=c); runs both and the installed collc-run and
# libcollc_pmpi.so.
#   test-install.sh BUILD_DIR EMBED_SOURCE_DIR MPIEXEC
set -eu
build=$1 src=$2 mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/collc bin/collc-run lib/libcollrt.a lib/libcollrt_core.a lib/libcollc_pmpi.so \
         include/collc/collrt.h lib/cmake/collc/collcConfig.cmake lib/pkgconfig/collrt.pc; do
  [ -e "$prefix/$f" ] || { echo "test-install: $f was not installed"; exit 1; }
done

generator=
command -v ninja >/dev/null && generator="-G Ninja"
cmake -S "$src" -B "$tmp/cmake-build" $generator -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log"
cmake --build "$tmp/cmake-build"
"$mpiexec" -n 3 "$tmp/cmake-build/embed"

PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
"$prefix/bin/collc" "$src/alltoall.yaml" --emit=c --symbol alltoall_plan -o "$tmp/plan.c"
# shellcheck disable=SC2046
mpicc -o "$tmp/embed-pc" "$src/embed.c" "$tmp/plan.c" $(pkg-config --cflags --libs collrt)
"$mpiexec" -n 2 "$tmp/embed-pc"
# the same against the shared runtime (collrt-shared.pc: libcollrt.so, rpath)
# shellcheck disable=SC2046
mpicc -o "$tmp/embed-so" "$src/embed.c" "$tmp/plan.c" $(pkg-config --cflags --libs collrt-shared)
ldd "$tmp/embed-so" | grep -q "libcollrt.so"
"$mpiexec" -n 2 "$tmp/embed-so"

mkdir "$tmp/plans"
"$prefix/bin/collc" "$src/alltoall.yaml" -o "$tmp/plans/alltoall.plan"
"$mpiexec" -n 2 "$prefix/bin/collc-run" "$tmp/plans/alltoall.plan" --bytes 100 --iters 2 --check
# the reference MPI_Alltoall of embed, served by the installed PMPI library
COLLC_PLANS=$tmp/plans COLLC_VERBOSE=1 LD_PRELOAD=$prefix/lib/libcollc_pmpi.so \
  "$mpiexec" -n 2 "$tmp/cmake-build/embed" >"$tmp/pmpi.log" 2>&1
cat "$tmp/pmpi.log"
# embed's MPI_Allreduce, and those of the runtime linked into it (its
# bind's agreements), go to MPI: the plan set has no allreduce plan
grep -Eq "rank 0: 1 calls served \(0 cache hits, 1 binds\), [0-9]+ fell back to MPI \(no matching plan: [0-9]+\)$" "$tmp/pmpi.log"
if grep -q "MPI_Alltoall on comm of 2 ranks: no plan" "$tmp/pmpi.log"; then
  echo "test-install: MPI_Alltoall fell back"; exit 1
fi
echo "test-install: ok"

#!/bin/sh
# ctest bench.twin: collc-twin at 2 ranks verifies each plan (runtime, twin
# and MPI's collective agree byte for byte), and fails when either the
# runtime's or the twin's result is corrupted, so the check has teeth.
#   test-twin.sh MPIEXEC [LAUNCHER_FLAG...] -- COLLC_TWIN PLAN...
# (launcher flags: MPIEXEC_PREFLAGS, e.g. Open MPI's --allow-run-as-root
# --oversubscribe; docs/open-mpi.md)
set -u
mpiexec=$1
shift
flags=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  flags="$flags $1"
  shift
done
[ $# -gt 0 ] && shift
twin=$1
shift
fail() { echo "test-twin: FAIL: $*" >&2; exit 1; }
for plan in "$@"; do
  out=$("$mpiexec" -n 2 $flags "$twin" "$plan" --bytes 1000 --counts spike --iters 3 --warmup 1 2>&1) ||
    fail "collc-twin exited $? on $plan: $out"
  echo "$out"
  echo "$out" | grep -q '^verified: .* runtime == twin == mpi$' || fail "no verified line for $plan"
  echo "$out" | grep -q ' rt_twin=[0-9.]* overhead_us_per_step=' || fail "no timing line for $plan"
  for impl in runtime twin; do
    out=$("$mpiexec" -n 2 $flags "$twin" "$plan" --bytes 1000 --counts spike --iters 2 --warmup 0 \
          --corrupt $impl 2>&1) && fail "a corrupted $impl result passed on $plan: $out"
    echo "$out" | grep -q 'MISMATCH (verification run 1)' ||
      fail "a corrupted $impl result was not reported as MISMATCH on $plan: $out"
  done
  echo "corrupted runtime and twin results are caught on $plan"
done

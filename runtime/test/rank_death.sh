#!/bin/sh
# A rank dies mid-collective (rank_death.c): the job must end, never hang
# and never report success (docs/runtime-faults.md).
#   rank_death.sh cleanup|no-cleanup|no-cleanup-mpi MPIEXEC [LAUNCHER_FLAG...] -- PROGRAM PLAN
# (launcher flags: MPIEXEC_PREFLAGS, e.g. Open MPI's --allow-run-as-root
# --oversubscribe; docs/open-mpi.md)
# cleanup: the launcher as configured by default: it tears the job down
#   when rank 1 exits; the job's exit status must be non-zero.
# no-cleanup: the launcher lets rank 0 live on (MPICH's Hydra:
#   -disable-auto-cleanup; Open MPI: --enable-recovery); neither MPI reports
#   anything about the dead peer (even MPI_Recv from it waits forever), so
#   COLLRT_TIMEOUT=10 must make collrt_wait fail on rank 0 with a collrt
#   status. no-cleanup-mpi: the same over MPI point-to-point (COLLRT_SHM=0),
#   where the error must also name the peer, rank 1.
# `timeout 60`: a hang fails the test.
mode=$1 mpiexec=$2
shift 2
flags=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  flags="$flags $1"
  shift
done
[ $# -gt 0 ] && shift
prog=$1 plan=$2
# the launcher's flag that keeps the other ranks alive; unknown: skip (77)
case "$("$mpiexec" --version 2>&1)" in
  *HYDRA*) keep=-disable-auto-cleanup ;;
  *OpenRTE*) keep=--enable-recovery ;;
  *) keep="" ;;
esac
if [ "$mode" != cleanup ] && [ -z "$keep" ]; then
  echo "rank_death.sh ($mode): skipped: $mpiexec is neither MPICH's Hydra nor Open MPI's"; exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
case "$mode" in
  cleanup) timeout 60 "$mpiexec" -n 2 $flags "$prog" "$plan" 4096 >"$out" 2>&1 ;;
  no-cleanup) timeout 60 env COLLRT_TIMEOUT=10 "$mpiexec" $keep -n 2 $flags \
                "$prog" "$plan" 4096 >"$out" 2>&1 ;;
  no-cleanup-mpi) timeout 60 env COLLRT_TIMEOUT=10 COLLRT_SHM=0 "$mpiexec" $keep \
                    -n 2 $flags "$prog" "$plan" 4096 >"$out" 2>&1 ;;
  *) echo "rank_death.sh: unknown mode $mode" >&2; exit 2 ;;
esac
rc=$?
cat "$out"
fail() { echo "rank_death.sh ($mode): $*"; exit 1; }
[ $rc -eq 124 ] && fail "the job hung (killed after 60 s)"
grep -q "collrt_wait succeeded" "$out" && fail "rank 0 reported success, but rank 1 died before sending"
grep -q "rank_death: rank 1 dies" "$out" || fail "rank 1 did not get to die (setup failed?)"
case "$mode" in
  cleanup) [ $rc -ne 0 ] || fail "the job exited 0" ;;
  no-cleanup) grep -q "rank_death: rank 0: collrt_wait: COLLRT_ERR_" "$out" ||
                fail "rank 0 reported no error from collrt_wait" ;;
  no-cleanup-mpi) grep -Eq "rank_death: rank 0: collrt_wait: COLLRT_ERR_.*(peer|rank) 1\b" "$out" ||
                    fail "rank 0's error does not name the dead peer, rank 1" ;;
esac
echo "rank_death.sh ($mode): ok (exit $rc)"

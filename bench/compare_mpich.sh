#!/usr/bin/env bash
# collc plans beside MPICH's own collectives, 2 ranks, same run, medians.
#
#   bench/compare_mpich.sh [ALLTOALL_PLAN [ALLGATHERV_PLAN]]
#
# Without arguments the plans are compiled with build/bin/collc from
# examples/bgl-8x8x8.yaml (direct alltoall) and examples/allgatherv-ring.yaml
# (blocked-ring allgatherv). Environment: BUILD (default build, the directory
# holding bin/collc-run; falls back to build-rt), NP (2), ITERS (50),
# WARMUP (5), MPIEXEC (mpiexec), MODE (interleaved), ROUNDS (5).
#
# MODE=interleaved: one run per row, collc and MPICH alternated iteration
# by iteration (collc-run --native). MODE=alone: each in its own run
# (collc-run, and collc-run --native-only for MPICH), the two alternated
# ROUNDS times, medians of the runs' medians. The two differ: run beside
# MPICH's collective, collc's on-node senders rarely get to help their
# receivers (runtime/src/shm.c, "both ends copy"; bench/README.md).
#
# alltoall: --bytes is the per-pair block, 8 B .. 512 KiB in powers of 4 and 1 MiB,
# against MPICH's default algorithm selection. allgatherv: --counts spike
# (rank P/2 contributes N bytes, the others 1), against MPICH forced to its
# ring algorithm (MPIR_CVAR_ALLGATHERV_INTRA_ALGORITHM=ring, no fallback).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
run=$build/bin/collc-run
[ -x "$run" ] || run=$root/build-rt/bin/collc-run
[ -x "$run" ] || { echo "compare_mpich: no collc-run in $build/bin or build-rt/bin" >&2; exit 1; }
np=${NP:-2}
iters=${ITERS:-50}
warmup=${WARMUP:-5}
mpiexec=${MPIEXEC:-mpiexec}
mode=${MODE:-interleaved}
rounds=${ROUNDS:-5}
case $mode in interleaved|alone) ;; *) echo "compare_mpich: MODE is interleaved or alone, not '$mode'" >&2; exit 1;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

compile() { # spec -> plan path
  local collc=$build/bin/collc
  [ -x "$collc" ] || collc=$root/build/bin/collc
  [ -x "$collc" ] || { echo "compare_mpich: no plan given and no build/bin/collc" >&2; exit 1; }
  "$collc" "$root/examples/$1" -o "$tmp/${1%.yaml}.collplan"
  echo "$tmp/${1%.yaml}.collplan"
}
a2a_plan=${1:-$(compile bgl-8x8x8.yaml)}
agv_plan=${2:-$(compile allgatherv-ring.yaml)}

field() { # key line -> value
  sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"
}

median() { # numbers... -> their median
  printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

measure_alone() { # as measure, each side in its own runs
  local plan=$1 bytes=$2 counts=$3
  shift 3
  local cs=() ms=() check=--check out
  for ((k = 0; k < rounds; ++k)); do
    out=$("$mpiexec" -n "$np" "$@" "$run" "$plan" --bytes "$bytes" --counts "$counts" \
          --iters "$iters" --warmup "$warmup" $check)
    cs+=("$(field median_us "$(grep 'impl=collc' <<<"$out")")")
    out=$("$mpiexec" -n "$np" "$@" "$run" "$plan" --bytes "$bytes" --counts "$counts" \
          --iters "$iters" --warmup "$warmup" --native-only)
    ms+=("$(field median_us "$(grep 'impl=mpi' <<<"$out")")")
    check=
  done
  local c m
  c=$(median "${cs[@]}")
  m=$(median "${ms[@]}")
  echo "$c $m $(awk -v c="$c" -v m="$m" 'BEGIN {printf "%.3f", (m > 0 ? c / m : 0)}')"
}

measure() { # plan bytes counts mpiexec-args... -> "collc_us mpi_us ratio"
  local plan=$1 bytes=$2 counts=$3
  if [[ $mode == alone ]]; then
    measure_alone "$@"
    return
  fi
  shift 3
  local out
  out=$("$mpiexec" -n "$np" "$@" "$run" "$plan" --bytes "$bytes" --counts "$counts" \
        --iters "$iters" --warmup "$warmup" --native --check)
  local c m
  c=$(grep 'impl=collc' <<<"$out")
  m=$(grep 'impl=mpi' <<<"$out")
  echo "$(field median_us "$c") $(field median_us "$m") $(field ratio "$m")"
}

sizes="8 32 128 512 2048 8192 32768 131072 524288 1048576"
printf '%-10s %-11s %10s %12s %12s %8s\n' op mpich bytes collc_us mpich_us ratio
for b in $sizes; do
  read -r c m r < <(measure "$a2a_plan" "$b" regular)
  printf '%-10s %-11s %10d %12s %12s %8s\n' alltoall auto "$b" "$c" "$m" "$r"
done
for b in $sizes; do
  read -r c m r < <(measure "$agv_plan" "$b" spike \
    -genv MPIR_CVAR_ALLGATHERV_INTRA_ALGORITHM ring -genv MPIR_CVAR_COLLECTIVE_FALLBACK error)
  printf '%-10s %-11s %10d %12s %12s %8s\n' allgatherv ring "$b" "$c" "$m" "$r"
done

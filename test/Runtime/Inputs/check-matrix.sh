#!/usr/bin/env bash
# Runs `collc-run PLAN --check` for every combination of rank count, size and
# count distribution; each run compares every received byte with MPI's own
# collective. Prints one "check ok" line per passing run; stops at the first
# failure with its command line.
#   check-matrix.sh MPIEXEC COLLC_RUN PLAN "P..." "BYTES..." "COUNTS..." [EXTRA ARGS]
set -u
mpiexec=$1 run=$2 plan=$3 ranks=$4 sizes=$5 counts=$6
shift 6
for p in $ranks; do
  for bytes in $sizes; do
    for dist in $counts; do
      cmd=("$mpiexec" -n "$p" "$run" "$plan" --check --iters 2 --warmup 0
           --bytes "$bytes" --counts "$dist" "$@")
      if ! out=$("${cmd[@]}" 2>&1); then
        echo "FAILED: ${cmd[*]}"
        echo "$out"
        exit 1
      fi
      grep "^check ok" <<<"$out"
    done
  done
done

#!/bin/sh
# The plan set of the allreduce and bcast tests, until collc's --plan-set
# writes allreduce and bcast plans: the hand-written linear allreduce
# (plans/allreduce-linear.mlir) for sum on int, max on int and sum on
# double (the last for messages of at most 8 KiB, so that a longer one
# falls back), the linear bcast, and the direct alltoall test plan for the
# nonblocking mix; beside the set (OUT_DIR-staged-bcast.plan,
# OUT_DIR-arena-bcast.plan, not in it), the bcast whose root stages other
# bytes in its receive buffer and the linear bcast with a node arena.
#   make_reduce_plans.sh COLLC WRITE_TEST_PLAN SOURCE_DIR OUT_DIR
set -e
collc=$1 write=$2 src=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan() { # OPERATION ELEMENT [ATTRIBUTES]
  sed -e "s/OPERATION/$1/" -e "s/ELEMENT/$2/" -e "s/attributes {/attributes {$3/" \
    "$src/plans/allreduce-linear.mlir" > "$tmp/$1.$2.mlir"
  "$collc" "$tmp/$1.$2.mlir" -o "$out/allreduce.$1.$2.plan"
}
plan sum int
plan max int
plan sum double "block_bytes = array<i64: 0, 8192>, "
"$collc" "$src/plans/bcast-linear.mlir" -o "$out/bcast.linear.plan"
"$write" direct-alltoall "$out/alltoall.direct.plan"
"$collc" "$src/plans/bcast-staged-root.mlir" -o "$out-staged-bcast.plan"
"$collc" "$src/plans/bcast-arena.mlir" -o "$out-arena-bcast.plan"

#!/bin/sh
# ctest bench.smpi.seed000: seed 000's Table 3 and Figures 6-7 from the
# recorded results. The table's linear dimension comes from collc's
# two-phase lowering (the seed's rule: the dimension of asymmetry, so 8x4x4
# takes x, 4x8x4 y and 4x4x8 z), and both figures are drawn. Exit 77
# (skipped) without matplotlib.
#   test-seed000.sh SEED000 COLLC WORKDIR
set -u
seed000=$1 collc=$2 dir=$3 name=test-seed000
. "$(dirname "$0")/test-lib.sh"
need_matplotlib
fresh_dir "$dir"
"$seed000" --collc "$collc" -o "$dir/out" >"$dir/stdout" || fail "seed000 exited $?"
for want in '| 8x4x4 | 128 | x | ' '| 4x8x4 | 128 | y | ' '| 4x4x8 | 128 | z | '; do
  grep -qF "$want" "$dir/out/table3.md" || fail "table3.md lacks '$want'"
done
for f in figure6.png figure6.svg figure7.png figure7.svg; do
  [ -s "$dir/out/$f" ] || fail "$f was not written"
done
grep -q 'figure6.png: torus:8x8x8, [2-9] lines' "$dir/stdout" || fail "figure 6 has fewer than 2 lines"
echo "test-seed000: ok"

#!/bin/sh
# ctest bench.smpi.seed003: seed 003's two figures (bcast and allreduce
# time against message size on the BG/P-like machine) and their table, from
# the recorded results. A bcast line per size the results hold, collc's
# fastest beside SimGrid's fastest with their ratio, and both figures drawn.
# Exit 77 (skipped) without matplotlib.
#   test-seed003.sh SEED003 COLLC WORKDIR
set -u
seed003=$1 collc=$2 dir=$3 name=test-seed003
. "$(dirname "$0")/test-lib.sh"
need_matplotlib
fresh_dir "$dir"
"$seed003" --collc "$collc" -o "$dir/out" >"$dir/stdout" || fail "seed003 exited $?"
grep -Eq '^\| bcast \| 1048576 \| [0-9.]+ \([0-9.]+%\) [a-z-]+ \| [0-9.]+ [a-zA-Z_0-9]+ \| [0-9.]+ \|$' \
  "$dir/out/table.md" || fail "table.md has no 1 MiB bcast row with both sides and a ratio"
for f in bcast.png bcast.svg allreduce.png allreduce.svg; do
  [ -s "$dir/out/$f" ] || fail "$f was not written"
done
grep -q 'bcast.png: torus:4x4x4:rpn=4, [2-9] lines' "$dir/stdout" || fail "the bcast figure has fewer than 2 lines"
echo "test-seed003: ok"

#!/bin/sh
# ctest bench.pmpi.render-docs: the tables of docs/applications.md are what
# bench/pmpi/results/*.jsonl give, and the check can fail: a copy with one
# cell altered is reported, naming the table, and rendering restores it.
#   test-render-docs.sh RENDER_DOCS ROOT WORKDIR
set -u
render=$1 root=$2 dir=$3 name=test-pmpi-render-docs
. "$(dirname "$0")/../smpi/test-lib.sh"
rm -rf "$dir" && mkdir -p "$dir/docs" "$dir/bench/pmpi" || fail "cannot create $dir"

"$render" --check --root "$root" >"$dir/check.out" 2>&1 ||
  fail "the committed tables differ from the results (run bench/pmpi/render-docs):
$(cat "$dir/check.out")"

cp -R "$root/bench/pmpi/results" "$dir/bench/pmpi/" || fail "cannot copy the results"
page=docs/applications.md
# the ratio (last cell) of the comm-family table's first row, with a 9 added
awk 'index($0, "<!-- generated: bench/pmpi/render-docs comm-family") == 1 { inside = 1 }
     inside && !done && /^\| `/ { sub(/ \|$/, "9 |"); done = 1 }
     { print }' "$root/$page" >"$dir/$page" || fail "cannot alter $page"
cmp -s "$root/$page" "$dir/$page" && fail "no table row to alter in $page"

expect_stale_then_restored "$render" "$root" "$dir" "$page" comm-family
echo "$name: ok"

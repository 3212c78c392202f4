#!/bin/sh
# ctest bench.smpi.render-docs: the measured tables committed in docs/ are
# what bench/smpi/results/*.jsonl give, and the check can fail: a copy of
# docs/ with one table cell altered is reported, naming the page, and
# rendering the copy restores it; an unclosed region is an error at its line.
#   test-render-docs.sh RENDER_DOCS ROOT WORKDIR
set -u
render=$1 root=$2 dir=$3 name=test-render-docs
. "$(dirname "$0")/test-lib.sh"
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"

"$render" --check --root "$root" >"$dir/check.out" 2>&1 ||
  fail "the committed tables differ from the results (run bench/smpi/render-docs):
$(cat "$dir/check.out")"

cp -R "$root/docs" "$dir/docs" || fail "cannot copy $root/docs"
page=docs/algorithms/dim-rings.md
# the µs cell (5th) of the first row of the page's generated table, times 10
awk 'index($0, "<!-- generated: ") == 1 { inside = 1 }
     inside && !done && /^\| `/ { n = split($0, c, " \\| "); c[5] = c[5] "0"; line = c[1];
                                  for (i = 2; i <= n; i++) line = line " | " c[i];
                                  print line; done = 1; next }
     { print }' "$root/$page" >"$dir/$page" || fail "cannot alter $page"
cmp -s "$root/$page" "$dir/$page" && fail "no table row to alter in $page"

expect_stale_then_restored "$render" "$root" "$dir" "$page" algorithm:dim-rings
"$render" --check --root "$dir" >/dev/null 2>&1 || fail "--check fails after rendering"

printf '# x\n\n<!-- generated: bench/smpi/render-docs summary -->\n| a |\n' >"$dir/docs/open.md"
"$render" --check --root "$dir" >"$dir/open.out" 2>&1
status=$?
[ "$status" -eq 2 ] || fail "an unclosed region: exit $status (want 2)"
grep -q "open.md:3: error: generated region never closed" "$dir/open.out" ||
  fail "an unclosed region was not reported at its line: $(cat "$dir/open.out")"
echo "test-render-docs: ok ($(cat "$dir/check.out"))"

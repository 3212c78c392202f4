#!/bin/sh
# ctest bench.smpi.report: the report renders testdata/sample.jsonl (plots
# exist, the tables carry the input's numbers and the derived ones), and a
# malformed file is reported at its line. Exit 77 (skipped) without
# matplotlib.
#   test-report.sh REPORT SAMPLE WORKDIR
set -u
report=$1 sample=$2 dir=$3 name=test-report
. "$(dirname "$0")/test-lib.sh"
need_matplotlib
fresh_dir "$dir"
"$report" "$sample" -o "$dir/report.html" || fail "report exited $? on $sample"
for f in report.html report_model_vs_sim.png report_model_vs_sim.svg report_bound-alltoall.png \
         report_bound-allgatherv.png report_time-torus-4x4x4-64-alltoall.png \
         report_time-smp-16x8-128-alltoallv-random.png report_cores-16-alltoall-regular-64.png; do
  [ -s "$dir/$f" ] || fail "$f was not written"
done
# input numbers (SimGrid's 4x4x4 basic_linear baseline, collc's time) and
# derived ones: the model error of the smp case, collc's ratio to the best
# allgatherv peer (GB), and the unverified peer flagged
for want in '<td>1201.9</td>' '<td>1105.3</td>' '<td>37313.0</td>' '<td>-12.5%</td>' \
            '0.280 (GB)' 'torus:8x8x8 (P = 512)' 'smp:16x8 (P = 128)' '<td class="bad">NO</td>' \
            'src="report_bound-alltoall.png"'; do
  grep -qF "$want" "$dir/report.html" || fail "report.html lacks '$want'"
done
printf '%s\n' "$(head -n 1 "$sample")" '{"platform": "torus:2x2x2", "op": ' >"$dir/bad.jsonl"
out=$("$report" "$dir/bad.jsonl" -o "$dir/bad.html" 2>&1) && fail "a malformed line was accepted"
echo "$out" | grep -q "bad.jsonl:2:[0-9]*: error: malformed JSON" || fail "no FILE:LINE diagnostic: $out"
echo "report ok: $(ls "$dir" | grep -c '\.png$') PNGs, tables checked, malformed input reported"

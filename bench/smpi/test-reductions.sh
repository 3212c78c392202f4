#!/bin/sh
# ctest bench.smpi.reductions: allreduce and bcast plans run under SMPI on a
# 2x2x2 torus of 2-rank nodes (16 ranks), every collc algorithm of the op
# (collc --list-algorithms: multi-colour too, on exactly this torus) at 8 B
# and 4 KiB beside every SimGrid built-in, and every collc row's receive
# buffers hash to SMPI's own collective on the same data (an allreduce of ints: every order of combination gives the
# same bytes). The rows carry collc's bound (bench/smpi/run's bound_per_byte).
# slice-rings, whose plan differs behind a switch (one ring of nodes, not
# the torus' dimension rings), also runs on a switch of 4 nodes of 2 cores.
# Exit 77 (skipped) without smpirun or the SMPI flavour of collc-run.
#   test-reductions.sh RUN WORKDIR
set -u
run=$1 dir=$2
name=test-reductions
. "$(dirname "$0")/test-lib.sh"
root=$(cd "$(dirname "$run")/../.." && pwd)
command -v smpirun >/dev/null || skip "smpirun is missing"
[ -x "$root/build/smpi/bin/collc-run" ] || skip "no SMPI collc-run"
fresh_dir "$dir"
# run's status also counts built-ins that SMPI's reference finds wrong
# (smp_rsag* on fewer elements than ranks), so only collc's rows decide
for op in allreduce bcast; do
  "$run" torus 2x2x2 --rpn 2 --op $op --bytes 8,4096 \
    -o "$dir/r.jsonl" --workdir "$dir/work-$op" >"$dir/log-$op" 2>&1 ||
    grep -q "results appended" "$dir/log-$op" ||
    fail "bench/smpi/run --op $op failed: $(tail -3 "$dir/log-$op")"
done
"$run" smp 4x2 --op allreduce --bytes 8,4096 --algorithms slice-rings \
  -o "$dir/smp.jsonl" --workdir "$dir/work-smp" >"$dir/log-smp" 2>&1 ||
  fail "bench/smpi/run smp 4x2 slice-rings failed: $(tail -3 "$dir/log-smp")"
python3 - "$dir/smp.jsonl" <<'PY' || fail "see above"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
if len(rows) != 2 or any(r["verified"] is not True for r in rows):
    sys.exit(f"smp 4x2 slice-rings: not 2 verified rows: {rows}")
PY
python3 - "$dir/r.jsonl" "$root/build/bin/collc" <<'PY' || fail "see above"
import json, subprocess, sys
table = json.loads(subprocess.run([sys.argv[2], "--list-algorithms"], capture_output=True,
                                  text=True, check=True).stdout)
seen = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if not r.get("bound_us") or r["bound_us"] <= 0:
        sys.exit(f"{r['op']} {r['bytes']}: no bound")
    if r["impl"] != "collc":
        continue
    if r["verified"] is not True or r["sim_us"] is None:
        sys.exit(f"{r['op']} {r['algorithm']} {r['bytes']} B: not verified ({r.get('verified_note')})")
    seen.add((r["op"], r["algorithm"]))
want = {(op, a["name"]) for a in table["algorithms"] for op in ("allreduce", "bcast")
        if op in a["ops"]}
if not want <= seen:
    sys.exit(f"missing rows: {sorted(want - seen)}")
print(f"test-reductions: ok: {len(seen)} collc algorithms verified against SMPI's allreduce and bcast")
PY

"""plan-set.test: reads back every plan of a plan-set directory (collc
--emit=sched) and checks that each op's bands tile [0, and up] without gaps
or overlaps, and that each op has a generic plan for any size. An allreduce
is one op per reduction its plans record (allreduce.sum.double, ...).
usage: plan-set-tiles.py COLLC DIR"""
import re
import subprocess
import sys
from pathlib import Path

collc, directory = sys.argv[1], Path(sys.argv[2])
AND_UP = 2**63 - 1
bands, generic = {}, {}
for plan in sorted(directory.glob("*.plan")):
    ir = subprocess.run([collc, str(plan), "--emit=sched"], capture_output=True, text=True, check=True).stdout
    op = re.search(r'collective = "(\w+)"', ir).group(1)
    reduction = re.search(r'sched.reduce "(\w+)" "(\w+)"', ir)
    if reduction:
        op += "." + ".".join(reduction.groups())
    r = re.search(r"block_bytes = array<i64: (\d+), (\d+)>", ir)
    lo, hi = (int(r.group(1)), int(r.group(2))) if r else (0, AND_UP)  # none: any size
    if ".generic." in plan.name:
        assert (lo, hi) == (0, AND_UP), f"{plan.name}: a generic plan for [{lo}, {hi}]"
        generic[op] = plan.name
    else:
        bands.setdefault(op, []).append((lo, hi, plan.name))
reductions = sorted(k for k in bands if k.startswith("allreduce."))
assert reductions, "allreduce: no band plans"
for op in ["alltoall", "alltoallv", "allgatherv"] + reductions + ["bcast"]:
    spans = sorted(bands.get(op, []))
    assert spans, f"{op}: no band plans"
    assert op in generic, f"{op}: no generic plan"
    assert spans[0][0] == 0, f"{op}: the first band starts at {spans[0][0]}"
    for (lo, hi, a), (nlo, nhi, b) in zip(spans, spans[1:]):
        assert hi + 1 == nlo, f"{op}: {a} ends at {hi}, {b} starts at {nlo}"
    assert spans[-1][1] == AND_UP, f"{op}: the last band ends at {spans[-1][1]}"
    print(f"{op}: {len(spans)} bands tile [0, and up]; generic {generic[op]}")

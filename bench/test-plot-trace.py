#!/usr/bin/python3
"""ctest bench.plot-trace: a real 4-rank run's trace (collc-run --trace of a
balanced alltoall on 2x2 nodes, 4 FIFOs) conforms to the trace-event format,
and bench/plot-trace draws it as a non-empty PNG. Exit 77 (skipped) without
matplotlib for /usr/bin/python3.

    test-plot-trace.py MPIEXEC COLLC COLLC_RUN PLOT_TRACE WORKDIR
"""
import json
import numbers
import os
import shutil
import subprocess
import sys

RANKS = 4
# the phases of the trace-event format (Chrome's "Trace Event Format" document)
PHASES = set("BEXiIbneSTpFsftPOCNDMRcv") | {"(", ")"}


def fail(msg):
    sys.exit(f"test-plot-trace: FAIL: {msg}")


def run(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        fail(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def check_trace(path):
    """Checks the trace-event format (JSON object form) and what collrt adds
    to it: one named process per rank, "X" steps with integer tids."""
    with open(path) as f:
        doc = json.load(f)  # a syntax error fails the test here
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("the top level is not an object with a traceEvents array")
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        fail(f"displayTimeUnit is {doc['displayTimeUnit']!r}, not 'ms' or 'ns'")
    named, steps = set(), {}
    for i, e in enumerate(doc["traceEvents"]):
        where = f"event {i} {json.dumps(e)}"
        if not isinstance(e, dict):
            fail(f"{where} is not an object")
        for key in ("name", "ph", "pid"):
            if key not in e:
                fail(f"{where} lacks '{key}'")
        if not isinstance(e["name"], str) or e["ph"] not in PHASES:
            fail(f"{where}: name must be a string and ph one of the format's phases")
        if not isinstance(e["pid"], int):
            fail(f"{where}: pid must be an integer")
        if e["ph"] == "M":
            if e["name"] == "process_name":
                if not isinstance(e.get("args"), dict) or not isinstance(e["args"].get("name"), str):
                    fail(f"{where}: process_name needs args.name, a string")
                named.add(e["pid"])
            continue
        if not is_number(e.get("ts")) or e["ts"] < 0:
            fail(f"{where}: ts must be a number >= 0 (microseconds)")
        if "tid" in e and not isinstance(e["tid"], int):
            fail(f"{where}: tid must be an integer")
        if e["ph"] == "X":
            if not is_number(e.get("dur")) or e["dur"] < 0:
                fail(f"{where}: an 'X' event needs dur, a number >= 0")
            if e.get("cat") not in ("send", "recv", "copy"):
                fail(f"{where}: cat is not send, recv or copy")
            steps.setdefault(e["pid"], []).append(e)
    if named != set(range(RANKS)) or set(steps) != set(range(RANKS)):
        fail(f"expected a named process with steps per rank 0..{RANKS - 1}; "
             f"named {sorted(named)}, with steps {sorted(steps)}")
    fifos = {e.get("tid") for s in steps.values() for e in s}
    if len(fifos) < 2:
        fail(f"expected steps on several FIFOs (tids), got {sorted(fifos)}")
    return sum(len(s) for s in steps.values()), len(fifos)


def main():
    mpiexec, collc, collc_run, plot_trace, work = sys.argv[1:6]
    try:
        import matplotlib.image  # noqa: F401  (the PNG is read back with it)
    except ImportError:
        print("test-plot-trace: SKIP: matplotlib is missing for /usr/bin/python3 "
              "(apt-get install python3-matplotlib)")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ["MPLCONFIGDIR"] = os.path.join(work, "mplconfig")  # not in $HOME
    spec, plan = os.path.join(work, "a2a.yaml"), os.path.join(work, "a2a.collplan")
    trace, png = os.path.join(work, "t.json"), os.path.join(work, "t.png")
    with open(spec, "w") as f:
        f.write("{topology: {shape: [2, 2]}, collective: {op: alltoall, algorithm: balanced}}\n")
    run(collc, spec, "-o", plan)
    run(mpiexec, "-n", str(RANKS), collc_run, plan, "--bytes", "4096", "--iters", "1",
        "--warmup", "0", "--trace", trace)
    nsteps, nfifos = check_trace(trace)

    out = run(plot_trace, trace, "-o", png)
    if f"{RANKS} ranks, {nfifos} FIFOs, {nsteps} steps" not in out:
        fail(f"plot-trace's summary does not match the trace ({nsteps} steps):\n{out}")
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail(f"{png} is not a PNG")
    img = matplotlib.image.imread(png)
    if img.shape[0] < 100 or img.shape[1] < 100 or float(img[..., :3].std()) == 0:
        fail(f"{png} is empty or blank (shape {img.shape})")

    # errors name the file and what to do
    bad = os.path.join(work, "cut.json")
    with open(trace) as f, open(bad, "w") as g:
        g.write(f.read()[:200])
    r = subprocess.run([plot_trace, bad, "-o", os.path.join(work, "cut.png")],
                       capture_output=True, text=True)
    if r.returncode == 0 or f"'{bad}' is not JSON" not in r.stderr:
        fail(f"a cut-short trace was not reported: exit {r.returncode}, {r.stderr}")
    print(f"test-plot-trace: ok: {nsteps} steps on {RANKS} ranks and {nfifos} FIFOs, "
          f"{img.shape[1]}x{img.shape[0]} PNG")


if __name__ == "__main__":
    main()

"""Compiles each torus schedule for 8x8x8 and 40x32x16 and prints whether
its plan has the same size at both and stays under 4 KiB (plan-size.test).
vmesh's mesh is the model's per shape (8x8x8: rows of consecutive ranks;
40x32x16: rows on XZ planes), so its plans differ in form: it is also
compiled with the same form at both, rows on XZ planes (`mesh`).
usage: plan-sizes.py COLLC WORKDIR"""
import os
import subprocess
import sys

collc, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
cases = [("alltoall", "balanced"), ("alltoallv", "balanced"), ("alltoall", "dim-rings"),
         ("alltoallv", "dim-rings"),
         ("alltoall", "two-phase"), ("alltoallv", "two-phase"), ("alltoall", "vmesh"),
         ("alltoallv", "vmesh"), ("alltoall", "vmesh@xz"), ("alltoallv", "vmesh@xz")]
for op, alg in cases:
    sizes = []
    for shape, xz in (("8, 8, 8", "1, 8, 1"), ("40, 32, 16", "1, 32, 1")):
        spec = os.path.join(work, f"{op}-{alg}-{len(sizes)}.yaml")
        name, _, mesh = alg.partition("@")
        with open(spec, "w") as f:
            f.write(f"topology:\n  shape: [{shape}]\ncollective:\n  op: {op}\n"
                    f"  bytes: 4096\n  algorithm: {name}\n" + (f"  mesh: [{xz}]\n" if mesh else ""))
        plan = spec[:-5] + ".collplan"
        subprocess.run([collc, spec, "-o", plan], check=True)
        sizes.append(os.path.getsize(plan))
    print(op, alg, "same-size" if sizes[0] == sizes[1] else f"sizes {sizes}",
          "under-4096" if max(sizes) < 4096 else f"too-large {max(sizes)}")

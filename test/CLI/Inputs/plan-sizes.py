"""Compiles each torus schedule for 8x8x8 and 40x32x16 and prints whether
its plan has the same size at both and stays under 4 KiB (plan-size.test).
usage: plan-sizes.py COLLC WORKDIR"""
import os
import subprocess
import sys

collc, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
cases = [("alltoall", "balanced"), ("alltoallv", "balanced"), ("alltoall", "dim-rings"),
         ("alltoallv", "dim-rings"),
         ("alltoall", "two-phase"), ("alltoallv", "two-phase"), ("alltoall", "vmesh"),
         ("alltoallv", "vmesh")]
for op, alg in cases:
    sizes = []
    for shape in ("8, 8, 8", "40, 32, 16"):
        spec = os.path.join(work, f"{op}-{alg}-{len(sizes)}.yaml")
        with open(spec, "w") as f:
            f.write(f"topology:\n  shape: [{shape}]\ncollective:\n  op: {op}\n"
                    f"  bytes: 4096\n  algorithm: {alg}\n")
        plan = spec[:-5] + ".collplan"
        subprocess.run([collc, spec, "-o", plan], check=True)
        sizes.append(os.path.getsize(plan))
    print(op, alg, "same-size" if sizes[0] == sizes[1] else f"sizes {sizes}",
          "under-4096" if max(sizes) < 4096 else f"too-large {max(sizes)}")

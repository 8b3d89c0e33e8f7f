"""Execute `atomq analyze -- lanes_app` (injection) and validate e per kernel: measured from the
data-bytes counter, exact (1e-6) for ATOMS.POPC.INC, ADD and CAS at e = 1, 8, 32; assumed,
with the reason named, for the CAS loop's ATOMS.CAST.SPIN. Then `--profile-from-start off`: only
the three launches inside the program's cudaProfilerStart/Stop range (the e = 8 kernels) are
profiled. GPU and cuobjdump only."""
import json
import pathlib
import subprocess
import sys

from gpu_skip import require_gpu, require_tool

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_tool("cuobjdump", "the lane width comes from the SASS")

out = work / "lanes.json"
p = subprocess.run([atomq, "analyze", "-o", str(out), "--", app], capture_output=True, text=True, timeout=600)
print(p.stdout)
assert p.returncode == 0, f"rc {p.returncode}\n{p.stderr}"
kernels = {k["profile"]["kernel"]["name"]: k for k in json.loads(out.read_text())["kernels"]}
failures = []
checked = 0
for name, k in sorted(kernels.items()):
    inputs = k["analysis"]["inputs"]
    e, origin, basis = inputs["active_lanes"], inputs["active_lanes_origin"], inputs["active_lanes_basis"]
    print(f"{name:40s} e {e:.9f} {origin}: {basis}")
    if name.startswith("float_spin"):
        if origin != "assumed" or "CAST.SPIN" not in basis:
            failures.append(f"{name}: expected e assumed because of ATOMS.CAST.SPIN, got {origin}: {basis}")
        checked += 1
        continue
    expected = int(name.split("<")[1].split(">")[0])
    if origin != "measured" or abs(e - expected) > 1e-6:
        failures.append(f"{name}: e {e} ({origin}), expected {expected} measured")
    checked += 1
if checked != 10:
    failures.append(f"{checked} kernels checked, expected 10: {sorted(kernels)}")

# The program's capture range: the e = 8 kernels only, the other seven launches passed over.
ranged = work / "ranged.json"
p = subprocess.run([atomq, "analyze", "--profile-from-start", "off", "--instructions", "0", "-o", str(ranged),
                    "--", app], capture_output=True, text=True, timeout=600)
assert p.returncode == 0, f"--profile-from-start off: rc {p.returncode}\n{p.stderr}"
run = json.loads(ranged.read_text())
names = sorted(k["profile"]["kernel"]["name"] for k in run["kernels"])
print("--profile-from-start off:", names, run.get("launches"))
if len(names) != 3 or not all(f"{op}_lanes<8>" in n for n, op in zip(names, ("add", "cas", "popc"))):
    failures.append(f"--profile-from-start off profiled {names}, expected the three <8> kernels")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)

"""`atomq calibrate --all-devices` on a host with two GPUs or more (quick grid): one table per
GPU with its UUID in the provenance, the identical GPUs compared, and `analyze` picking each
GPU's own table for its kernels (through $XDG_DATA_HOME, where the tables are installed)."""
import json
import os
import pathlib
import subprocess
import sys

from gpu_skip import require_gpu, require_gpus

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_gpus(2, "--all-devices is checked on two GPUs")
env = dict(os.environ, XDG_DATA_HOME=str(work / "data"))
env.pop("ATOMQ_TABLE", None)
p = subprocess.run([atomq, "calibrate", "--all-devices", "--quick"], capture_output=True, text=True, env=env,
                   timeout=600)
print(p.stdout[-3000:])
if p.returncode != 0:
    sys.exit(f"calibrate --all-devices exited {p.returncode}: {p.stderr[-2000:]}")
tables = sorted((work / "data" / "atomq" / "tables").glob("*-GPU-*.json"))
docs = [json.loads(t.read_text()) for t in tables]
uuids = [d["provenance"].get("device_uuid") for d in docs]
failures = []
if len(tables) < 2 or len(set(uuids)) != len(tables) or None in uuids:
    failures.append(f"tables {[t.name for t in tables]} with device UUIDs {uuids}: expected one per GPU")
for t, d in zip(tables, docs):
    if not t.name.endswith(d["provenance"]["device_uuid"] + ".json"):
        failures.append(f"{t.name}: named after another GPU than {d['provenance']['device_uuid']}")
if "saturated cells" not in p.stdout:
    failures.append("no comparison of the identical GPUs printed")
# A kernel on GPU 1 is evaluated with GPU 1's table.
run = subprocess.run([atomq, "analyze", "-o", str(work / "ranked.json"), "--", app], capture_output=True, text=True,
                     env=dict(env, RANK="1"), timeout=300)
print(run.stdout[-1500:])
if "evaluated with its own table" not in run.stdout:
    failures.append("analyze did not use the GPU's own table")
if failures:
    sys.exit("calibrate --all-devices:\n" + "\n".join(failures))
print(f"calibrate --all-devices: {len(tables)} tables, one per GPU, compared; analyze picked the GPU's own table")

"""Execute `atomq calibrate --quick`, then validate the table it wrote (GPU only; else skip)."""
import json
import os
import pathlib
import subprocess
import sys

atomq, work = sys.argv[1], pathlib.Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)
probe = subprocess.run([atomq, "devices"], capture_output=True, text=True, timeout=120)
if probe.returncode != 0:
    print("SKIPPED: no GPU:", probe.stderr.strip())
    sys.exit(77)

out = work / "quick.json"
p = subprocess.run([atomq, "calibrate", "--quick", "--no-progress", "-o", str(out)],
                   capture_output=True, text=True, timeout=300)
assert p.returncode == 0, p.stdout + p.stderr
doc = json.loads(out.read_text())
assert doc["format"] == "atomq.service_table" and doc["version"] == 2
l2 = doc["l2"]
assert len(l2["cells"]) == len(l2["axes"]["ops"]) * len(l2["axes"]["spreads"]) * len(l2["axes"]["warps_per_sm"])
assert all(c["cycles_per_request"] > 0 for c in l2["cells"])
assert out.with_suffix(".l2.csv").exists()
axes = doc["axes"]
assert len(doc["cells"]) == (len(axes["n"]) * len(axes["e"]) * len(axes["c"]) *
                             len(axes["variants"]) * len(axes["patterns"]))
assert doc["provenance"]["grid"] == "quick"
assert all(c["s"] > 0 for c in doc["cells"])
assert out.with_suffix(".csv").exists()
assert not list(work.glob("quick.json.tmp*")), "temporary file left behind"
v = subprocess.run([atomq, "table", "validate", str(out)], capture_output=True, text=True)
assert v.returncode == 0, v.stderr
print(p.stdout)

# Without -o the table is installed where analyze and report look for this chip's table, and
# calibrate says so.
home = work / "calibrate-home"
env = {k: v for k, v in os.environ.items() if k not in ("XDG_DATA_HOME", "ATOMQ_TABLE")}
env["HOME"] = str(home)
p = subprocess.run([atomq, "calibrate", "--quick", "--no-progress"], capture_output=True, text=True,
                   timeout=300, env=env, cwd=work)
assert p.returncode == 0, p.stdout + p.stderr
chip = doc["provenance"]["chip"]  # the same GPU as the -o run above
installed = home / ".local/share/atomq/tables" / f"{chip}.json"
assert installed.is_file(), f"not installed at {installed}:\n{p.stdout}"
assert f"installed as this machine's {chip} table" in p.stdout, p.stdout
print(f"installed {installed}")

"""A two-process program analyzed through a launcher (tests/gpu/targets/rank_launcher.cpp
starting two tests/gpu/targets/rank_app.cu workers): one merged run document, each launch
tagged with its rank, the slower rank reported as load imbalance by analyze and by the
report. With two GPUs the workers run side by side, one GPU each (and through torchrun too,
when it is on PATH); with one GPU they run one after the other on it (one process at a time
can hold a GPU's counters)."""
import json
import pathlib
import shutil
import subprocess
import sys

from gpu_skip import gpu_count, require_gpu

atomq, launcher, app, work = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
gpus = gpu_count()
print(f"{gpus} GPU(s): workers {'side by side, one GPU each' if gpus >= 2 else 'one after the other on one GPU'}")


def check(label, command):
    out = work / f"{label}.json"
    p = subprocess.run([atomq, "analyze", "-o", str(out), "--", *command], capture_output=True, text=True, timeout=600)
    print(f"--- {label}: exit {p.returncode}\n{p.stdout[-2500:]}")
    problems = []
    if p.returncode != 0:
        return [f"{label}: atomq analyze exited {p.returncode}: {p.stderr[-1500:]}"]
    doc = json.loads(out.read_text())
    ranks = {}
    for k in doc["kernels"]:
        proc = k["profile"].get("process")
        if not proc or "rank" not in proc:
            problems.append(f"{label}: a launch without its rank: {k['profile']['source']['detail']}")
            continue
        ranks.setdefault(proc["rank"], []).append(k["profile"])
    if sorted(ranks) != [0, 1] or any(len(v) != 3 for v in ranks.values()):
        problems.append(f"{label}: launches per rank {{{', '.join(f'{r}: {len(v)}' for r, v in sorted(ranks.items()))}}}, "
                        "expected 3 on each of ranks 0 and 1")
    devices = {r: {p["device"].get("uuid") for p in v} for r, v in ranks.items()}
    print(f"{label}: devices by rank {devices}")
    if "load imbalance across ranks" not in p.stdout or "on rank 1" not in p.stdout:
        problems.append(f"{label}: analyze does not report rank 1 as the slow rank")
    md = work / f"{label}.md"
    r = subprocess.run([atomq, "report", str(out), "-o", str(md)], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or "## Ranks" not in md.read_text() or "load imbalance across ranks" not in md.read_text():
        problems.append(f"{label}: the report has no Ranks section with the imbalance ({r.stderr[-500:]})")
    return problems


failures = check("launcher", [launcher, "2", app] if gpus >= 2 else [launcher, "--one-at-a-time", "2", app])
torchrun = shutil.which("torchrun")
if torchrun and gpus >= 2:
    failures += check("torchrun", [torchrun, "--standalone", "--nproc_per_node", "2", "--no-python", app])
else:
    print("torchrun not on PATH or one GPU: the plain launcher only")
if failures:
    sys.exit("multi-process analysis:\n" + "\n".join(failures))
print("multi-process: one merged run document, every launch tagged with its rank, rank 1's imbalance reported")

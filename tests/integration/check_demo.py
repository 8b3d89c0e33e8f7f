"""Execute `atomq demo` as a user would and validate what it wrote. Without a GPU it must say
that it replays recorded data and report on those profiles; with one, on the runs it made."""
import json
import pathlib
import shutil
import subprocess
import sys

atomq, work = sys.argv[1], pathlib.Path(sys.argv[2])
if work.exists():
    shutil.rmtree(work)

p = subprocess.run([atomq, "demo", "-o", str(work)], capture_output=True, text=True, timeout=580)
print(p.stdout[-6000:])
print(p.stderr[-3000:], file=sys.stderr)
assert p.returncode == 0, p.returncode

md = (work / "report.md").read_text()
replay = "REPLAY of profiles recorded on NVIDIA H100 80GB HBM3 (no GPU used)" in p.stdout
if replay:
    assert "This report replays recorded data: no GPU was used to make it." in md
    assert "f3dd154" in md and "NVIDIA H100" in md  # the recording build, as the manifest names it
    # The recordings hold the L2 counters: the one-value global histogram binds on the L2 unit.
    assert "| naive_global-single |" in md and "binds: the L2 atomic unit (severe)" in md
    labels = [f"{v}-{i}" for i in ("single", "uniform")
              for v in ("naive_global", "block_private", "warp_replicated", "lane_replicated")]
    labels += ["multi_kernel_app/add_conflict32"]
else:
    assert "Measured on this GPU" in p.stdout
    docs = sorted((work / "runs").glob("*.json"))
    assert len(docs) >= 8, docs
    for d in docs:
        assert json.loads(d.read_text())["format"] == "atomq.analysis_run"
    labels = [d.stem for d in docs if d.stem != "multi_kernel_app"]
for label in labels:
    assert f"| {label} |" in md, label
    assert label in p.stdout, label
assert "## Comparisons" in md and "vs" in md
# The terminal summary names a class and a recommendation for each kernel.
assert p.stdout.count("    -> ") >= len(labels) - 1
assert "wrote " + str(work / "report.md") in p.stdout
html = work / "report.html"
assert html.exists() and html.stat().st_size > 150_000, "HTML with the inlined plotting library"
print("demo:", "replay" if replay else "GPU", "ok")

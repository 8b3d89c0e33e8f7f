"""Execute `atomq analyze --ncu-csv` on the recorded ncu exports (fixtures) and on broken
files; validate the run document and the error messages. Needs no GPU."""
import json
import pathlib
import subprocess
import sys

atomq, fixtures, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)


def analyze(*args):
    return subprocess.run([atomq, "analyze", *args], capture_output=True, text=True, timeout=120)


exports = sorted(fixtures.glob("*.csv"))
for csv in exports:
    out = work / (csv.stem + ".json")
    p = analyze("--ncu-csv", str(csv), "-o", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    run = json.loads(out.read_text())
    assert run["source"] == "ncu_csv" and run["kernels"], run
    for k in run["kernels"]:
        assert k["analysis"]["class"] in ("severe", "potential", "not_atomic_bound", "insufficient_data")
    print(p.stdout)

broken = work / "broken.csv"
if exports:
    text = exports[0].read_text()
    cut = text[: len(text) // 2]
    if cut.endswith("\n"):
        cut = cut[:-2]  # a cut at a line end would leave a valid, shorter export
    broken.write_text(cut)
else:
    broken.write_text('"ID","Kernel Name"\n')
p = analyze("--ncu-csv", str(broken), "-o", str(work / "broken.json"))
assert p.returncode == 1, p
assert str(broken) in p.stderr and p.stderr.count("\n") == 1, p.stderr
p = analyze("--ncu-csv", str(work / "missing.csv"), "-o", str(work / "m.json"))
assert p.returncode == 1 and "cannot open" in p.stderr, p.stderr
# Without a GPU, live analysis refuses in one line (exit 3) and does not run the program.
if subprocess.run([atomq, "devices"], capture_output=True).returncode != 0:
    marker = work / "should_not_exist"
    p = analyze("-o", str(work / "nogpu.json"), "--", "touch", str(marker))
    assert p.returncode == 3 and p.stderr.startswith("atomq: no usable NVIDIA GPU"), p
    assert len(p.stderr.strip().splitlines()) == 1 and not marker.exists(), p.stderr
print(f"ncu CSV import OK on {len(exports)} recorded export(s) and 2 broken files")

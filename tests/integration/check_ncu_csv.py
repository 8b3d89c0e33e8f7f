"""Execute `atomq analyze --ncu-csv` on the recorded ncu exports (fixtures) and on broken
files; validate the run document and the error messages. Needs no GPU."""
import json
import os
import pathlib
import subprocess
import sys

atomq, fixtures, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)


def analyze(*args):
    return subprocess.run([atomq, "analyze", *args], capture_output=True, text=True, timeout=120)


# What the kernels of tests/gpu/targets/multi_kernel_app.cu are built to be, by launch order
# (tests/fixtures/README.md): (name, allowed classes, wavefronts per instruction k, CAS share c).
# Every atomic kernel is a loop of back-to-back shared atomics and nothing else; five run 8
# warps in each of 264 blocks and keep the unit saturated (severe); `cooperative` runs one
# block per SM, so only "atomic-bound" is its design. no_atomics has no atomic at all (N = 0).
ATOMIC_BOUND = ("severe", "potential")
MULTI_KERNEL_APP = [
    ("popc_distinct", ("severe",), 1.0, 0.0),      # 32 lanes on 32 banks
    ("add_conflict32", ("severe",), 32.0, 0.0),    # 32 lanes on one bank
    ("cas_distinct", ("severe",), None, 1.0),      # every atomic a CAS
    ("no_atomics", ("not_atomic_bound",), None, None),
    ("popc_same_ex", ("severe",), None, 0.0),      # one word: POPC.INC, no conflict
    ("cooperative", ATOMIC_BOUND, 1.0, 0.0),
    ("no_atomics", ("not_atomic_bound",), None, None),  # the graph's kernel, as ncu sees it
]


def check_multi_kernel_app(run):
    got = [(k["profile"]["kernel"]["name"].split("(")[0], k["analysis"]) for k in run["kernels"]]
    assert [g[0] for g in got] == [e[0] for e in MULTI_KERNEL_APP], [g[0] for g in got]
    for (name, analysis), (_, classes, k, c) in zip(got, MULTI_KERNEL_APP):
        assert analysis["class"] in classes, f"{name}: class {analysis['class']}, expected one of {classes}"
        inputs = analysis["inputs"]
        if k is not None:
            assert abs(inputs["wavefronts_per_instruction"] - k) < 0.01, (name, inputs)
        if c is not None:
            assert abs(inputs["cas_share"] - c) < 0.01, (name, inputs)


exports = sorted(fixtures.glob("*.csv"))
assert any(csv.name == "multi_kernel_app.ncu.csv" for csv in exports), exports
for csv in exports:
    out = work / (csv.stem + ".json")
    p = analyze("--ncu-csv", str(csv), "-o", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    run = json.loads(out.read_text())
    assert run["source"] == "ncu_csv" and run["kernels"], run
    if csv.name == "multi_kernel_app.ncu.csv":
        check_multi_kernel_app(run)
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
# The export named as the output too: refused, the export left as it was.
same = work / "same.csv"
same.write_bytes(exports[0].read_bytes() if exports else b"x")
p = analyze("--ncu-csv", str(same), "-o", str(same))
assert p.returncode == 1 and "is also the ncu input" in p.stderr, p.stderr
assert same.read_bytes() == (exports[0].read_bytes() if exports else b"x"), "the export was replaced"
p = analyze("--ncu-csv", str(work / "missing.csv"), "-o", str(work / "m.json"))
assert p.returncode == 1 and "cannot open" in p.stderr, p.stderr
# Without a GPU, live analysis refuses in one line (exit 3) and does not run the program.
if subprocess.run([atomq, "devices"], capture_output=True).returncode != 0:
    marker = work / "should_not_exist"
    p = analyze("-o", str(work / "nogpu.json"), "--", "touch", str(marker))
    assert p.returncode == 3 and p.stderr.startswith(("atomq: no usable NVIDIA GPU", "atomq: profiling a program")), p
    assert len(p.stderr.strip().splitlines()) == 1 and not marker.exists(), p.stderr


# An Nsight Compute report through ncu's raw page (--ncu-rep): a stand-in ncu ($ATOMQ_NCU) prints
# the raw page of multi_kernel_app's export (its long form turned wide: a row per launch, a
# column per metric, units on the second line); the kernels read as they do from the export.
def raw_page(long_csv):
    import csv
    import io
    lines = long_csv.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    launch_columns = ["ID", "Kernel Name", "Block Size", "Grid Size", "CC"]
    metrics, units, launches = [], {}, {}
    for r in rows:
        if r["Metric Name"] not in units:
            metrics.append(r["Metric Name"])
            units[r["Metric Name"]] = r["Metric Unit"]
        launch = launches.setdefault(r["ID"], {c: r[c] for c in launch_columns})
        launch[r["Metric Name"]] = r["Metric Value"]
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(launch_columns + ["Device Name"] + metrics)
    w.writerow([""] * (len(launch_columns) + 1) + [units[m] for m in metrics])
    for launch in launches.values():
        w.writerow([launch[c] for c in launch_columns] + ["NVIDIA H200"] + [launch.get(m, "") for m in metrics])
    return out.getvalue()


multi = fixtures / "multi_kernel_app.ncu.csv"
(work / "raw_page.csv").write_text(raw_page(multi))
fake_ncu = work / "fake_ncu"
fake_ncu.write_text(f'#!/bin/sh\n[ "$1 $3 $4 $5 $6 $7" = "--import --csv --page raw --print-units base" ] || exit 9\n'
                    f'[ -f "$2" ] || {{ echo "==ERROR== cannot open $2" >&2; exit 1; }}\n'
                    f'cat {work / "raw_page.csv"}\n')
fake_ncu.chmod(0o755)
report = work / "app.ncu-rep"
report.write_bytes(b"a report")
env = dict(os.environ, ATOMQ_NCU=str(fake_ncu))
out = work / "from_report.json"
p = subprocess.run([atomq, "analyze", "--ncu-rep", str(report), "-o", str(out)], capture_output=True, text=True,
                   timeout=120, env=env)
assert p.returncode == 0, p.stdout + p.stderr
run = json.loads(out.read_text())
assert run["command"] == str(report), run["command"]
check_multi_kernel_app(run)
# A report without most of atomq's counters (ncu's own sections): each missing counter is named
# with how ncu collects it; when no selected launch can be evaluated, exit 1 (the document written).
def thin(raw, keep):
    import csv as csv_module
    import io
    rows = list(csv_module.reader(io.StringIO(raw)))
    cols = [i for i, name in enumerate(rows[0]) if "__" not in name or name in keep]
    out = io.StringIO()
    w = csv_module.writer(out, quoting=csv_module.QUOTE_ALL, lineterminator="\n")
    for r in rows:
        w.writerow([r[i] for i in cols])
    return out.getvalue()


(work / "raw_page.csv").write_text(thin(raw_page(multi), {"gpu__time_duration.sum",
                                                         "smsp__inst_executed_op_shared_atom.sum"}))
p = subprocess.run([atomq, "analyze", "--ncu-rep", str(report), "-k", "popc_distinct", "-o", str(work / "thin.json")],
                   capture_output=True, text=True, timeout=120, env=env)
assert p.returncode == 1 and "could be evaluated" in p.stderr, p.stdout + p.stderr
n_metrics = len(subprocess.run([atomq, "metrics"], capture_output=True, text=True).stdout.strip().split(","))
assert f"lacks {n_metrics - 2} of the {n_metrics} counters" in p.stderr and "lts__t_requests_op_red.sum" in p.stderr, p.stderr
assert "--section AtomicQueue" in p.stderr, p.stderr
assert (work / "thin.json").exists()
# ncu that fails says why in one line; no ncu names where it looked.
bad = work / "bad_ncu"
bad.write_text('#!/bin/sh\necho "==ERROR== the report is from a newer version" >&2\nexit 1\n')
bad.chmod(0o755)
p = subprocess.run([atomq, "analyze", "--ncu-rep", str(report), "-o", str(work / "bad.json")], capture_output=True,
                   text=True, timeout=120, env=dict(os.environ, ATOMQ_NCU=str(bad)))
assert p.returncode == 1 and "newer version" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
assert not (work / "bad.json").exists()
p = subprocess.run([atomq, "analyze", "--ncu-rep", str(report), "-o", str(work / "none.json")], capture_output=True,
                   text=True, timeout=120, env=dict(os.environ, ATOMQ_NCU=str(work / "no_such_ncu")))
assert p.returncode == 1 and "needs ncu" in p.stderr, p.stderr
print(f"ncu CSV import OK on {len(exports)} recorded export(s) and 2 broken files; a report through ncu's raw page")

"""The atomq Python module: table loading, analysis of recorded profiles, what-ifs and run
documents read into plain records. The classes it computes must be those atomq concluded when
the runs were recorded (the run documents keep them).

  check_module.py RECORDED_DIR   (the module on PYTHONPATH)"""
import json
import math
import pathlib
import sys

import atomq

recorded = pathlib.Path(sys.argv[1])
run_path = recorded / "multi_kernel_app.json"
doc = json.loads(run_path.read_text())
want = [k["analysis"]["class"] for k in doc["kernels"]]
# Verdicts this build changed since the recording, each with its measurement.
changes = json.loads((pathlib.Path(__file__).parent / "recorded_verdict_changes.json").read_text())
for c in changes.get(run_path.name, []):
    assert want[c["launch"]] == c["recorded"], (c, want)
    want[c["launch"]] = c["now"]

# The bundled table, found beside the module (share/atomq), with why it was chosen.
table = atomq.load_table(chip="GH100")
assert table.chip == "GH100" and table.origin == "bundled", (table.chip, table.origin)
assert pathlib.Path(table.path).is_file() and table.reason, (table.path, table.reason)
assert atomq.data_dir() and pathlib.Path(atomq.data_dir(), "tables").is_dir()
# The bundled table a profile is evaluated with: its GPU model's, else its chip's, else none.
tables = pathlib.Path(atomq.data_dir(), "tables")
assert atomq.bundled_table_for(str(tables), "GH100", "NVIDIA H100 80GB HBM3") == str(tables / "GH100.NVIDIA_H100_80GB_HBM3.json")
assert atomq.bundled_table_for(str(tables), "GH100", "NVIDIA H100 PCIe") == str(tables / "GH100.json")
assert atomq.bundled_table_for(str(tables), "AD102", "NVIDIA L40S") is None
# A chip without a table is an error naming it, unless a table is given.
try:
    atomq.load_table(chip="AD102")
    raise AssertionError("load_table(chip='AD102') must fail: no table for that chip")
except ValueError as e:
    assert "AD102" in str(e), e
assert atomq.load_table(path=table.path, chip="AD102").chip == "GH100", "a table given is used for any chip"
assert isinstance(atomq.__version__, str) and atomq.__version__, atomq.__version__

profiles = atomq.read_profiles(str(run_path))
assert [p.kernel_name for p in profiles] == [k["profile"]["kernel"]["name"] for k in doc["kernels"]]
for i, p in enumerate(profiles):
    a = atomq.analyze(p, table)
    assert a["format"] == "atomq.analysis", a.keys()
    assert a["class"] == want[i], (p.kernel_name, a["class"], want[i])

# A what-if: the 32-way conflict's k brought down to one wavefront per instruction must not
# predict more utilization than now, and a finite speedup.
conflict = next(p for p in profiles if p.kernel_name.startswith("add_conflict32"))
w = atomq.what_if(conflict, table, k=1.0, description="no bank conflict")
assert w["k"] == 1.0 and w["change"] == "no bank conflict" and w["id"] == "custom", w
assert w["predicted_utilization"] <= w["current_utilization"], w
assert math.isfinite(w["speedup"]) and w["speedup"] >= 1.0, w
assert w["speedup_low"] <= w["speedup_high"] and abs(w["speedup_high"] - w["speedup"]) < 1e-9 * w["speedup"], w

# Arguments checked as the CLI checks its options: NaN, infinite, negative, zero or out-of-range
# values are a ValueError naming the argument (they were evaluated as given).
for bad in [dict(n=float("nan")), dict(n=-4.0), dict(n=0.0), dict(e=0.0), dict(e=33.0), dict(c=-0.1),
            dict(c=1.5), dict(k=0.0), dict(k=65.0), dict(k=float("inf")), dict(instruction_factor=0.0),
            dict(instruction_factor=-1.0), dict(instruction_factor=float("nan"))]:
    (name, value), = bad.items()
    try:
        atomq.what_if(conflict, table, **bad)
    except ValueError as e:
        assert str(e).startswith(f"what_if: {name} = "), e
    else:
        raise AssertionError(f"what_if accepted {bad}")
assert atomq.what_if(conflict, table, n=8.0, e=32.0, c=0.0, k=32.0, instruction_factor=0.5)["speedup"] > 0

# Records: one flat dict per kernel with plain values, as pandas.DataFrame takes them.
records = atomq.read_run(str(run_path))
assert len(records) == len(doc["kernels"])
for i, r in enumerate(records):
    assert all(v is None or isinstance(v, (str, int, float, bool)) for v in r.values()), r
    assert r["class"] == want[i], r
assert len({tuple(sorted(r)) for r in records}) == 1, "every record has the same columns"
# read_run's table: the one analyze would use for the run's GPU (its GPU model's bundled table
# where one is bundled, else its chip's).
run_table = atomq.load_table(chip=profiles[0].chip, gpu=profiles[0].gpu)
assert all(r["table"] == run_table.path for r in records), (records[0]["table"], run_table.path)
assert run_table.gpu == profiles[0].gpu, (run_table.gpu, profiles[0].gpu)  # a table of that board is bundled
# The recommended what-if and its expected gain: the analysis' own (every report output shows it).
for r, p in zip(records, profiles):
    rec = atomq.analyze(p, run_table)["recommended_what_if"]
    if rec is None:
        assert r["best_what_if"] is None and r["predicted_gain_low"] is None, r
        continue
    assert (r["best_what_if"], r["best_what_if_id"]) == (rec["change"], rec["id"]), (r, rec)
    assert (r["predicted_gain_low"], r["predicted_gain_high"]) == (rec["gain_low"], rec["gain_high"]), (r, rec)
    assert 1.0 <= r["predicted_gain_low"] <= r["predicted_gain_high"], r
assert any(r["best_what_if_id"] == "no_conflicts" for r in records), records
try:
    import pandas
except ImportError:
    pandas = None
if pandas is not None:
    frame = pandas.DataFrame(records)
    assert list(frame["class"]) == [want[k] for k in frame["kernel"]]

# Bad input: one clear error naming the file.
try:
    atomq.read_run(str(recorded / "manifest.json"))
except Exception as e:  # RunDocumentError surfaces as RuntimeError
    assert "manifest.json" in str(e), e
else:
    raise AssertionError("a manifest is not a run document")
print(f"atomq module: {len(records)} kernels evaluated, classes as recorded: ok")

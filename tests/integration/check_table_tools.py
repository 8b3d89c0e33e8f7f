"""Execute the table commands on good and broken files, then validate exit codes and messages."""
import json
import os
import pathlib
import subprocess
import sys

atomq, table_dir, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)


def run(*args):
    return subprocess.run([atomq, *args], capture_output=True, text=True, timeout=60)


tables = sorted(table_dir.glob("*.json"))
for t in tables:
    p = run("table", "validate", str(t))
    assert p.returncode == 0, p.stderr
    p = run("table", "show", str(t))
    assert p.returncode == 0 and "cycles per warp-level" in p.stdout, p.stdout + p.stderr
    if "loads" in json.loads(t.read_text()):  # the load round-trip section, one row per residency and size
        assert "global load round trip" in p.stdout and "dram 32 sectors:" in p.stdout, p.stdout
    out = work / (t.stem + ".csv")
    p = run("table", "csv", str(t), "-o", str(out))
    assert p.returncode == 0, p.stderr
    rows = out.read_text().splitlines()
    assert len(rows) == len(json.loads(t.read_text())["cells"]) + 1
    residuals = work / (t.stem + ".fit.csv")
    p = run("table", "fit", str(t), "--residuals", str(residuals))
    assert p.returncode == 0 and "popc_inc" in p.stdout and "add" in p.stdout, p.stdout + p.stderr
    fit_rows = [r for r in residuals.read_text().splitlines() if not r.startswith("#")]
    assert fit_rows[0].startswith("variant,pattern,n,e,c,k,s_measured,s_fit,relative_residual"), fit_rows[0]
    assert len(fit_rows) == len(rows), (len(fit_rows), len(rows))

# Broken files: one clear line naming the file, exit code 1, never a crash.
missing = work / "does_not_exist.json"
p = run("table", "validate", str(missing))
assert p.returncode == 1 and str(missing) in p.stderr, p.stderr

truncated = work / "truncated.json"
truncated.write_text('{"format": "atomq.service_table", "version": 1, "prov')
p = run("table", "show", str(truncated))
assert p.returncode == 1, p
assert str(truncated) in p.stderr and "not valid JSON" in p.stderr, p.stderr
assert len(p.stderr.strip().splitlines()) == 1, p.stderr

wrong = work / "wrong_version.json"
wrong.write_text(json.dumps({"format": "atomq.service_table", "version": 7}))
p = run("table", "validate", str(wrong))
assert p.returncode == 1 and "'version'" in p.stderr, p.stderr

# A load section with a cell whose median lies outside its own min and max: the field is named.
bad_loads = json.loads(tables[0].read_text())
if "loads" in bad_loads:
    bad_loads["loads"]["cells"][3]["round_trip_ns"] = 1e9
    bad = work / "bad_loads.json"
    bad.write_text(json.dumps(bad_loads))
    p = run("table", "validate", str(bad))
    assert p.returncode == 1 and "loads.cells[3].round_trip_ns" in p.stderr, p.stderr
print("table tools OK on", len(tables), "bundled table(s) and 3 broken files")

# Usage: a device that never ends is refused (not read forever), and output that cannot be
# written (a full disk) is an error, not exit 0.
p = subprocess.run([atomq, "table", "show", "/dev/zero"], capture_output=True, text=True, timeout=60)
assert p.returncode == 1 and "/dev/zero" in p.stderr and "256 MiB" in p.stderr, (p.returncode, p.stderr)
if os.path.exists("/dev/full"):
    with open("/dev/full", "w") as full:
        p = subprocess.run([atomq, "table", "show", str(tables[0])], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert p.returncode != 0 and "cannot write to standard output" in p.stderr, (p.returncode, p.stderr)
print("usage: /dev/zero refused, a failed write to stdout reported")

# Outputs: - is standard output, /dev/null stays a device, an output that is the input is
# refused with the input untouched (it used to be replaced by its CSV).
p = run("table", "csv", str(tables[0]), "-o", "-")
assert p.returncode == 0 and p.stdout.startswith("n,e,c,variant"), p.stderr
assert not (pathlib.Path.cwd() / "-").exists(), "wrote a file named -"
p = run("table", "csv", str(tables[0]), "-o", "/dev/null")
assert p.returncode == 0 and pathlib.Path("/dev/null").is_char_device(), p.stderr
copy = work / "copy.json"
copy.write_bytes(tables[0].read_bytes())
for args in (["csv", str(copy), "-o", str(copy)], ["fit", str(copy), "--residuals", str(work / "." / copy.name)]):
    p = run("table", *args)
    assert p.returncode == 1 and "is also an input" in p.stderr and str(copy) in p.stderr, (args, p.stderr)
    assert copy.read_bytes() == tables[0].read_bytes(), "the input was replaced"
print("outputs: - is stdout, /dev/null kept, output = input refused")
# --residuals - after the printed fit: the CSV follows what was printed before it, in order.
p = run("table", "fit", str(tables[0]), "--residuals", "-")
assert p.returncode == 0 and p.stdout.startswith("S_fit(n, k)"), p.stdout[:200]
assert p.stdout.index("variant,pattern,n,e,c,k,s_measured") > p.stdout.index("max |rel|"), p.stdout[:400]
print("--residuals -: the CSV after the printed fit")

# The CAS retry law (docs/model.md): printed from the bundled table with every sweep point's row;
# a table without the sweep is an error naming why.
gh100 = next(t for t in tables if t.name == "GH100.json")
p = run("table", "retry", str(gh100))
assert p.returncode == 0 and p.stdout.startswith("t(m) = max(L, a(m) S)"), (p.returncode, p.stderr)
rows = [line for line in p.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
assert len(rows) == len(json.loads(gh100.read_text())["l2"]["cas_retry"]), len(rows)
stripped = json.loads(gh100.read_text())
del stripped["l2"]["cas_retry"]
old = work / "no_retry.json"
old.write_text(json.dumps(stripped))
p = run("table", "retry", str(old))
assert p.returncode == 1 and "no CAS retry sweep" in p.stderr and str(old) in p.stderr, (p.returncode, p.stderr)
print("table retry: the law and every point; a table without the sweep refused")

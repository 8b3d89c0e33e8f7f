"""Execute the atomq commands that write documents without a GPU and validate what they wrote
against docs/schemas/ with atomq_schema_check: `atomq analyze --ncu-csv` (a run document with
its profiles and analyses) and `atomq report -o summary.json` on it and on the recorded runs
(the per-kernel export). Then show that the check refuses a broken copy, naming the field."""
import json
import pathlib
import shutil
import subprocess
import sys

atomq, check, schemas, fixtures, recorded, work = sys.argv[1:7]
schemas, fixtures, recorded, work = map(pathlib.Path, (schemas, fixtures, recorded, work))
if work.exists():
    shutil.rmtree(work)
work.mkdir(parents=True)


def run(*argv):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=300)


def schema_check(schema, *files):
    return run(check, schemas / f"{schema}.schema.json", *files)


exports = sorted(fixtures.glob("*.ncu.csv"))
assert exports, f"no ncu exports under {fixtures}"
documents = []
for csv in exports:
    out = work / (csv.stem + ".json")
    p = run(atomq, "analyze", "--ncu-csv", csv, "-o", out)
    assert p.returncode == 0, p.stdout + p.stderr
    documents.append(out)
p = schema_check("run_document", *documents)
assert p.returncode == 0, p.stdout + p.stderr
print(p.stderr.strip())

# The report's per-kernel export, of the recorded runs and of the ncu run against them.
recorded_runs = sorted(p for p in recorded.rglob("*.json") if p.name != "manifest.json")
summaries = [work / "summary-recorded.json", work / "summary-compare.json"]
p = run(atomq, "report", *recorded_runs, "-q", "-o", summaries[0])
assert p.returncode == 0, p.stdout + p.stderr
p = run(atomq, "report", documents[0], "--compare", recorded / "multi_kernel_app.json", "-q", "-o", summaries[1])
assert p.returncode == 0, p.stdout + p.stderr
p = schema_check("kernel_summary", *summaries)
assert p.returncode == 0, p.stdout + p.stderr
print(p.stderr.strip())

# The run document's analyses are written by this build: every kernel has one, with the fields
# added within version 1 (the schema's stricter branch).
run_doc = json.loads(documents[0].read_text())
assert run_doc["kernels"] and all("binding_unit" in k["analysis"] for k in run_doc["kernels"]), run_doc

# A broken copy: the check fails (exit 1) with one line naming the file and the field.
broken = work / "broken.json"
run_doc["kernels"][0]["profile"]["device"]["sm_count"] = "132"
run_doc["kernels"][0]["analysis"]["class"] = "bound"
broken.write_text(json.dumps(run_doc))
p = schema_check("run_document", documents[0], broken)
assert p.returncode == 1, p
lines = p.stdout.strip().splitlines()
assert len(lines) == 1 and lines[0].startswith(f"{broken}: "), p.stdout
assert "/kernels/0/" in lines[0], lines[0]
p = schema_check("run_document", work / "missing.json")
assert p.returncode == 2 and "cannot open" in p.stderr, p
print(f"schemas: {len(documents)} run document(s) of `atomq analyze --ncu-csv` and {len(summaries)} "
      "summary.json of `atomq report` conform; a broken run document is refused")

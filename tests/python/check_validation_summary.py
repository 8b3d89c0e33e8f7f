"""tools/validation_summary.py --reevaluate on the recorded validation runs: the Python module
evaluates every recorded profile again with the current model, and the verdicts it prints agree
with tests/fixtures/validation/expectations.json (the ones validation_runs_test.cpp checks).
usage: check_validation_summary.py REPO MODULE_DIR OUT_JSON"""
import json
import subprocess
import sys

repo, module_dir, out = sys.argv[1:4]
runs = f"{repo}/tests/fixtures/validation"
subprocess.run([sys.executable, f"{repo}/tools/validation_summary.py", runs, "--reevaluate", module_dir,
                "--json", out], check=True, stdout=subprocess.DEVNULL)
rows = json.load(open(out))["rows"]
expected = json.load(open(f"{runs}/expectations.json"))["cases"]
checked = 0
for r in rows:
    e = expected.get(r["case"], {}).get(r["variant"])
    if e is None:
        continue
    agree = r["ground_truth_bound"] == r["model_bound"]
    assert agree == e["agree"], (r["case"], r["variant"], "agree", agree)
    if "fix_inside" in e:
        assert r["fix_inside"] == e["fix_inside"], (r["case"], r["variant"], "fix_inside", r["fix_inside"])
    checked += 1
assert checked == sum(len(v) for v in expected.values()), checked
print(f"{checked} verdicts as expected")

# The live H200 summary read back with --first-suite: the suite of 2026-12-02 is 30 kernels and 13
# fixes (docs/validation.md quotes its figures from this command).
live = f"{repo}/tests/fixtures/live_runs/2026-12-06-h200/summary.json"
subprocess.run([sys.executable, f"{repo}/tools/validation_summary.py", live, "--first-suite", "--json", out],
               check=True, stdout=subprocess.DEVNULL)
first = json.load(open(out))["summary"]
assert first["class_agrees"][1] == 30 and first["fix_inside_interval"][1] == 13, first
# The figures docs/validation.md ("Live on the H200") and the closing note quote.
assert first["class_agrees"][0] == 30 and first["fix_inside_interval"][0] == 12, first
print(f"first suite: class {first['class_agrees']}, fix inside {first['fix_inside_interval']}")

"""tools/held_out.py on baselines cut from the recorded validation runs: the predictions a model
version makes are reproduced by that version, a tampered prediction or a result measured by
another model version fails the check, and a fix or ablation among the baselines is refused.
usage: check_held_out.py REPO MODULE_DIR WORK_DIR"""
import glob
import json
import os
import shutil
import subprocess
import sys

repo, module_dir, work = sys.argv[1:4]
tool = os.path.join(repo, "tools", "held_out.py")
runs = os.path.join(repo, "tests", "fixtures", "validation")
cases = ["hash_build_load90_skewed", "cas_product_one_address", "particle_binning_clustered"]
sys.path.insert(0, module_dir)
import atomq  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
baselines, results = os.path.join(work, "baselines"), os.path.join(work, "results")
os.makedirs(baselines)
os.makedirs(results)


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


for case in cases:
    timings, run = load(f"{runs}/{case}.timings.json"), load(f"{runs}/{case}.json")
    keep = {v["name"] for v in timings["variants"] if v["role"] in ("baseline", "sweep_point")}
    base_t = dict(timings, variants=[v for v in timings["variants"] if v["name"] in keep])
    base_r = dict(run, kernels=[k for k in run["kernels"]
                                if k["profile"]["source"]["detail"].split("--variant ")[-1] in keep])
    save(f"{baselines}/{case}.timings.json", base_t)
    save(f"{baselines}/{case}.json", base_r)
    save(f"{results}/{case}.timings.json", dict(timings, atomq_model_version=atomq.model_version))
    save(f"{results}/{case}.json", run)


def tool_run(*args, ok=True):
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    if (r.returncode == 0) != ok:
        raise SystemExit(f"held_out.py {' '.join(args)}: exit {r.returncode}, expected {'0' if ok else 'non-zero'}\n"
                         f"{r.stdout}{r.stderr}")
    return r.stdout + r.stderr


predictions = os.path.join(work, "predictions.json")
tool_run("predict", baselines, module_dir, "-o", predictions)
doc = load(predictions)
assert doc["model_version"] == atomq.model_version, doc["model_version"]
# Without a table of their own, the bundled table of the GPU the baselines ran on: the table the
# validation expectations were re-evaluated with.
device = load(f"{runs}/{cases[0]}.json")["kernels"][0]["profile"]["device"]
gpu_table = atomq.bundled_table_for(os.path.join(repo, "calibration", "tables"), device["chip"], device["name"])
assert gpu_table, device
assert os.path.basename(doc["table"]) == os.path.basename(gpu_table), doc["table"]
# A table calibrated with the baselines (BASELINES/table.json) is the one they are predicted with.
shutil.copy(gpu_table, os.path.join(baselines, "table.json"))
tool_run("predict", baselines, module_dir, "-o", predictions)
doc = load(predictions)
assert doc["table"] == os.path.join("baselines", "table.json"), doc["table"]
assert set(doc["cases"]) == set(cases), doc["cases"].keys()
print(tool_run("check", predictions, module_dir, "--results", results))

# Scored on the recorded fixes and ablations: the same class verdicts as the validation summary.
score_json = os.path.join(work, "score.json")
tool_run("score", predictions, results, "--json", score_json)
summary = load(score_json)["summary"]
assert summary["class_agrees"][1] == sum(1 for c in cases for v in load(f"{runs}/{c}.timings.json")["variants"]
                                         if v["role"] == "ablation"), summary
expected = load(f"{runs}/expectations.json")["cases"]
assert summary["class_agrees"][0] == sum(e["agree"] for c in cases for e in expected[c].values()), summary
assert summary["fix_inside_interval"][0] == sum(e.get("fix_inside", False) for c in cases for e in expected[c].values()), summary

# A result measured by another model version fails the check.
other = load(f"{results}/{cases[0]}.timings.json")
save(f"{results}/{cases[0]}.timings.json", dict(other, atomq_model_version="0000000000000000"))
assert "model changed" in tool_run("check", predictions, module_dir, "--results", results, ok=False)
# A prediction edited after the fact fails it.
variant = next(iter(doc["cases"][cases[1]]))
doc["cases"][cases[1]][variant]["class"] = "not_atomic_bound" if doc["cases"][cases[1]][variant]["class"] != "not_atomic_bound" else "severe"
save(predictions, doc)
assert "differ" in tool_run("check", predictions, module_dir, ok=False)
# Predictions are refused once a fix or an ablation has run.
shutil.copy(f"{runs}/{cases[0]}.timings.json", f"{baselines}/{cases[0]}.timings.json")
assert "before any fix" in tool_run("predict", baselines, module_dir, "-o", predictions, ok=False)
# Every committed round: its predictions checked against its baselines and results.
rounds = sorted(glob.glob(os.path.join(repo, "tests", "fixtures", "held_out", "*", "predictions.json")))
for committed in rounds:
    results_dir = os.path.join(os.path.dirname(committed), "results")
    args = ["--results", results_dir] if os.path.isdir(results_dir) else []
    print(tool_run("check", committed, module_dir, *args))
    # The committed score (quoted in docs/validation.md) is what the tool makes of the committed files.
    score_md = os.path.join(os.path.dirname(committed), "score.md")
    if os.path.isfile(score_md):
        regenerated = os.path.join(work, "committed_score.md")
        tool_run("score", committed, results_dir, "--markdown", regenerated)
        with open(score_md) as a, open(regenerated) as b:
            assert a.read() == b.read(), f"{score_md} is not what `held_out.py score` makes of the committed round"
# The whole held-out set (docs/validation.md quotes it): a line per measured round, its rows the
# rounds' own scored rows together.
measured = [r for r in rounds if os.path.isdir(os.path.join(os.path.dirname(r), "results"))]
table = tool_run("score-all", os.path.join(repo, "tests", "fixtures", "held_out"))
round_lines = [l for l in table.splitlines() if l.startswith("| round") and not l.startswith("| round |")]
assert len(round_lines) == len(measured), table
all_line = next(l for l in table.splitlines() if l.startswith("| **all** |"))


def of(cell):  # "7 of 8" -> (7, 8)
    got, total = cell.strip().strip("*").split(" of ")
    return int(got), int(total)


# The whole set's class and fix counts are the rounds' counts added up.
cells = [[c for c in l.split("|")[1:-1]] for l in round_lines]
total = [c for c in all_line.split("|")[1:-1]]
for column in (2, 4):  # class, fix inside
    want = [sum(of(r[column])[k] for r in cells) for k in (0, 1)]
    assert list(of(total[column])) == want, (column, want, all_line)
assert "no round" in tool_run("score-all", work, ok=False)
# The second figure: the same rounds predicted again by this build's model, labelled as such.
again = tool_run("score-all", os.path.join(repo, "tests", "fixtures", "held_out"), "--reevaluate", module_dir)
assert f"Re-evaluated by model version {atomq.model_version}" in again, again
assert len([l for l in again.splitlines() if l.startswith("| round") and not l.startswith("| round |")]) == len(measured)
print(f"held-out protocol checks passed ({len(rounds)} committed rounds checked)")

#!/usr/bin/env python3
"""Held-out protocol (docs/validation.md, "Held-out protocol"): predictions written from the
baselines' recordings before any fix or ablation is measured, then scored against the
measurements, with the model's version on both sides.

  held_out.py predict BASELINES MODULE_DIR -o PREDICTIONS [--table TABLE]
      BASELINES: a folder of `atomq validate --case C --variant B ...` outputs (C.json, C.timings.json)
      holding only baselines. The table: --table, else BASELINES/table.json where the baselines'
      GPU was calibrated with them (`CALIBRATE=1 tools/held_out_run.sh`), else the bundled one.
      Writes, per baseline: class, binding unit, the recommended what-if with its interval, every
      what-if's interval by id, the predicted kernel time, and the model version of the module
      that evaluated them.
  held_out.py check PREDICTIONS MODULE_DIR [--results RESULTS]
      The CPU check: the predictions are what their model version gives on their recordings (when
      this module is that version), and the results were measured by a build of the same version.
  held_out.py score-all FOLDER [--reevaluate MODULE_DIR]
      Every round of FOLDER (tests/fixtures/held_out) with its results, scored as committed: one
      line per round and one for the whole held-out set; with --reevaluate, the rounds' baselines
      predicted again by that module's model (a second figure, not a held-out one).
  held_out.py score PREDICTIONS RESULTS [--markdown FILE] [--json FILE]
      RESULTS: the `atomq validate` outputs with the fixes and ablations. Class against the
      ablation, the fix inside the interval of its what-if, median high/low, fix time error; beside
      the trivial classifiers. The predictions are never re-evaluated here: they count as committed.
"""
import argparse
import glob
import hashlib
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validation_summary as vs  # noqa: E402

FORMAT = "atomq.held_out_predictions"


def fail(msg):
    raise SystemExit(f"held_out: {msg}")


def runs_in(folder):
    """(case, timings, run path, run) of every case in an `atomq validate` output folder."""
    out = []
    for tpath in sorted(glob.glob(os.path.join(folder, "*.timings.json"))):
        timings = vs.load(tpath)
        if timings.get("format") != "atomq.validation_timings":
            continue
        rpath = tpath[: -len(".timings.json")] + ".json"
        if not os.path.exists(rpath):
            fail(f"{tpath}: no run document {rpath} beside it")
        out.append((timings["case"], timings, rpath, vs.load(rpath)))
    if not out:
        fail(f"{folder}: no atomq.validation_timings documents")
    return out


def rounded(x):
    return None if x is None else float(f"{x:.6g}")


def prediction(analysis):
    """What the analysis commits to for one baseline."""
    what_ifs = {}
    for f in analysis.get("findings", []):
        for w in f.get("what_ifs", []):
            iv = w.get("interval") or {}
            if "id" not in w or not iv.get("evaluated"):
                continue
            old = what_ifs.get(w["id"])
            if old is None or iv["high"] > old[1]:  # the largest, as the validation summary takes it
                what_ifs[w["id"]] = [rounded(iv["low"]), rounded(iv["high"])]
    rec = analysis.get("recommended_what_if") or {}
    return {"class": analysis.get("class"),
            "binding_unit": analysis.get("binding_unit"),
            "largest_floor_bound": (analysis.get("time") or {}).get("bound_by") == "atomic units",
            "predicted_time_ns": rounded(vs.predicted_bound_time_ns(analysis)),
            "recommended": None if not rec else {"id": rec.get("id"), "gain_low": rounded(rec.get("gain_low")),
                                                 "gain_high": rounded(rec.get("gain_high"))},
            "what_ifs": what_ifs}


def baselines_gpu_table(atomq, baselines):
    """The bundled table of the GPU the baselines ran on (the first profile that names its device),
    else the GH100 table."""
    for _, _, _, run in runs_in(baselines):
        for k in run.get("kernels", []):
            device = k.get("profile", {}).get("device") or {}
            if device.get("chip") or device.get("name"):
                return vs.bundled_table_path(atomq, device.get("chip", ""), device.get("name", ""))
    return vs.BUNDLED_TABLE


def predict_all(baselines, module_dir, table_path=None):
    """Table: the one given, else the bundled table of the baselines' GPU."""
    sys.path.insert(0, os.path.abspath(module_dir))
    import atomq  # noqa: E402 (the module of the build named on the command line)
    table_path = table_path or baselines_gpu_table(atomq, baselines)
    table = atomq.load_table(os.path.abspath(table_path))
    cases = {}
    for case, timings, rpath, run in runs_in(baselines):
        roles = {v["name"]: v["role"] for v in timings["variants"]}
        if any(r not in ("baseline", "sweep_point") for r in roles.values()):
            fail(f"{case}: the baselines' folder holds a {sorted(set(roles.values()))} variant: predictions are "
                 "made before any fix or ablation runs")
        analyses = [atomq.analyze(p, table) for p in atomq.read_profiles(rpath)]
        for name, (profile, analysis) in vs.kernel_entries(run, analyses).items():
            p = prediction(analysis)
            p["measured_time_ns"] = rounded((analysis.get("inputs") or {}).get("duration_ns")
                                            or profile["counters"].get("gpu__time_duration.sum"))
            p["recording"] = os.path.basename(rpath)
            cases.setdefault(case, {})[name] = p
    with open(table_path, "rb") as f:
        table_sha256 = hashlib.sha256(f.read()).hexdigest()
    return {"format": FORMAT, "version": 1, "model_version": atomq.model_version,
            "table": os.path.abspath(table_path), "table_sha256": table_sha256, "cases": cases}


def check(predictions_path, module_dir, results):
    doc = vs.load(predictions_path)
    if doc.get("format") != FORMAT:
        fail(f"{predictions_path}: format is not {FORMAT}")
    sys.path.insert(0, os.path.abspath(module_dir))
    import atomq  # noqa: E402
    lines = [f"{predictions_path}: model version {doc['model_version']}"]
    if results:
        for case, timings, _, _ in runs_in(results):
            got = timings.get("atomq_model_version")
            if got != doc["model_version"]:
                fail(f"{case}: measured by model version {got}, predicted by {doc['model_version']}: the model "
                     "changed between the predictions and the results")
        lines.append(f"results in {results}: the same model version")
    if atomq.model_version == doc["model_version"]:
        here = os.path.dirname(os.path.abspath(predictions_path))
        baselines = os.path.join(here, doc.get("baselines", "baselines"))
        table = os.path.join(here, doc["table"])
        again = predict_all(baselines, module_dir, table)
        if again["table_sha256"] != doc["table_sha256"]:
            fail(f"{predictions_path}: the table {table} is not the one the predictions used (SHA-256 differs)")
        if again["cases"] != doc["cases"]:
            fail(f"{predictions_path}: this build is model version {atomq.model_version}, the stored one, but its "
                 "predictions on the stored recordings differ from the committed ones")
        lines.append("this build is that version and makes the same predictions on the stored recordings")
    else:
        lines.append(f"this build is model version {atomq.model_version}: the model changed after the predictions, "
                     "which count as committed")
    print("\n".join(lines))


def score(doc, results):
    rows = []
    for case, timings, _, _ in runs_in(results):
        for v in timings["variants"]:
            if v["role"] not in ("baseline", "sweep_point"):
                continue
            p = doc["cases"].get(case, {}).get(v["name"])
            if p is None:
                fail(f"{case}/{v['name']}: measured but never predicted")
            row = {"case": case, "variant": v["name"], "class": p["class"], "binding_unit": p["binding_unit"]}
            ablation = next((a for a in timings["variants"] if a["role"] == "ablation" and a["compared_with"] == v["name"]), None)
            fix = next((f for f in timings["variants"] if f["role"] == "fix" and f["compared_with"] == v["name"]), None)
            if ablation and ablation["median_ms"] > 0:
                row["truth_bound"] = v["median_ms"] / ablation["median_ms"] >= vs.ATOMIC_BOUND_GAIN
                row["model_bound"] = p["class"] in vs.BOUND_CLASSES
                row["largest_floor_bound"] = p["largest_floor_bound"]
            if fix and fix["median_ms"] > 0:
                row["fix_gain"] = v["median_ms"] / fix["median_ms"]
                ivs = [p["what_ifs"][i] for i in fix.get("predicted_by_ids", []) if i in p["what_ifs"]]
                iv = max(ivs, key=lambda x: x[1]) if ivs else None
                row["interval"] = iv
                row["fix_inside"] = bool(iv) and iv[0] <= row["fix_gain"] <= iv[1]
                # A fix without a what-if is a miss: no predicted time (null), counted as an infinite error.
                row["fix_time_error"] = abs(row["fix_gain"] / math.sqrt(iv[0] * iv[1]) - 1.0) if iv else None
            rec = p["recommended"]
            if v["role"] == "baseline" and rec and rec["gain_low"] and rec["gain_high"]:
                row["recommended_ratio"] = p["recommended"]["gain_high"] / p["recommended"]["gain_low"]
            rows.append(row)
    return rows, summarize(rows)


def summarize(rows):
    """The held-out figures of scored rows (one round's, or every round's together)."""
    judged = [r for r in rows if "truth_bound" in r]
    fixes = rows_with_fix(rows)
    ratios = [r["recommended_ratio"] for r in rows if "recommended_ratio" in r]
    errors = [math.inf if r["fix_time_error"] is None else r["fix_time_error"] for r in fixes]
    summary = {
        "class_agrees": [sum(r["truth_bound"] == r["model_bound"] for r in judged), len(judged)],
        "always_bound_agrees": [sum(r["truth_bound"] for r in judged), len(judged)],
        "largest_floor_agrees": [sum(r["truth_bound"] == r["largest_floor_bound"] for r in judged), len(judged)],
        "fix_inside_interval": [sum(r["fix_inside"] for r in fixes), len(fixes)],
        "recommended_high_low_median": statistics.median(ratios) if ratios else None,
        # null without fixes, or where at least half have no what-if (no finite median)
        "fix_time_error_median": finite_median(errors),
        "fixes_without_what_if": sum(r["fix_time_error"] is None for r in fixes),
    }
    return summary


def score_all(folder, module_dir=None):
    """Every committed round under FOLDER (ROUND/predictions.json with ROUND/results/), scored as
    committed: per round and over the whole held-out set. With MODULE_DIR, the rounds' baselines
    are predicted again by that build's model (with each round's own table) and scored instead:
    the second figure the protocol asks for once the model has changed after a round's results."""
    per_round, everything, model_version = [], [], None
    for committed in sorted(glob.glob(os.path.join(folder, "*", "predictions.json")), key=round_order):
        round_dir = os.path.dirname(committed)
        results = os.path.join(round_dir, "results")
        if not os.path.isdir(results):
            continue  # predicted, not yet measured
        doc = vs.load(committed)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("cases"), dict):
            fail(f"{committed}: not a {FORMAT} document with its cases")
        if module_dir:
            doc = predict_all(os.path.join(round_dir, doc["baselines"]), module_dir,
                              os.path.join(round_dir, doc["table"]))
            model_version = doc["model_version"]
        rows, summary = score(doc, results)
        gpu = ", ".join(sorted({t.get("device", "-") for _, t, _, _ in runs_in(results)})) or "-"
        per_round.append((os.path.basename(round_dir), gpu, summary))
        everything += rows
    if not per_round:
        fail(f"{folder}: no round with predictions.json and results/")
    return per_round, summarize(everything), model_version


def round_order(path):
    """Sort key of ROUND/predictions.json: round10 after round9."""
    name = os.path.basename(os.path.dirname(path))
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else -1, name)


def summary_cells(s):
    err = s["fix_time_error_median"]
    hl = s["recommended_high_low_median"]
    return [f"{s['class_agrees'][0]} of {s['class_agrees'][1]}",
            f"{s['always_bound_agrees'][0]} / {s['largest_floor_agrees'][0]}",
            f"{s['fix_inside_interval'][0]} of {s['fix_inside_interval'][1]}",
            "-" if hl is None else f"{hl:.2f}",
            "no finite median" if err is None else f"{100 * err:.1f}%"]


def markdown_all(per_round, total):
    lines = ["| round | GPU (results) | class | trivial: always / largest floor | fix inside | rec. high/low | fix time error |",
             "|---|---|---|---|---|---|---|"]
    for name, gpu, s in per_round:
        lines.append("| " + " | ".join([name, gpu] + summary_cells(s)) + " |")
    lines.append("| **all** | | " + " | ".join(f"**{c}**" for c in summary_cells(total)) + " |")
    return "\n".join(lines) + "\n"


def finite_median(values):
    median = statistics.median(values) if values else math.inf
    return median if median < math.inf else None


def rows_with_fix(rows):
    return [r for r in rows if "fix_inside" in r]


def markdown(doc, rows, summary):
    lines = [f"Predictions: model version {doc['model_version']}.", "",
             "| case | variant | class | binding | fix gain | interval | inside |", "|---|---|---|---|---:|---|---|"]
    for r in rows:
        iv = r.get("interval")
        lines.append("| {} | {} | {} | {} | {} | {} | {} |".format(
            r["case"], r["variant"], r["class"], r["binding_unit"], vs.fmt_gain(r.get("fix_gain")),
            "-" if not iv else f"{iv[0]:.2f}x-{iv[1]:.2f}x", {True: "yes", False: "NO"}.get(r.get("fix_inside"), "-")))
    s = summary
    err = s["fix_time_error_median"]
    lines += ["",
              f"- class agrees with the ablation: {s['class_agrees'][0]} of {s['class_agrees'][1]} (always "
              f"atomic-bound {s['always_bound_agrees'][0]}, the largest floor {s['largest_floor_agrees'][0]})",
              f"- fix inside its predicted interval: {s['fix_inside_interval'][0]} of {s['fix_inside_interval'][1]}",
              "- recommended what-ifs' median high/low: " +
              ("-" if s["recommended_high_low_median"] is None else f"{s['recommended_high_low_median']:.2f}"),
              "- fix time, median |predicted - measured| / measured: " +
              ("-" if not s["fix_inside_interval"][1] else
               ("no finite median" if err is None else f"{100 * err:.1f}%") +
               f" over {s['fix_inside_interval'][1]} fixes ({s['fixes_without_what_if']} without a what-if, each a miss)")]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("predict")
    p.add_argument("baselines")
    p.add_argument("module_dir")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--table", help="service-time table (default: BASELINES/table.json, else the bundled one)")
    c = sub.add_parser("check")
    c.add_argument("predictions")
    c.add_argument("module_dir")
    c.add_argument("--results")
    s = sub.add_parser("score")
    s.add_argument("predictions")
    s.add_argument("results")
    s.add_argument("--markdown")
    s.add_argument("--json")
    sa = sub.add_parser("score-all", help="every committed round of FOLDER, per round and together")
    sa.add_argument("folder")
    sa.add_argument("--reevaluate", metavar="MODULE_DIR",
                    help="predict every round again with the atomq module in this folder (BUILD/python)")
    a = ap.parse_args()
    if a.command == "predict":
        own = os.path.join(a.baselines, "table.json")
        table = a.table or (own if os.path.exists(own) else None)
        doc = predict_all(a.baselines, a.module_dir, table)
        # Paths relative to the predictions, so a clone elsewhere checks them.
        here = os.path.dirname(os.path.abspath(a.output))
        doc["baselines"] = os.path.relpath(os.path.abspath(a.baselines), here)
        doc["table"] = os.path.relpath(doc["table"], here)
        tmp = a.output + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, a.output)
        print(f"{a.output}: {sum(len(v) for v in doc['cases'].values())} baselines predicted by model version "
              f"{doc['model_version']}")
    elif a.command == "check":
        check(a.predictions, a.module_dir, a.results)
    elif a.command == "score-all":
        per_round, total, model_version = score_all(a.folder, a.reevaluate)
        if model_version:
            sys.stdout.write(f"Re-evaluated by model version {model_version} (not the committed predictions).\n\n")
        sys.stdout.write(markdown_all(per_round, total))
    else:
        doc = vs.load(a.predictions)
        rows, summary = score(doc, a.results)
        md = markdown(doc, rows, summary)
        if a.markdown:
            open(a.markdown, "w").write(md)
        if a.json:
            open(a.json, "w").write(json.dumps({"rows": rows, "summary": summary}, indent=1) + "\n")
        sys.stdout.write(md)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Summarizes a validation run (tools/validation_run.sh OUT): per case the baseline's class, the
ground truth from the ablation (atomic-bound when removing the atomics or the conflict pays
>= 1.25x), the predicted gain interval of the baseline's what-if that names the fix's change
(the timings' predicted_by_ids) against the fix's measured gain, and the predicted against the measured time of atomic-bound kernels.

usage: validation_summary.py OUT [--reevaluate BUILD/python [--table TABLE]] [--markdown FILE]
                             [--json FILE] [--expectations FILE --provenance TEXT]
Reads OUT/CASE.json (run document) and OUT/CASE.timings.json for every case found in OUT.
Without --reevaluate it reads the analyses stored in the run documents (the model of the run);
with it, the atomq Python module found in that folder evaluates every recorded profile again with
the current model and TABLE (default: the bundled GH100 table of this checkout), so a model change
shows its effect on recorded runs without a GPU.
"""
import argparse
import glob
import json
import os
import statistics
import sys

ATOMIC_BOUND_GAIN = 1.25
TABLE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "calibration", "tables")
BUNDLED_TABLE = os.path.join(TABLE_DIR, "GH100.json")


def bundled_table_path(atomq, chip, gpu):
    """The table of the source tree's calibration/tables a profile of that GPU is evaluated with,
    chosen by the model's own rule (atomq.bundled_table_for), else the GH100 table."""
    return atomq.bundled_table_for(TABLE_DIR, chip, gpu) or BUNDLED_TABLE


class Tables:
    """The table given, else each profile's bundled one (bundled_table_path), each loaded once."""

    def __init__(self, atomq, path=None):
        self.atomq, self.path, self.loaded = atomq, path, {}

    def for_profile(self, p):
        path = os.path.abspath(self.path or bundled_table_path(self.atomq, p.chip, p.gpu))
        if path not in self.loaded:
            self.loaded[path] = self.atomq.load_table(path)
        return self.loaded[path]


BOUND_CLASSES = ("severe", "potential")


def load(path):
    """A JSON document, or one line naming the file and what is wrong with it (exit 1)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: {e}")


class Reevaluator:
    """The current model, through the atomq Python module: analyses of a run document's profiles."""

    def __init__(self, module_dir, table_path, terms_off=()):
        sys.path.insert(0, os.path.abspath(module_dir))
        import atomq  # noqa: E402 (the module of the build named on the command line)
        self.atomq = atomq
        self.tables = Tables(atomq, table_path)
        self.rules = {"terms_off": list(terms_off)} if terms_off else None

    def analyses(self, run_path, run):
        profiles = self.atomq.read_profiles(run_path)
        if len(profiles) != len(run["kernels"]):
            raise SystemExit(f"{run_path}: {len(profiles)} profiles read, {len(run['kernels'])} kernels in the document")
        out = []
        for p, k in zip(profiles, run["kernels"]):
            if p.kernel_name != k["profile"]["kernel"]["name"]:
                raise SystemExit(f"{run_path}: profile order differs ({p.kernel_name})")
            out.append(self.atomq.analyze(p, self.tables.for_profile(p), self.rules))
        return out


def kernel_entries(run, analyses=None):
    """variant name -> (profile, analysis), from each profile's source detail; the analyses are
    the stored ones unless `analyses` (one per kernel, in order) replaces them."""
    out = {}
    for i, k in enumerate(run["kernels"]):
        detail = k["profile"]["source"]["detail"]
        variant = detail.split("--variant ")[-1].strip()
        out[variant] = (k["profile"], analyses[i] if analyses is not None else k.get("analysis", {}))
    return out


def predicts(fix, what_if):
    """Whether the what-if predicts the fix: its id among the fix's predicted_by_ids. Documents
    recorded before the ids (timings with a predicted_by word, analyses whose what-ifs lack an
    id) are matched the old way, on a word of the what-if's change text; only those."""
    if "predicted_by_ids" in fix and "id" in what_if:
        return what_if["id"] in fix["predicted_by_ids"]
    word = fix.get("predicted_by", "")
    return bool(word) and word in what_if["change"]


def best_interval(analysis, fix=None):
    """The what-if with the largest gain; with `fix` (its timings entry), among those that predict it."""
    best = None
    for f in analysis.get("findings", []):
        for w in f.get("what_ifs", []):
            iv = w.get("interval") or {}
            if fix is not None and not predicts(fix, w):
                continue
            if iv.get("evaluated") and (best is None or iv["high"] > best[1]["high"]):
                best = (w["change"], iv)
    return best


def predicted_bound_time_ns(analysis):
    """The kernel's predicted time: the analysis' largest floor where it has one (docs/model.md)."""
    if (analysis.get("time") or {}).get("predicted_ns"):
        return analysis["time"]["predicted_ns"]
    seq = analysis.get("units_in_sequence") or {}
    if seq.get("sets_class"):
        return seq.get("atomic_bound_time_ns")
    if analysis.get("binding_unit") == "l2_atomic_unit":
        return (analysis.get("l2") or {}).get("atomic_bound_time_ns")
    return (analysis.get("utilization") or {}).get("atomic_bound_time_ns")


def case_rows(timings, run, analyses=None):
    kernels = kernel_entries(run, analyses) if run else {}
    rows = []
    for v in timings["variants"]:
        if v["role"] not in ("baseline", "sweep_point"):
            continue
        name = v["name"]
        row = {"case": timings["case"], "variant": name, "time_ms": v["median_ms"], "exact": v["exact"]}
        ablation = next((a for a in timings["variants"] if a["role"] == "ablation" and a["compared_with"] == name), None)
        fix = next((f for f in timings["variants"] if f["role"] == "fix" and f["compared_with"] == name), None)
        if ablation and ablation["median_ms"] > 0:
            row["ablation"] = ablation["name"]
            row["ablation_gain"] = v["median_ms"] / ablation["median_ms"]
            row["ground_truth_bound"] = row["ablation_gain"] >= ATOMIC_BOUND_GAIN
        if fix and fix["median_ms"] > 0:
            row["fix"] = fix["name"]
            row["fix_gain"] = v["median_ms"] / fix["median_ms"]
            row["fix_exact"] = fix["exact"]
        profile, analysis = kernels.get(name, (None, {}))
        if analysis:
            row["class"] = analysis.get("class")
            row["binding_unit"] = analysis.get("binding_unit")
            row["u_shared"] = (analysis.get("utilization") or {}).get("mean")
            row["u_l2"] = (analysis.get("l2") or {}).get("utilization")
            latency = (analysis.get("l2") or {}).get("latency") or {}
            if latency.get("evaluated"):  # U_round_trip: the warps' exposed wait on returning atomics
                row["u_round_trip"] = latency.get("utilization")
            row["model_bound"] = row["class"] in BOUND_CLASSES
            # The trivial classifier beside the model: bound where the atomic floor is the largest
            # of the model's floors (time.bound_by), whatever its share of the time.
            row["largest_floor_bound"] = (analysis.get("time") or {}).get("bound_by") == "atomic units"
            # The fix's own what-if (the one naming its change); without a fix, the best one.
            best = best_interval(analysis, fix)
            if best:
                row["what_if"], iv = best
                row["interval"] = [iv["low"], iv["high"]]
            if "fix_gain" in row:  # a fix the model has no what-if for counts as a miss
                row["fix_inside"] = bool(best) and best[1]["low"] <= row["fix_gain"] <= best[1]["high"]
            # The analysis' recommended what-if (every report output shows it): its two ends.
            rec = analysis.get("recommended_what_if")
            if v["role"] == "baseline" and rec and rec.get("gain_low") and rec.get("gain_high"):
                row["recommended"] = [rec["gain_low"], rec["gain_high"]]
            t_pred = predicted_bound_time_ns(analysis)
            t_meas = (analysis.get("inputs") or {}).get("duration_ns") or profile["counters"].get("gpu__time_duration.sum")
            if t_pred and t_meas:
                row["predicted_time_ns"], row["measured_time_ns"] = t_pred, t_meas
            # The L2 slice's busy counter at the occupancy cap: its bound time is the kernel's by construction.
            l2 = analysis.get("l2") or {}
            row["at_occupancy_cap"] = (row["binding_unit"] == "l2_atomic_unit" and
                                       l2.get("utilization_basis") == "busy_counter" and
                                       (l2.get("utilization") or 0) >= 1.0)
        rows.append(row)
    return rows


def fmt_gain(x):
    return "-" if x is None else f"{x:.2f}x"


def markdown(rows, device):
    lines = [f"Device: {device}", "",
             "| case | variant | time (ms) | class (model) | U shared / L2 / round trip | ablation gain | atomic-bound (truth) | agree | fix | fix gain | predicted interval | inside |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        agree = "-" if "ground_truth_bound" not in r or "model_bound" not in r else (
            "yes" if r["ground_truth_bound"] == r["model_bound"] else "NO")
        iv = r.get("interval")
        us = r.get("u_shared")
        ul = r.get("u_l2")
        ur = r.get("u_round_trip")
        lines.append("| {} | {} | {:.4f} | {} | {} / {} / {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["case"], r["variant"], r["time_ms"], r.get("class", "-"),
            "-" if us is None else f"{100 * us:.0f}%", "-" if ul is None else f"{100 * ul:.0f}%",
            "-" if ur is None else f"{100 * ur:.0f}%", fmt_gain(r.get("ablation_gain")), {True: "yes", False: "no"}.get(r.get("ground_truth_bound"), "-"), agree,
            r.get("fix", "-"), fmt_gain(r.get("fix_gain")),
            "-" if not iv else f"{iv[0]:.2f}x to {iv[1]:.2f}x ({r['what_if']})",
            {True: "yes", False: "NO"}.get(r.get("fix_inside"), "-")))
    return "\n".join(lines) + "\n"


def summary_lines(rows):
    judged = [r for r in rows if "ground_truth_bound" in r and "model_bound" in r]
    agree = sum(r["ground_truth_bound"] == r["model_bound"] for r in judged)
    fixes = [r for r in rows if "fix_inside" in r]
    inside = sum(r["fix_inside"] for r in fixes)
    errors = [abs(r["predicted_time_ns"] - r["measured_time_ns"]) / r["measured_time_ns"]
              for r in rows if r.get("model_bound") and r.get("ground_truth_bound") and "predicted_time_ns" in r]
    uncapped = [abs(r["predicted_time_ns"] - r["measured_time_ns"]) / r["measured_time_ns"]
                for r in rows if r.get("model_bound") and r.get("ground_truth_bound") and "predicted_time_ns" in r
                and not r.get("at_occupancy_cap")]
    out = {"class_agrees": [agree, len(judged)], "fix_inside_interval": [inside, len(fixes)],
           "bound_time_error_median": statistics.median(errors) if errors else None,
           "bound_time_error_count": len(errors),
           "bound_time_error_median_below_cap": statistics.median(uncapped) if uncapped else None,
           "bound_time_error_count_below_cap": len(uncapped)}
    always = sum(r["ground_truth_bound"] for r in judged)
    floor_judged = [r for r in judged if "largest_floor_bound" in r]
    floor = sum(r["ground_truth_bound"] == r["largest_floor_bound"] for r in floor_judged)
    # The fix's predicted time: the baseline's time over the interval's geometric middle; a fix
    # the model has no what-if for counts as missed by any margin.
    fix_errors = [abs(r["fix_gain"] / (r["interval"][0] * r["interval"][1]) ** 0.5 - 1.0) if "interval" in r
                  else float("inf") for r in fixes]
    out["fix_time_error_median"] = statistics.median(fix_errors) if fix_errors else None
    if out["fix_time_error_median"] == float("inf"):
        out["fix_time_error_median"] = None  # JSON has no infinity: null, and the text says why
    out["fix_time_error_count"] = len(fix_errors)
    recommended = [r["recommended"] for r in rows if "recommended" in r]
    ratios = [high / low for low, high in recommended]
    at_one = sum(low <= 1.0005 for low, _ in recommended)
    out["recommended_high_low_median"] = statistics.median(ratios) if ratios else None
    out["recommended_low_at_one"] = [at_one, len(recommended)]
    out["always_bound_agrees"] = [always, len(judged)]
    out["largest_floor_agrees"] = [floor, len(floor_judged)]
    text = [f"- class agrees with the ablation ground truth: {agree} of {len(judged)} (trivial classifiers: "
            f"\"always atomic-bound\" {always} of {len(judged)}, \"bound where the atomic floor is the largest of "
            f"the model's floors\" {floor} of {len(floor_judged)})",
            f"- fix's measured gain inside its predicted interval: {inside} of {len(fixes)}",
            "- fix time, median |predicted - measured| / measured (predicted: the baseline's time over the "
            "interval's geometric middle; a fix without a what-if counts as a miss): " +
            ("-" if not fix_errors else
             f"{fmt_error(statistics.median(fix_errors))} over {len(fix_errors)} fixes "
             f"({sum(e == float('inf') for e in fix_errors)} without a what-if)"),
            "- the baselines' recommended what-ifs: median high/low " +
            ("-" if not ratios else f"{out['recommended_high_low_median']:.2f} over {len(ratios)}, low end 1.00x in "
             f"{at_one} of {len(ratios)}"),
            "- atomic-bound kernels (model and truth), median |predicted - measured| / measured time: " +
            ("-" if not errors else f"{100 * out['bound_time_error_median']:.1f}% over {len(errors)} kernels"),
            "- the same without the kernels whose L2 slice is at the occupancy cap (predicted = measured by "
            "construction): " +
            ("-" if not uncapped else
             f"{100 * out['bound_time_error_median_below_cap']:.1f}% over {len(uncapped)} kernels")]
    return out, "\n".join(text) + "\n"


def fmt_error(error):
    """A median error, or its absence where most fixes have no what-if (each an infinite error)."""
    return "no finite median" if error == float("inf") else f"{100 * error:.1f}%"


def summary_rows(path):
    """(rows, device) of a summary written by --json, as they were judged."""
    summary = load(path)
    rows = summary.get("rows") if isinstance(summary, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "case" in r for r in rows):
        sys.exit(f"{path}: no 'rows' with a 'case' each (not a summary written by --json)")
    return rows, summary.get("device", "-")


def folder_rows(folder, reevaluator=None):
    """(rows, device) of a validation_run.sh output folder: each case's timings and run document."""
    rows, device = [], "-"
    for tpath in sorted(glob.glob(os.path.join(folder, "*.timings.json"))):
        timings = load(tpath)
        if timings.get("format") != "atomq.validation_timings":
            continue  # e.g. atomq hist --json beside the cases
        device = timings.get("device", device)
        rpath = tpath.replace(".timings.json", ".json")
        run = load(rpath) if os.path.exists(rpath) else None
        analyses = reevaluator.analyses(rpath, run) if reevaluator and run else None
        rows += case_rows(timings, run, analyses)
    return rows, device


# The suite as it stood on 2026-12-02 (13 cases with a fix, the two threshold sweeps): the kernels
# the model-core issue's goals count (docs/validation.md, "Live on the H200").
FIRST_SUITE = ("degree_count", "csr_row_count", "hash_build_load50_uniform", "hash_build_load90_uniform",
               "hash_build_load50_skewed", "hash_build_load90_skewed", "particle_binning_uniform",
               "particle_binning_clustered", "image_single_colour", "image_random_colour", "float_histogram",
               "spin_lock_counter", "upsample_backward", "threshold_k1", "threshold_k32")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="a validation_run.sh output folder, or a summary JSON written by --json")
    ap.add_argument("--first-suite", action="store_true",
                    help="count only the cases of the suite of 2026-12-02 (13 fixes, 30 kernels)")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("--expectations", help="write the verdicts as tests/fixtures/validation/expectations.json")
    ap.add_argument("--provenance", default="", help="provenance line for --expectations")
    ap.add_argument("--reevaluate", metavar="MODULE_DIR",
                    help="evaluate the recorded profiles again with the atomq Python module in this folder (BUILD/python)")
    ap.add_argument("--table", help="service-time table for --reevaluate (default: each run's GPU's bundled "
                    "table, else its chip's)")
    ap.add_argument("--terms-off", default="", metavar="TERM[,TERM]",
                    help="with --reevaluate: the model without these terms (rules.hpp, ModelTerm names)")
    a = ap.parse_args()
    if a.terms_off and not a.reevaluate:
        sys.exit("--terms-off needs --reevaluate")
    if not os.path.exists(a.out):
        sys.exit(f"{a.out}: no such folder or summary file")
    if a.reevaluate and os.path.isfile(a.out):
        sys.exit(f"{a.out}: --reevaluate needs the run documents (an output folder), not a summary")
    terms_off = [t for t in a.terms_off.split(",") if t]
    reevaluator = Reevaluator(a.reevaluate, a.table, terms_off) if a.reevaluate else None
    rows, device = summary_rows(a.out) if os.path.isfile(a.out) else folder_rows(a.out, reevaluator)
    if not rows:
        sys.exit(f"{a.out}: no atomq.validation_timings documents (or no rows) to summarize")
    if a.first_suite:
        rows = [r for r in rows if r["case"] in FIRST_SUITE]
    stats, text = summary_lines(rows)
    without = f", without {', '.join(terms_off)}" if terms_off else ""
    table_used = os.path.relpath(a.table) if a.table else "bundled for each run's GPU"
    source = (f"analyses: re-evaluated with the current model{without} (atomq module in {a.reevaluate}, table {table_used})"
              if reevaluator else "analyses: as stored in the run documents")
    md = markdown(rows, device) + "\n" + source + "\n\n" + text
    if a.markdown:
        open(a.markdown, "w").write(md)
    if a.json:
        open(a.json, "w").write(json.dumps({"device": device, "rows": rows, "summary": stats}, indent=2) + "\n")
    if a.expectations:
        cases = {}
        for r in rows:
            if "ground_truth_bound" not in r or "model_bound" not in r:
                continue
            e = {"agree": r["ground_truth_bound"] == r["model_bound"]}
            if "fix_inside" in r:
                e["fix_inside"] = r["fix_inside"]
            cases.setdefault(r["case"], {})[r["variant"]] = e
        open(a.expectations, "w").write(json.dumps({"provenance": a.provenance, "cases": cases}, indent=2) + "\n")
    sys.stdout.write(md)


if __name__ == "__main__":
    main()

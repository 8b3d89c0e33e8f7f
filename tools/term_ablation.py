#!/usr/bin/env python3
"""The term ablation: every recorded verdict evaluated again with each of the model's terms
switched off (model/include/atomq/model/rules.hpp, ModelTerm), one term at a time. A term that
changes no verdict is dead weight; one that changes many carries the verdicts it changes.

Verdicts: on the validation suite's recorded runs (tests/fixtures/validation) the class against
the ablation's ground truth, the fix inside its interval, the fix time's error and the
recommended what-if; on every other committed recording (the model's fixtures, the demo's runs)
the class, the binding unit and the recommended what-if.

usage: term_ablation.py MODULE_DIR [--table TABLE] [--markdown FILE] [--check DOC | --write DOC]
--check DOC fails (exit 1) when the table between DOC's term-ablation markers differs from the one
this build computes; --write DOC puts it there.
"""
import argparse
import glob
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validation_summary as vs  # noqa: E402

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BEGIN = "<!-- term-ablation:begin (tools/term_ablation.py --write docs/validation.md) -->"
END = "<!-- term-ablation:end -->"


def fmt_fix_time_error(summary):
    """The median fix-time error; null in the summary where most fixes have no what-if."""
    if not summary["fix_inside_interval"][1]:
        return "-"
    err = summary["fix_time_error_median"]
    return "no finite median" if err is None else f"{100 * err:.1f}%"


def other_recordings(atomq):
    """(name, profile) of every committed recording outside the validation suite."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob(os.path.join(REPO, "tests/unit/model/fixtures/*.json"))):
            # A fixture holds {provenance, profile, expected}; the module reads the profile document.
            profile_path = os.path.join(tmp, os.path.basename(path))
            with open(profile_path, "w") as f:
                json.dump(vs.load(path)["profile"], f)
            out.append((os.path.basename(path)[:-5], atomq.load_profile(profile_path)))
    run_documents = glob.glob(os.path.join(REPO, "analyzer/report/recorded/**/*.json"), recursive=True)
    run_documents += glob.glob(os.path.join(REPO, "tests/fixtures/validation/hist/*.json"))
    for path in sorted(run_documents):
        doc = vs.load(path)
        if doc.get("format") != "atomq.analysis_run":
            continue
        for i, p in enumerate(atomq.read_profiles(path)):
            out.append((f"{os.path.relpath(path, REPO)[:-5]}#{i}", p))
    return out


def validation_runs():
    runs = []
    for tpath in sorted(glob.glob(os.path.join(REPO, "tests/fixtures/validation/*.timings.json"))):
        timings = vs.load(tpath)
        if timings.get("format") != "atomq.validation_timings":
            continue
        rpath = tpath.replace(".timings.json", ".json")
        if os.path.exists(rpath):
            runs.append((timings, rpath, vs.load(rpath)))
    return runs


def verdict(analysis):
    """class, binding unit, recommended what-if, and the figures behind them (any change counts)."""
    rec = analysis.get("recommended_what_if") or {}
    figures = ((analysis.get("utilization") or {}).get("mean"), (analysis.get("l2") or {}).get("utilization"),
               (analysis.get("time") or {}).get("predicted_ns"), rec.get("gain_low"), rec.get("gain_high"))
    return (analysis.get("class"), analysis.get("binding_unit"), rec.get("id"), figures)


class Evaluation:
    """Every verdict under one set of rules."""

    def __init__(self, atomq, tables, rules, runs, others):
        self.kernels = {}  # name -> (class, binding unit, recommended id)
        self.rows = []
        for timings, rpath, run in runs:
            analyses = [atomq.analyze(p, tables.for_profile(p), rules) for p in atomq.read_profiles(rpath)]
            for k, a in zip(run["kernels"], analyses):
                self.kernels[f"{timings['case']}:{k['profile']['source']['detail'].split('--variant ')[-1]}"] = verdict(a)
            self.rows += vs.case_rows(timings, run, analyses)
        for name, p in others:
            self.kernels[name] = verdict(atomq.analyze(p, tables.for_profile(p), rules))
        self.summary, _ = vs.summary_lines(self.rows)


def changed(base, other, field):
    return sorted(k for k in base.kernels if base.kernels[k][field] != other.kernels[k][field])


def flips(base, other, key):
    """Validation rows whose `key` verdict differs: (now right, now wrong) without the term."""
    right = wrong = 0
    for b, o in zip(base.rows, other.rows):
        if key == "agree":
            if "ground_truth_bound" not in b or "model_bound" not in b:
                continue
            was, now = b["ground_truth_bound"] == b["model_bound"], o["ground_truth_bound"] == o.get("model_bound")
        else:
            if key not in b:
                continue
            was, now = b[key], o.get(key, False)
        right += now and not was
        wrong += was and not now
    return right, wrong


def fmt_flips(pair):
    right, wrong = pair
    return "-" if not (right or wrong) else f"{wrong} wrong, {right} right"


def fmt_count(pair):
    return f"{pair[0]}/{pair[1]}"


def table(atomq, tables):
    runs, others = validation_runs(), other_recordings(atomq)
    base = Evaluation(atomq, tables, None, runs, others)
    lines = [f"Over {len(base.kernels)} recorded kernels ({len(base.rows)} validation baselines and sweep points "
             f"with their ablations and fixes, the rest the model's fixtures and the demo's runs), each term "
             "switched off alone (`atomq.analyze(profile, table, {\"terms_off\": [TERM]})`). Columns: the kernels "
             "whose class, binding unit or recommended what-if changes, and those with any of U (shared, L2), the "
             "predicted time or the recommended gain changed; on the validation runs, the verdicts that turn wrong "
             "or right against the ablation and the fix, and the suite's figures without the term.",
             "",
             "| term off | class changes | binding changes | recommended changes | figures change | validation class | "
             "validation fix inside | class agrees | fix inside | fix time error |",
             "|---|---:|---:|---:|---:|---|---|---:|---:|---:|",
             "| (none: the model) | - | - | - | - | - | - | {} | {} | {} |".format(
                 fmt_count(base.summary["class_agrees"]), fmt_count(base.summary["fix_inside_interval"]),
                 fmt_fix_time_error(base.summary))]
    dead = []
    for term in atomq.model_terms():
        ev = Evaluation(atomq, tables, {"terms_off": [term]}, runs, others)
        cls, bind, rec, figs = (changed(base, ev, i) for i in range(4))
        agree, inside = flips(base, ev, "agree"), flips(base, ev, "fix_inside")
        if not (cls or bind or rec or figs or any(agree) or any(inside)):
            dead.append(term)
        lines.append("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            term, len(cls), len(bind), len(rec), len(figs), fmt_flips(agree), fmt_flips(inside),
            fmt_count(ev.summary["class_agrees"]), fmt_count(ev.summary["fix_inside_interval"]),
            fmt_fix_time_error(ev.summary)))
    lines += ["", "Terms that change no verdict and no figure of any recording: " + (", ".join(f"`{t}`" for t in dead) if dead else "none") + "."]
    return "\n".join(lines) + "\n"


def replace_block(doc_text, block):
    if BEGIN not in doc_text or END not in doc_text:
        raise SystemExit(f"the document has no term-ablation markers ({BEGIN} ... {END})")
    head, rest = doc_text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + block + END + tail


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module_dir", help="the folder of the atomq Python module (BUILD/python)")
    ap.add_argument("--table", help="one table for every recording (default: each recording's GPU's bundled table)")
    ap.add_argument("--markdown")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--check", metavar="DOC")
    group.add_argument("--write", metavar="DOC")
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.module_dir))
    import atomq  # noqa: E402 (the module of the build named on the command line)
    block = table(atomq, vs.Tables(atomq, a.table))
    if a.markdown:
        open(a.markdown, "w").write(block)
    if a.check or a.write:
        path = a.check or a.write
        text = open(path).read()
        updated = replace_block(text, block)
        if a.write:
            if updated != text:
                open(path, "w").write(updated)
        elif updated != text:
            sys.stdout.write(block)
            raise SystemExit(f"{path}: the term-ablation table differs from this build's; regenerate it with "
                             f"tools/term_ablation.py {a.module_dir} --write {path}")
    sys.stdout.write(block)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per-launch truth, live: every launch's attempts per update against a per-instruction
measurement of that launch.

    per_launch_check.py ATOMQ OUT_DIR [--kernel REGEX] [--tolerance 0.25] -- PROGRAM ARGS... ORDER

The program's last argument is an order of inputs, letters u (uniform) and o (one value), and it
launches each of its kernels once per letter in that order (tests/gpu/targets/storm_app.cu;
validation/third_party/torch_ops.py's storm case). Four runs of `atomq analyze`, each counting
one launch per kernel per instruction (the first): order "uo" (uniform measured, one-value
derived), "ou" (the reverse), "u" and "o" (each input measured alone). Each derived launch's
attempts per update is compared with the measured launch of the same input. Exit 1 when a
derived launch is off by more than the tolerance, when one could not be derived, or when a
one-value launch is not atomic-bound with the retry named (`cas_retry`). Prints one row per
(kernel, input) and writes OUT_DIR/per_launch.json."""
import argparse
import json
import pathlib
import re
import subprocess
import sys


def cas_site(analysis):
    """The CAS site with the most executions (the retry loop), or None."""
    sites = [s for s in analysis.get("sites", []) if s.get("cas")]
    return max(sites, key=lambda s: s.get("executions_per_launch") or 0) if sites else None


def cas_totals(analysis):
    """The kernel's CAS sites together: (attempts per update, CAS executions per launch), or Nones."""
    lane_execs = updates = executions = 0.0
    for s in analysis.get("sites", []):
        if s.get("cas") and s.get("attempts_per_update") and s.get("executions_per_launch"):
            le = s["executions_per_launch"] * (s.get("lanes_per_instruction") or 0)
            lane_execs += le
            updates += le / s["attempts_per_update"]
            executions += s["executions_per_launch"]
    return (lane_execs / updates, executions) if updates > 0 else (None, None)


def counted_cas(counters, unit):
    """The counter run's CAS instructions of the launch (shared CAS, or global ATOMG)."""
    name = ("smsp__inst_executed_op_shared_atom_dot_cas.sum" if unit == "shared"
            else "smsp__sass_inst_executed_op_global_atom.sum")
    return counters.get(name)


def launches(document, kernel_re):
    """Kernel name -> its launches in program order (kernel.symbol_launch), the facts this check reads."""
    out = {}
    for k in document["kernels"]:
        name = k["profile"]["kernel"]["name"]
        if not re.search(kernel_re, name):
            continue
        a = k["analysis"]
        basis = a.get("sites_basis") or {}
        site = cas_site(a)
        attempts, executions = cas_totals(a)
        counted = counted_cas(k["profile"]["counters"], site["unit"]) if site else None
        out.setdefault(name, []).append({
            "launch": k["profile"]["kernel"].get("symbol_launch"),
            "derived": bool(basis.get("derived")),
            "basis": basis.get("basis", ""),
            "attempts_per_update": attempts,
            # The per-instruction run's CAS executions over the counter run's: the instrumented
            # run's own retries (1 where the counts are this run's, as for a derived launch).
            "instrumented_over_counted": (executions / counted if executions and counted else None),
            "class": a["class"],
            "binding_unit": a["binding_unit"],
            "findings": [f["kind"] for f in a["findings"]],
            "duration_ns": k["profile"]["counters"].get("gpu__time_duration.sum"),
        })
    for runs in out.values():
        runs.sort(key=lambda r: -1 if r["launch"] is None else r["launch"])
    return out


def short(name):
    return name.split("(")[0].split("<")[0].split("::")[-1][:40]


def analyze(atomq, out, tag, kernel_re, program, order, jobs):
    path = out / f"{tag}.json"
    cmd = [atomq, "-q", "analyze", "-o", str(path), "--instructions-kernel", kernel_re,
           "--instruction-jobs", str(jobs), "--kernel-name", "regex:" + kernel_re, "--", *program, order]
    with open(out / f"{tag}.log", "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        sys.exit(f"per_launch_check: `{' '.join(cmd)}` exited {rc} (log: {out / (tag + '.log')})")
    return launches(json.loads(path.read_text()), kernel_re)


def main():
    split = sys.argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("atomq")
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--kernel", default="storm_")
    parser.add_argument("--tolerance", type=float, default=0.25)
    # 1: the per-instruction run after the counter run, not beside it on the same GPU (whose
    # contention changes how often a global CAS loop retries)
    parser.add_argument("--instruction-jobs", type=int, default=4)
    args = parser.parse_args(sys.argv[1:split])
    program = sys.argv[split + 1:]
    args.out.mkdir(parents=True, exist_ok=True)
    runs = {order: analyze(args.atomq, args.out, f"order_{order}", args.kernel, program, order, args.instruction_jobs)
            for order in ("uo", "ou", "u", "o")}
    failures, rows = [], []
    # In order "uo" a kernel's second launch is the one-value input, derived; in "ou" the uniform.
    for derived_order, measured_order, label in (("uo", "o", "one-value"), ("ou", "u", "uniform")):
        for kernel, kernel_launches in sorted(runs[derived_order].items()):
            if len(kernel_launches) < 2:
                failures.append(f"{short(kernel)} {label}: {len(kernel_launches)} launch(es) in order {derived_order}")
                continue
            d = kernel_launches[1]
            measured = runs[measured_order].get(kernel, [])
            m = measured[0] if measured else None
            row = {"kernel": kernel, "input": label, "derived": d, "measured": m}
            rows.append(row)
            if m is None or m["attempts_per_update"] is None:
                failures.append(f"{short(kernel)} {label}: no measured attempts per update")
                continue
            if not d["derived"] or d["attempts_per_update"] is None:
                failures.append(f"{short(kernel)} {label}: the second launch was not derived ({d['basis']})")
                continue
            ratio = d["attempts_per_update"] / m["attempts_per_update"]
            # The instrumented per-instruction run retries differently from the counter run the
            # derived figure comes from: its CAS executions over the counter run's, shown beside.
            perturbation = m["instrumented_over_counted"] or 1.0
            row.update(ratio=ratio, instrumented_over_counted=perturbation)
            if abs(ratio - 1) > args.tolerance:
                failures.append(f"{short(kernel)} {label}: derived {d['attempts_per_update']:.3g} against measured "
                                f"{m['attempts_per_update']:.3g} ({ratio:.2f}x; the measuring run executed "
                                f"{perturbation:.2f}x the CAS instructions its counter run counted)")
            if label == "one-value" and (d["class"] == "not_atomic_bound" or "cas_retry" not in d["findings"]):
                failures.append(f"{short(kernel)} one-value: class {d['class']}, findings {d['findings']} "
                                "(expected atomic-bound with cas_retry)")
            print(f"{short(kernel):<36} {label:<9} derived {d['attempts_per_update']:10.3f}  measured "
                  f"{m['attempts_per_update']:10.3f}  ratio {ratio:5.2f} (measuring run: {perturbation:4.2f}x the "
                  f"counted CAS)  class {d['class']} ({d['binding_unit']}), "
                  f"findings {','.join(d['findings'])}")
    (args.out / "per_launch.json").write_text(json.dumps({"rows": rows, "failures": failures}, indent=1))
    for f in failures:
        print("FAIL:", f)
    if not rows:
        sys.exit("per_launch_check: no second launch of a kernel matching " + args.kernel)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

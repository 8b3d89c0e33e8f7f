# atomq's rule for Nsight Compute: evaluates atomq's model (the installed atomq and its table) on
# the counters the AtomicQueue section collected, and shows atomq's verdict: the class, the unit
# that binds, its utilization and the fix atomq recommends with its expected gain.
#   ncu --section-folder PREFIX/share/atomq/ncu --section AtomicQueue -o R PROGRAM
# The rule writes the launch's counters as an ncu CSV export and runs `atomq analyze --ncu-csv`
# on it: the verdict is atomq's own, not a second implementation. atomq is found at $ATOMQ, at
# PREFIX/bin/atomq (this file is PREFIX/share/atomq/ncu/AtomicQueue.py), or on PATH.
# ncu's Python has no subprocess module (no _posixsubprocess): atomq runs through os.posix_spawn.
import csv
import json
import os
import shutil
import tempfile

import NvRules

# The launch statistics the export carries besides atomq's counters (the model reads them).
LAUNCH_METRICS = ["launch__registers_per_thread", "launch__occupancy_limit_blocks",
                  "device__attribute_multiprocessor_count"]


def get_identifier():
    return "AtomicQueue"


def get_name():
    return "atomq: Atomic Units"


def get_description():
    return "Which atomic unit binds the kernel (shared or L2), how busy it is, and the fix atomq predicts"


def get_section_identifier():
    return "AtomicQueue"


def find_atomq():
    candidates = [os.environ.get("ATOMQ")]
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        candidates.append(os.path.normpath(os.path.join(here, "..", "..", "..", "bin", "atomq")))
    except NameError:  # no __file__ where the rule was loaded from text
        pass
    candidates.append(shutil.which("atomq"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def run(argv, work):
    """(exit status, stdout, stderr) of argv, its output through files in `work`."""
    out, err = os.path.join(work, "stdout"), os.path.join(work, "stderr")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    pid = os.posix_spawn(argv[0], argv, dict(os.environ),
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, out, flags, 0o644),
                                       (os.POSIX_SPAWN_OPEN, 2, err, flags, 0o644)])
    _, status = os.waitpid(pid, 0)
    with open(out) as o, open(err) as e:
        return os.waitstatus_to_exitcode(status), o.read(), e.read()


def metric_value(action, name):
    """(unit, value as text) of a collected metric, or None."""
    m = action.metric_by_name(name)
    if m is None:
        return None
    try:
        value = m.as_double()
    except Exception:  # a metric without a number (a string metric)
        return None
    unit = m.unit() if hasattr(m, "unit") else ""
    return unit, repr(float(value))


def write_export(action, names, path):
    """The launch as a one-launch ncu CSV export (the long form atomq's import reads)."""
    grid = metric_value(action, "launch__grid_size")
    block = metric_value(action, "launch__block_size")
    major = metric_value(action, "device__attribute_compute_capability_major")
    minor = metric_value(action, "device__attribute_compute_capability_minor")
    if grid is None or block is None or major is None or minor is None:
        return "the launch's grid, block or compute capability was not collected"
    cc = f"{int(float(major[1]))}.{int(float(minor[1]))}"
    kernel = action.name()
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name", "Block Size", "Grid Size", "CC", "Metric Name", "Metric Unit", "Metric Value"])
        for name in names + LAUNCH_METRICS:
            got = metric_value(action, name)
            if got is not None:
                w.writerow(["0", kernel, f"({int(float(block[1]))}, 1, 1)", f"({int(float(grid[1]))}, 1, 1)", cc,
                            name, got[0], got[1]])
    return None


def verdict(run):
    """One line of atomq's verdict from its run document's first kernel."""
    k = run["kernels"][0]["analysis"]
    if not k.get("evaluated", False):
        notes = "; ".join(k.get("notes", [])[:2])
        return NvRules.IFrontend.MsgType_MSG_WARNING, f"atomq could not evaluate this kernel: {notes}"
    unit = {"shared_atomic_unit": "the shared-memory atomic unit", "l2_atomic_unit": "the L2 atomic unit"}.get(
        k.get("binding_unit"), "no atomic unit")
    u_shared = k.get("utilization", {}).get("max") or 0.0
    u_l2 = k.get("l2", {}).get("utilization") or 0.0
    text = (f"atomq: {k['class']}; binding unit: {unit} (U shared {100 * u_shared:.0f}%, hottest L2 slice "
            f"{100 * u_l2:.0f}%).")
    rec = k.get("recommended_what_if")
    if rec:
        finding = k["findings"][rec["finding"]] if rec.get("finding") is not None else {}
        low, high = rec.get("gain_low"), rec.get("gain_high")
        gain = f"{low:.2f}x to {high:.2f}x" if low and high and high > low * 1.005 else f"{high or low:.2f}x"
        text += f" {finding.get('title', '')}. Fix ({rec['id']}): {rec['change']}; expected {gain}."
    elif k["class"] == "not_atomic_bound":
        other = k.get("time", {}).get("other_floor") or ""
        text += f" The atomics do not bind it{': ' + other if other else ''}."
    # Atomics on a path atomq has no queue for (bulk reductions, host memory) are named; the DSMEM
    # path with its U and what binds.
    for f in k.get("findings", []):
        if f.get("kind") == "unmodelled_path":
            text += f" {f.get('title', '')}: {(f.get('details') or [''])[0]}."
        elif f.get("kind") == "dsmem_path":
            text += f" {f.get('title', '')}. {f.get('recommendation', '')}"
    msg = NvRules.IFrontend.MsgType_MSG_OK if k["class"] == "not_atomic_bound" else \
        NvRules.IFrontend.MsgType_MSG_OPTIMIZATION
    return msg, text


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    atomq = find_atomq()
    if atomq is None:
        fe.message(NvRules.IFrontend.MsgType_MSG_WARNING,
                   "atomq not found: set ATOMQ to the atomq executable, or put it on PATH")
        return
    try:
        with tempfile.TemporaryDirectory(prefix="atomq-ncu-rule-") as work:
            rc, listed, why = run([atomq, "metrics"], work)
            if rc != 0:
                fe.message(NvRules.IFrontend.MsgType_MSG_WARNING, "atomq metrics failed: " + why.strip())
                return
            export = os.path.join(work, "launch.csv")
            why = write_export(action, listed.strip().split(","), export)
            if why:
                fe.message(NvRules.IFrontend.MsgType_MSG_WARNING, f"atomq: {why}")
                return
            out = os.path.join(work, "run.json")
            rc, _, errors = run([atomq, "analyze", "--ncu-csv", export, "-o", out], work)
            if rc != 0:
                fe.message(NvRules.IFrontend.MsgType_MSG_WARNING,
                           "atomq could not analyze this launch: " + (errors.strip().splitlines() or ["?"])[-1])
                return
            with open(out) as f:
                msg, text = verdict(json.load(f))
        fe.message(msg, text)
    except Exception as e:  # never into ncu: say what failed instead
        fe.message(NvRules.IFrontend.MsgType_MSG_WARNING, f"atomq rule failed: {type(e).__name__}: {e}")

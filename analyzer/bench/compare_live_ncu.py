"""The same program analyzed live (atomq analyze -- PROGRAM) and through its ncu CSV export
(ncu --csv --metrics $(atomq metrics)): classes must match and U agree within 5%.
Also times both tools on the program in one run and prints the ratio.
Usage: compare_live_ncu.py ATOMQ NCU OUT_DIR -- PROGRAM ARGS...
Writes OUT_DIR/app.csv (the export), live.json, csv.json; exit 1 when the check fails."""
import json
import pathlib
import statistics
import subprocess
import sys

from timing import timed

atomq, ncu, out = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
program = sys.argv[sys.argv.index("--") + 1:]
out.mkdir(parents=True, exist_ok=True)
metrics = subprocess.run([atomq, "metrics"], capture_output=True, text=True, check=True).stdout.strip()
ncu_cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--metrics", metrics, *program]


atomq_times, ncu_times = [], []
for i in range(3):  # alternate, so drift hits both tools alike
    atomq_times.append(timed([atomq, "analyze", "-o", str(out / "live.json"), "--", *program]))
    with open(out / "app.csv", "w") as f:
        ncu_times.append(timed(ncu_cmd, stdout=f))
subprocess.run([atomq, "analyze", "--ncu-csv", str(out / "app.csv"), "-o", str(out / "csv.json")],
               check=True, capture_output=True)

live = json.loads((out / "live.json").read_text())["kernels"]
csv = json.loads((out / "csv.json").read_text())["kernels"]


def kernel_key(name):
    """The kernel's unqualified name with template arguments, without return type and
    parameters: one tool writes "void ns::f<T>(...)", the other "f<T>(...)"."""
    name = name.removeprefix("void ")
    depth, start = 0, 0
    for i, ch in enumerate(name):  # the parameter list starts at the first "(" outside <...>
        depth += (ch == "<") - (ch == ">")
        if ch == ":" and depth == 0 and name[i - 1:i + 1] == "::":
            start = i + 1  # a namespace or class qualifier ends here
        if ch == "(" and depth == 0:
            return name[start:i]
    return name[start:]


def by_name(kernels):
    groups = {}
    for k in kernels:
        groups.setdefault(kernel_key(k["profile"]["kernel"]["name"]), []).append(k)
    return groups


def utilization(k):
    a = k["analysis"]
    return a.get("utilization", {}).get("mean", 0.0) if a.get("evaluated") else 0.0


live_groups, csv_groups = by_name(live), by_name(csv)
ok = bool(live_groups)
print(f"{'kernel':<24} {'class live':<18} {'class ncu':<18} {'U live':>8} {'U ncu':>8}")
for name, runs in live_groups.items():
    if name not in csv_groups:
        ok = False
        print(f"{name[:24]:<24} missing from the ncu export")
        continue
    for a, b in zip(runs, csv_groups[name]):  # launches of one kernel, in order
        ca, cb = a["analysis"]["class"], b["analysis"]["class"]
        ua, ub = utilization(a), utilization(b)
        same = ca == cb and abs(ua - ub) <= 0.05 * max(ua, ub) + 1e-9
        ok &= same
        print(f"{name[:24]:<24} {ca:<18} {cb:<18} {100*ua:7.1f}% {100*ub:7.1f}% {'ok' if same else 'DIFFERS'}")
extra = sum(max(0, len(v) - len(live_groups.get(n, []))) for n, v in csv_groups.items())
if extra:
    print(f"({extra} launch(es) only in the ncu export: kernels inside CUDA graphs, which atomq does not profile)")
ta, tn = statistics.median(atomq_times), statistics.median(ncu_times)
print(f"\nwall time, median of 3: atomq analyze {ta:.2f} s, ncu {tn:.2f} s, ratio {ta/tn:.2f}x "
      f"(goal <= 0.75x: {'met' if ta/tn <= 0.75 else 'MISSED'})")
print("live vs ncu CSV:", "classes equal, U within 5%" if ok else "MISMATCH")
sys.exit(0 if ok else 1)

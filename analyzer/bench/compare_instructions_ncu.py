"""Overhead of per-instruction collection: `atomq analyze --instructions N` against
`ncu --section SourceCounters --metrics $(atomq metrics)` on the same kernels of the same
program, three alternating runs each, medians and their ratio printed (goal <= 0.75x).
Usage: compare_instructions_ncu.py ATOMQ NCU OUT_DIR [--instructions N] [--kernel REGEX] -- PROGRAM ARGS...
--kernel restricts both tools to the kernels whose name matches REGEX (atomq --kernel-name,
ncu -k regex:). Exit 1 when atomq wrote no per-instruction counts."""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys

from timing import timed

split = sys.argv.index("--")
parser = argparse.ArgumentParser()
parser.add_argument("atomq")
parser.add_argument("ncu")
parser.add_argument("out", type=pathlib.Path)
parser.add_argument("--instructions", default="auto")
parser.add_argument("--kernel", default="")
args = parser.parse_args(sys.argv[1:split])
program = sys.argv[split + 1:]
args.out.mkdir(parents=True, exist_ok=True)

metrics = subprocess.run([args.atomq, "metrics"], capture_output=True, text=True, check=True).stdout.strip()
live = args.out / "live.json"
atomq_cmd = [args.atomq, "analyze", "-o", str(live), "--instructions", args.instructions]
ncu_cmd = [args.ncu, "--csv", "--print-units", "base", "--clock-control", "none",
           "--section", "SourceCounters", "--metrics", metrics]
if args.kernel:
    atomq_cmd += ["--kernel-name", args.kernel]
    ncu_cmd += ["-k", "regex:" + args.kernel]
atomq_cmd += ["--", *program]
ncu_cmd += program


def timed_to(cmd, log):
    with open(log, "w") as f:  # the tool's output kept beside the results
        return timed(cmd, stdout=f, stderr=subprocess.STDOUT)


atomq_times, ncu_times = [], []
for i in range(3):  # alternate, so drift hits both tools alike
    atomq_times.append(timed_to(atomq_cmd, args.out / "atomq.log"))
    ncu_times.append(timed_to(ncu_cmd, args.out / "ncu.csv"))

kernels = json.loads(live.read_text())["kernels"]
with_counts = [k["profile"]["kernel"]["name"] for k in kernels if k["profile"].get("instructions")]
print("atomq:", " ".join(atomq_cmd))
print("ncu:  ", " ".join(ncu_cmd))
print(f"kernels with per-instruction counts: {len(with_counts)}")
ta, tn = statistics.median(atomq_times), statistics.median(ncu_times)
print("atomq analyze s:", ", ".join(f"{t:.2f}" for t in atomq_times))
print("ncu s:          ", ", ".join(f"{t:.2f}" for t in ncu_times))
print(f"median: atomq {ta:.2f} s, ncu {tn:.2f} s, ratio {ta/tn:.2f}x "
      f"(goal <= 0.75x: {'met' if ta/tn <= 0.75 else 'MISSED'})")
sys.exit(0 if with_counts else 1)

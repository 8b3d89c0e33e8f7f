"""What keeping the loaded code objects costs a PyTorch program (docs/analyzer.md, "Kernels
outside the executable"), on a GPU machine with PyTorch:
  analyzer/bench/loaded_code_cost.py ATOMQ OUT
1. wall time and peak RSS of the largest child (resource.RUSAGE_CHILDREN, read after each
   run: each figure is the largest so far) of `atomq -v analyze [--no-loaded-code]` and of the
   program alone, one run each, in the order the docs give;
2. the saved module holding the scatter kernel, copied while the analysis runs, listed whole
   and with `-fun` for the one kernel (cuobjdump).
Prints one line per measurement."""
import pathlib
import resource
import shutil
import subprocess
import sys
import time

from timing import timed

atomq, out = sys.argv[1], pathlib.Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
ops = pathlib.Path(__file__).resolve().parents[2] / "validation/third_party/torch_ops.py"
program = [sys.executable, str(ops), "scatter_add_hot", "baseline"]
analyze = [atomq, "-v", "analyze", "-k", "regex:_scatter_gather", "-o", str(out / "s.json")]


def peak_mib():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


# Without copies first: RUSAGE_CHILDREN keeps the largest child seen so far.
for label, cmd in [("program alone", program), ("--no-loaded-code", analyze[:3] + ["--no-loaded-code"] + analyze[3:]
                   + ["--"] + program), ("with copies", analyze + ["--"] + program),
                   ("with copies, again", analyze + ["--"] + program)]:
    print(f"{label}: {timed(cmd):.1f} s, largest child so far {peak_mib():.0f} MiB")

# The module of the scatter kernel, caught before analyze removes it.
code = pathlib.Path(str(out / "s.json") + ".profiles.jsonl.code")
p = subprocess.Popen(analyze + ["--"] + program, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
copy = out / "module.cubin"
while p.poll() is None and not copy.exists():
    found = sorted(code.glob("*.cubin")) if code.exists() else []
    if found:
        time.sleep(0.5)  # written by rename: whole once visible
        shutil.copy(found[0], copy)
    time.sleep(0.2)
p.wait()
if not copy.exists():
    raise SystemExit("no saved module seen")
listing = subprocess.run(["cuobjdump", "-sass", str(copy)], capture_output=True, text=True).stdout
functions = [l.split(":", 1)[1].strip() for l in listing.splitlines() if l.strip().startswith("Function :")]
kernel = next(f for f in functions if "scatter_gather_elementwise_kernel" in f)
print(f"module: {copy.stat().st_size / 1e6:.1f} MB, {len(functions)} functions")
print(f"cuobjdump -sass whole: {timed(['cuobjdump', '-sass', str(copy)]):.2f} s")
print(f"cuobjdump -sass -fun one kernel: {timed(['cuobjdump', '-sass', '-fun', kernel, str(copy)]):.2f} s")

"""NVTX scoping on a PyTorch program under emit_nvtx() (tests/gpu/targets/torch_nvtx.py): every
launch is tagged with its open ranges ("step", then the op's); --nvtx-include of one op profiles
only that op's kernels, each tagged with it; --nvtx-exclude leaves that op's kernels out. Skipped
without a GPU or without PyTorch built for CUDA."""
import json
import pathlib
import subprocess
import sys

from gpu_skip import require_gpu, require_torch_cuda
from named_checks import check, finish

atomq, script, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_torch_cuda()


def analyze(name, *options):
    out = work / f"{name}.json"
    p = subprocess.run([atomq, "analyze", "--instructions", "0", *options, "-o", str(out), "--", sys.executable,
                        script], capture_output=True, text=True, timeout=600)
    print(name, "rc", p.returncode, p.stderr[-800:])
    assert p.returncode == 0 and "torch nvtx result correct" in p.stdout, p.stdout[-2000:]
    stdouts[name] = p.stdout
    return [(k["profile"]["kernel"]["name"], k["profile"]["kernel"].get("nvtx", [])) for k in
            json.loads(out.read_text())["kernels"]]


stdouts = {}


def op_of(ranges):
    return ranges[-1].split(",")[0] if ranges else ""


every = analyze("every")
in_step = [(k, r) for k, r in every if r and r[0] == "step"]
check(len(in_step) >= 6, f"launches inside the step range tagged with it: {len(in_step)}")
ops = sorted({op_of(r) for _, r in in_step})
print("ops:", ops)
check(any("histc" in o for o in ops) and any(o in ("aten::mm", "aten::matmul", "aten::addmm") for o in ops),
      f"each op's kernels tagged with their op (the innermost range): {ops}")
check("aten::histc: " in stdouts["every"], "the report's kernel rows are grouped by op (\"aten::histc: ...\")")
histc_kernels = {k for k, r in in_step if any("aten::histc" in x for x in r)}
only = analyze("histc", "--nvtx-include", "regex:aten::histc/")
check(len(only) >= 2 and all(any("aten::histc" in x for x in r) for _, r in only),
      f"--nvtx-include regex:aten::histc/: {len(only)} launches, each inside aten::histc")
check({k for k, _ in only} == histc_kernels, f"the same kernels as histc's in the full run: {sorted(histc_kernels)}")
without = analyze("without", "--nvtx-exclude", "regex:aten::histc/")
check(not any(any("aten::histc" in x for x in r) for _, r in without) and len(without) == len(every) - len(only),
      f"--nvtx-exclude: {len(without)} launches = {len(every)} - {len(only)}, none inside aten::histc")
finish()

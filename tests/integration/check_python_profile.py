"""atomq.profile() in a PyTorch program: the histogram kernel torch.histc launches inside the
`with` block is profiled in-process and analyzed (class, binding unit), a launch after the block
is not, the program's result stays right, and the run document it writes is one `atomq report`
reads. The package is the build's (build/python), loaded by whatever Python runs PyTorch: the
profiling goes through libatomq_profile.so with ctypes, not the compiled module. Skipped without
a GPU or without PyTorch built for CUDA."""
import json
import os
import pathlib
import subprocess
import sys

from gpu_skip import require_gpu, require_torch_cuda
from named_checks import check, finish

atomq, package_dir, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_torch_cuda()

document = work / "profile.json"
program = f"""
import json, torch, atomq
x = torch.rand(1 << 22, device="cuda")
torch.cuda.synchronize()
with atomq.profile(kernel="regex:kernelHistogram1D", output={str(document)!r}) as run:
    h = torch.histc(x, bins=256, min=0.0, max=1.0)
    torch.cuda.synchronize()
after = torch.histc(x, bins=256, min=0.0, max=1.0)
torch.cuda.synchronize()
ok = int(h.sum().item()) == x.numel() and torch.equal(h, after)
print("RESULT", json.dumps({{"ok": ok, "version": atomq.__version__, "kernels": run.kernels,
                            "seen": run.document["launches"]}}))
"""
env = dict(os.environ, PYTHONPATH=package_dir)
p = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600, env=env)
print(p.stdout[-3000:], p.stderr[-3000:])
check(p.returncode == 0, f"the program ran under atomq.profile() (rc {p.returncode})")
lines = [line for line in p.stdout.splitlines() if line.startswith("RESULT ")]
result = json.loads(lines[-1][len("RESULT "):]) if lines else {"ok": False, "kernels": [], "seen": {}}
check(result["ok"], "the histogram inside the block equals the one after it, and counts every value")
kernels = result["kernels"]
check(len(kernels) >= 1 and all("kernelHistogram1D" in (k["kernel"] or "") for k in kernels),
      f"the launches inside the block that the filter selects are profiled: {[k['kernel'] for k in kernels]}")
check(all(k["evaluated"] and k["class"] and k["binding_unit"] for k in kernels),
      f"each analyzed: {[(k['class'], k['binding_unit'], k['U_max']) for k in kernels]}")
check(result["seen"].get("profiled") == len(kernels), f"the document's launch counts: {result['seen']}")
doc = json.loads(document.read_text()) if document.is_file() else {}
check(doc.get("format") == "atomq.analysis_run" and doc.get("source") == "in_process",
      "the run document (atomq.analysis_run, source in_process)")
r = subprocess.run([atomq, "report", str(document), "-o", str(work / "report.md")], capture_output=True, text=True)
check(r.returncode == 0 and "kernelHistogram1D" in (work / "report.md").read_text(),
      f"atomq report reads it (rc {r.returncode}) {r.stderr[-300:]}")
finish()

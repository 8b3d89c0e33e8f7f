"""Execute `atomq analyze -- library_app` (injection) on kernels that live in a shared library
(tests/gpu/targets/library_kernels.cu; the executable holds none of their SASS) and validate
that their SASS was read from the code objects the program loaded: the global float add's
L2 operation measured (red.add.f32), the shared float add's CAS loop seen (ATOMS.CAST.SPIN),
which then gets its per-instruction run (attempts per update), and the saved code objects
removed afterwards. GPU and cuobjdump only."""
import json
import pathlib
import sys

from named_checks import check, finish, run_shown
from gpu_skip import require_gpu, require_tool

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_tool("cuobjdump", "the hints come from the SASS")

out = work / "library.json"
p = run_shown([atomq, "-v", "analyze", "-o", str(out), "--", app])


check(p.returncode == 0, f"atomq analyze exit code {p.returncode}")
check("sums correct" in p.stdout, "the program's sums are correct")
names = ("scatter_hot_f32", "shared_float_spin")  # in an anonymous namespace: "(anonymous namespace)::NAME(...)"
kernels = {next((n for n in names if n + "(" in k["profile"]["kernel"]["name"]), k["profile"]["kernel"]["name"]): k
           for k in json.loads(out.read_text())["kernels"]}
check(set(kernels) == {"scatter_hot_f32", "shared_float_spin"}, f"both kernels profiled: {sorted(kernels)}")
scatter, spin = kernels.get("scatter_hot_f32"), kernels.get("shared_float_spin")
if scatter:
    hints = scatter["profile"].get("hints", {})
    check(hints.get("global_atomic_op") == "red.add.f32", f"scatter_hot_f32: L2 op from the SASS {hints}")
    l2 = scatter["analysis"].get("l2") or {}
    check(l2.get("op_origin") == "measured", f"scatter_hot_f32: L2 op origin {l2.get('op_origin')}")
if spin:
    hints = spin["profile"].get("hints", {})
    check(hints.get("shared_cas_spin") is True, f"shared_float_spin: CAS loop seen {hints}")
    attempts = [s.get("attempts_per_update") for s in spin["analysis"].get("sites", [])]
    check(any(a and a > 1 for a in attempts), f"shared_float_spin: per-instruction attempts per update {attempts}")
check(not pathlib.Path(str(out) + ".profiles.jsonl.code").exists(), "the saved code objects are removed")
finish()

"""Execute `atomq analyze -- global_ops_app` (tests/gpu/targets/global_ops_app.cu) and validate
that the L2 queue reads each kernel's global op from its SASS: red.add.f64, atom.add.f16x2,
atom.exch.u32 and atom.add.u64 measured (calibrated ops of their own), REDG.E.XOR derived
through its stand-in red.or.u32 with the opcode named, and every queue evaluated against the
bundled table's cells of that op. GPU and cuobjdump only."""
import json
import pathlib
import sys

from named_checks import check, finish, run_shown
from gpu_skip import require_gpu, require_tool

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_tool("cuobjdump", "the ops come from the SASS")

out = work / "global_ops.json"
p = run_shown([atomq, "-v", "analyze", "-o", str(out), "--", app])


check(p.returncode == 0, f"atomq analyze exit code {p.returncode}")
check("results correct" in p.stdout, "the program's results are correct")
expected = {  # kernel: (op, origin)
    "scatter_f64_hot": ("red.add.f64", "measured"),
    "scatter_half2": ("atom.add.f16x2", "measured"),
    "hash_exch": ("atom.exch.u32", "measured"),
    "ticket_u64": ("atom.add.u64", "measured"),
    "bitmap_xor": ("red.or.u32", "derived"),
}
kernels = {}
if out.exists():
    for k in json.loads(out.read_text())["kernels"]:
        name = k["profile"]["kernel"]["name"].split("(")[0]
        kernels[name] = k
check(set(expected) <= set(kernels), f"every kernel profiled: {sorted(kernels)}")
for name, (op, origin) in expected.items():
    k = kernels.get(name)
    if not k:
        continue
    l2 = k["analysis"].get("l2") or {}
    check(l2.get("evaluated") is True, f"{name}: L2 queue evaluated ({l2.get('reason', '')})")
    check(l2.get("op") == op and l2.get("op_origin") == origin,
          f"{name}: L2 op {l2.get('op')} ({l2.get('op_origin')}), expected {op} ({origin}): {l2.get('op_reason')}")
    print(f"     {name}: U {l2.get('utilization')}, class {l2.get('class')}, "
          f"{l2.get('service_cycles')} cycles/request ({l2.get('service_spread')})")
xor = (kernels.get("bitmap_xor") or {}).get("analysis", {}).get("l2") or {}
check("REDG.E.XOR" in xor.get("op_reason", ""), f"bitmap_xor: the reason names the opcode: {xor.get('op_reason')}")
hints = (kernels.get("bitmap_xor") or {}).get("profile", {}).get("hints", {})
check(hints.get("global_atomic_op_stands_in_for", "").startswith("REDG.E.XOR"), f"bitmap_xor: stand-in hint {hints}")
finish()

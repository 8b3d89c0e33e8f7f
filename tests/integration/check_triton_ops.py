"""The op of Triton's generated atomics, read from their SASS (the code objects the program loads):
`atomq analyze -- python3 validation/third_party/triton_atomics.py` names a max or min (never an
add) for the float atomic_max kernel and a float add for the atomic_add kernel, each from the
SASS, in the run document and on the terminal. Skipped without a GPU, cuobjdump, or PyTorch with
Triton for CUDA."""
import json
import pathlib
import subprocess
import sys

from gpu_skip import require_gpu, require_tool, require_torch_cuda
from named_checks import check, finish, run_shown

atomq, script, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_tool("cuobjdump", "the op comes from the SASS")
require_torch_cuda()
if subprocess.run([sys.executable, "-c", "import triton"], capture_output=True).returncode != 0:
    print("SKIPPED: no Triton for this Python")
    sys.exit(77)

out = work / "triton.json"
p = run_shown([atomq, "analyze", "--instructions", "0", "-o", str(out), "--", sys.executable, script])
check(p.returncode == 0 and "triton atomics result correct" in p.stdout, f"the program ran, its results right (rc {p.returncode})")
kernels = json.loads(out.read_text())["kernels"] if out.is_file() else []
ops = {}
for k in kernels:
    name, l2 = k["profile"]["kernel"]["name"], k["analysis"].get("l2", {})
    for wanted in ("triton_max_one_address", "triton_add_one_address"):
        if name.startswith(wanted):
            ops[wanted] = (l2.get("op"), l2.get("op_origin"), l2.get("op_reason"), k["analysis"].get("class"))
print("ops:", ops)
max_op = ops.get("triton_max_one_address", (None,) * 4)
add_op = ops.get("triton_add_one_address", (None,) * 4)
check(max_op[0] is not None and ("max" in max_op[0] or "min" in max_op[0]) and "SASS" in (max_op[2] or ""),
      f"atomic_max on float: a max/min op from the SASS, not an add: {max_op}")
check(add_op[0] is not None and "add.f32" in add_op[0] and "SASS" in (add_op[2] or ""),
      f"atomic_add on float: a float add from the SASS: {add_op}")
check(max_op[0] is not None and max_op[0] in p.stdout, f"the terminal names the max kernel's op ({max_op[0]})")
finish()

"""A PyTorch program replaying a CUDA graph (tests/gpu/targets/torch_graph.py), analyzed by
injection: the program's result stays correct, each of its 5 graph launches is one profile
naming its 3 kernel nodes (fill, scatter_add_, multiply), and the analysis names the unit that
binds it (the L2 atomic unit: a quarter of the updates go to one bin) and privatization as the
fix. Skipped without a GPU or without PyTorch built for CUDA."""
import json
import pathlib
import subprocess
import sys

from gpu_skip import require_gpu, require_torch_cuda

atomq, script, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_torch_cuda()
out = work / "torch.json"
p = subprocess.run([atomq, "analyze", "--instructions", "0", "-o", str(out), "--", sys.executable, script],
                   capture_output=True, text=True, timeout=900)
print(p.stdout[-4000:])
print("stderr:", p.stderr[-1500:])
if p.returncode != 0:
    sys.exit(f"atomq analyze exited {p.returncode} (the program's own check fails with 1)")
doc = json.loads(out.read_text())
failures = []
if "torch graph result correct" not in p.stdout:
    failures.append("the program did not report a correct result")
launches = doc["launches"]
if launches["graph_launches_profiled"] != 5 or launches["in_graphs_not_profiled"] != 0:
    failures.append(f"graph launches: {launches}")
graphs = [k for k in doc["kernels"] if (k["profile"]["kernel"].get("graph") or {}).get("kernels")]
print(f"{len(graphs)} whole-graph profiles")
if len(graphs) != 5:
    failures.append(f"{len(graphs)} whole-graph profiles, expected 5")
for k in graphs:
    nodes = k["profile"]["kernel"]["graph"]["kernels"]
    if len(nodes) != 3 or "scatter" not in nodes[1]:
        failures.append(f"graph kernel nodes {nodes}, expected fill, scatter, multiply")
    a = k["analysis"]
    whatifs = [w for f in a.get("findings", []) for w in f.get("what_ifs", [])]
    print(f"  {k['profile']['kernel']['graph']['launch']}: binds {a.get('binding_unit')}, class {a.get('class')}, "
          f"what-ifs {[w['change'] for w in whatifs[:2]]}")
    if a.get("binding_unit") != "l2_atomic_unit":
        failures.append(f"graph launch binds {a.get('binding_unit')}, expected the L2 atomic unit")
    # By the what-if's id; a document written before the ids has none: its change text is read.
    if not any(w["id"] == "privatize" if "id" in w else "privatize" in w["change"] for w in whatifs):
        failures.append("no privatization what-if for the hot bin")
if failures:
    sys.exit("PyTorch CUDA graph:\n" + "\n".join(failures))
print("PyTorch CUDA graph: 5 graph launches profiled as one range each, the L2 atomic unit named, "
      "privatization proposed, the program's result correct")

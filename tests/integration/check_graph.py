"""Kernels launched from a CUDA graph are profiled (tests/gpu/targets/graph_app.cu, on a GPU):
the program launches a histogram kernel and a second kernel 10 times directly, then the same
work (a memset, the two kernels) captured into a graph, launched 10 times. Under `atomq
analyze` the histogram, the graph's first kernel node, must be profiled in each of the 10
graph launches, tagged with the graph launch and node, with the same counts of work
(instructions, atomics) as its direct launches. Every later kernel node is either profiled
the same way or counted as not profiled with a warning that says why: nothing is dropped
silently."""
import json
import pathlib
import statistics
import subprocess
import sys

from gpu_skip import require_gpu

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
out = work / "graph.json"
p = subprocess.run([atomq, "analyze", "-o", str(out), "--", app], capture_output=True, text=True, timeout=600)
print(p.stdout[-3000:])
print("stderr:", p.stderr[-1500:])
if p.returncode != 0:
    sys.exit(f"atomq analyze exited {p.returncode}:\n{p.stderr[-2000:]}")
doc = json.loads(out.read_text())
failures = []
launches = doc["launches"]
print(f"launches: {launches}")
for w in doc["warnings"]:
    print(f"warning: {w}")
if launches.get("graph_launches_profiled") != 10:
    failures.append(f"graph launches profiled: {launches.get('graph_launches_profiled')}, expected 10")
if launches["in_graphs_not_profiled"] != 0:
    failures.append(f"{launches['in_graphs_not_profiled']} graph launch(es) not profiled")
if "10 graph launch(es) profiled kernel node by kernel node" not in p.stdout:
    failures.append("analyze does not say that the graph launches were profiled node by node")

# Counts of work: equal for the same kernel on the same input, however it was launched.
WORK = ["smsp__inst_executed_op_shared_atom.sum", "smsp__inst_executed_op_shared_atom_dot_alu.sum",
        "smsp__sass_inst_executed_op_global_red.sum", "smsp__sass_inst_executed_op_global_atom.sum"]
by_kernel = {}
for k in doc["kernels"]:
    prof = k["profile"]
    name = prof["kernel"]["name"].split("(")[0]
    kind = "graph" if "graph" in prof["kernel"] else "direct"
    by_kernel.setdefault(name, {"graph": [], "direct": []})[kind].append(prof)
missing_nodes = 0
for name in ("graph_histogram", "graph_scale"):
    got = by_kernel.get(name, {"graph": [], "direct": []})
    print(f"{name}: {len(got['direct'])} direct, {len(got['graph'])} graph launches profiled")
    if name == "graph_scale" and len(got["direct"]) == 10 and not got["graph"]:
        missing_nodes += 10  # the second node: accounted for below
        continue
    for g in got["graph"][:2]:
        print(f"  graph profile: {g['source']['detail']} {g['kernel'].get('graph')}")
    if len(got["direct"]) != 10 or len(got["graph"]) != 10:
        failures.append(f"{name}: {len(got['direct'])} direct and {len(got['graph'])} graph profiles, expected 10 and 10")
        continue
    nodes = sorted({(g["kernel"]["graph"]["node"], g["kernel"]["graph"]["nodes"]) for g in got["graph"]})
    if len(nodes) != 1 or nodes[0][1] != 2:
        failures.append(f"{name}: graph node tags {nodes}, expected one node of 2")
    for metric in WORK:
        direct = {g["counters"].get(metric) for g in got["direct"]}
        graph = {g["counters"].get(metric) for g in got["graph"]}
        print(f"  {metric}: direct {sorted(direct, key=str)}, graph {sorted(graph, key=str)}")
        if direct != graph:
            failures.append(f"{name}: {metric} differs: direct {direct}, graph {graph}")
    for metric in ("sm__cycles_active.sum", "gpu__time_duration.sum"):
        for kind in ("direct", "graph"):
            print(f"  {kind} {metric}: {sorted(g['counters'].get(metric, -1) for g in got[kind])[:3]}")
    d = statistics.median(g["counters"]["gpu__time_duration.sum"] for g in got["direct"])
    gr = statistics.median(g["counters"]["gpu__time_duration.sum"] for g in got["graph"])
    print(f"  median time: direct {d:.0f} ns, graph {gr:.0f} ns")
if launches.get("graph_kernel_nodes_not_profiled", 0) != missing_nodes:
    failures.append(f"{missing_nodes} kernel node launches without a profile, "
                    f"{launches.get('graph_kernel_nodes_not_profiled')} counted as not profiled")
if missing_nodes and not any("kernel nodes" in w for w in doc["warnings"]):
    failures.append("no warning says why later kernel nodes were not profiled")
order = [graph_key for graph_key in ((k["profile"]["kernel"].get("graph") or {}).get("launch") for k in doc["kernels"]) if graph_key is not None]
if order != sorted(order):
    failures.append("graph profiles are not in launch order")
if failures:
    sys.exit("CUDA graph profiling:\n" + "\n".join(failures))
print(f"CUDA graphs: the histogram profiled in all 10 graph launches with the work counts of its direct launches; "
      f"{missing_nodes} later kernel node launches counted as not profiled, with the reason")

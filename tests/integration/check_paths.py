"""Execute `atomq analyze --instructions 6 -- paths_app` (tests/gpu/targets/paths_app.cu) and
validate that atomq names Hopper's other atomic paths instead of costing them as another op:
the DSMEM histograms (generic atomicAdd through map_shared_rank, and red.async) get the DSMEM
path's U and finding (dsmem_path, first where it binds) from a table with a DSMEM section, else the
finding unmodelled_path first and the class insufficient_data; their sites the path dsmem; the bulk
reduction, the float4 atomicAdd and atomicAdd_system on host memory leave the L2 queue
unevaluated with the path named; atomicAdd_system on device memory is the L2 path as before.
GPU and cuobjdump only."""
import json
import pathlib
import sys

from named_checks import check, finish, run_shown
from gpu_skip import require_gpu, require_tool

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)
require_tool("cuobjdump", "the paths of the sites come from the SASS")

out = work / "paths.json"
p = run_shown([atomq, "analyze", "--instructions", "6", "-o", str(out), "--", app])
check(p.returncode == 0, f"atomq analyze exit code {p.returncode}")
check("results correct" in p.stdout, "the program's results are correct")
launches = {}
if out.exists():
    for k in json.loads(out.read_text())["kernels"]:
        name = k["profile"]["kernel"]["name"].split("(")[0].replace("void ", "")
        launches.setdefault(name, []).append(k)


def findings(k):
    return [f["kind"] for f in k["analysis"]["findings"]]


def titles(k):
    return [f["title"] for f in k["analysis"]["findings"] if f["kind"] == "unmodelled_path"]


for name, opcode, title in (("peer_histogram", "ATOM.", "DSMEM atomics: not modelled"),
                            ("peer_histogram_async", "REDAS", "DSMEM atomics: not modelled")):
    for k in launches.get(name, []):
        a = k["analysis"]
        d = a.get("dsmem", {})
        if d.get("evaluated"):
            dsmem = [f for f in a["findings"] if f["kind"] == "dsmem_path"]
            u = f"U {100 * d['utilization']:.0f}%"
            check(len(dsmem) == 1 and u in dsmem[0]["title"] and not titles(k),
                  f"{name}: the DSMEM path named with its {u}: {[f['title'] for f in dsmem]}, unmodelled {titles(k)}")
            check(a["class"] != "insufficient_data", f"{name}: class {a['class']}")
            binds = a["binding_unit"] == "dsmem_path"
            check(binds == (findings(k)[:1] == ["dsmem_path"]),
                  f"{name}: binds {a['binding_unit']}, first finding {findings(k)[:1]}")
            print(f"{name}: {a['class']}, binds {a['binding_unit']}: {dsmem[0]['title'] if dsmem else '-'}; {d['basis']}")
        else:
            check(findings(k)[:1] == ["unmodelled_path"] and titles(k) == [title], f"{name}: {titles(k)} first")
            check(a["class"] == "insufficient_data", f"{name}: class {a['class']} (not not_atomic_bound)")
        sites = [s for s in a.get("sites", []) if s["opcode"].startswith(opcode)]
        check(sites and all(s["path"] == "dsmem" for s in sites),
              f"{name}: its {opcode} sites on the dsmem path: {[(s['opcode'], s['path']) for s in sites]}")
for name, title, site_path in (("merge_tiles", "Bulk reductions: not modelled", "bulk_reduction"),
                               ("accumulate_float4", "Vector atomics: not modelled", "vector_l2")):
    for k in launches.get(name, []):
        a = k["analysis"]
        if name == "accumulate_float4" and a["l2"]["evaluated"]:
            # A table calibrated with the vector ops costs the float4 adds by their own cells.
            check(a["l2"].get("op") == "red.add.f32x4" and a["l2"].get("op_origin") == "measured",
                  f"{name}: costed as red.add.f32x4 from its SASS: {a['l2'].get('op')} ({a['l2'].get('op_reason')})")
        else:
            check(title in titles(k), f"{name}: {titles(k)}")
            check(a["l2"]["evaluated"] is False, f"{name}: L2 queue not evaluated: {a['l2'].get('reason')}")
        sites = a.get("sites", [])
        check(sites and all(s["path"] == site_path for s in sites),
              f"{name}: sites {[(s['opcode'], s['path']) for s in sites]}")
system = launches.get("count_system", [])
check(len(system) == 2, f"count_system launched on device and host memory: {len(system)} launches")
if len(system) == 2:
    device, host = system
    check("unmodelled_path" not in findings(device) and device["analysis"]["l2"]["evaluated"] is True,
          f"count_system on device memory: the L2 path ({findings(device)})")
    check("Host-memory atomics: not modelled" in titles(host) and host["analysis"]["l2"]["evaluated"] is False,
          f"count_system on host memory: {titles(host)}")
check(set(launches) >= {"peer_histogram", "peer_histogram_async", "merge_tiles", "accumulate_float4", "count_system"},
      f"every kernel profiled: {sorted(launches)}")
finish()

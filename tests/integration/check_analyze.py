"""Execute `atomq analyze -- multi_kernel_app` (injection) and the app's in-process mode,
then validate: exact counts, same numbers both ways, classes, launch types, graph launches
reported as not profiled, launch limits, exit-code propagation and crash safety. GPU only."""
import json
import pathlib
import subprocess
import sys

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
if subprocess.run([atomq, "devices"], capture_output=True).returncode != 0:
    print("SKIPPED: no GPU")
    sys.exit(77)

N = "smsp__inst_executed_op_shared_atom.sum"
CAS = "smsp__inst_executed_op_shared_atom_dot_cas.sum"
WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"


def analyze(out, *args, expect_rc=0):
    p = subprocess.run([atomq, "analyze", "-o", str(out), *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == expect_rc, f"rc {p.returncode} != {expect_rc}\n{p.stdout}\n{p.stderr}"
    return json.loads(out.read_text()), p


run, p = analyze(work / "injected.json", "--", app)
print(p.stdout)
assert run["format"] == "atomq.analysis_run" and run["version"] == 1
kernels = {k["profile"]["kernel"]["name"].split("(")[0]: k for k in run["kernels"]}
expected = {"popc_distinct", "add_conflict32", "cas_distinct", "no_atomics", "popc_same_ex", "cooperative"}
assert expected <= set(kernels), sorted(kernels)
# One launch captured into a graph, and that graph launched once: its one kernel node profiled.
launches = run["launches"]
assert launches["captured_into_graphs"] == 1 and launches["graph_launches_profiled"] == 1, launches
assert launches["in_graphs_not_profiled"] == 0 and launches["graph_kernel_nodes_not_profiled"] == 0, launches
assert sum("graph" in k["profile"]["kernel"] for k in run["kernels"]) == 1, "the graph's kernel node was not profiled"
assert run["program_exit_code"] == 0

ATOMICS_PER_THREAD = 4096  # kAtomicsPerThread in multi_kernel_app.cu
warps = 264 * 8 * ATOMICS_PER_THREAD
c = lambda name, m: kernels[name]["profile"]["counters"][m]
assert c("popc_distinct", N) == warps and c("popc_distinct", WAVES) == warps
assert c("add_conflict32", N) == warps and c("add_conflict32", WAVES) == 32 * warps
assert c("cas_distinct", CAS) == warps
assert c("no_atomics", N) == 0
assert kernels["no_atomics"]["analysis"]["class"] == "not_atomic_bound", kernels["no_atomics"]["analysis"]["class"]
coop = kernels["cooperative"]["profile"]
assert coop["counters"][N] == coop["kernel"]["launch"]["grid"][0] * 8 * ATOMICS_PER_THREAD

# The same program through the in-process API gives the same counts.
inproc = work / "inprocess.jsonl"
subprocess.run([app, "--in-process", str(inproc)], check=True, capture_output=True, timeout=600)
lines = [json.loads(l) for l in inproc.read_text().splitlines() if l.strip()]
by_name = {l["kernel"]["name"].split("(")[0]: l for l in lines if "kernel" in l}
for name in expected:
    for m in (N, CAS, WAVES):
        a, b = by_name[name]["counters"][m], kernels[name]["profile"]["counters"][m]
        assert a == b, f"{name} {m}: in-process {a} vs injected {b}"

# Launch limits: only matching kernels, skip and count.
run, _ = analyze(work / "limited.json", "--kernel-name", "regex:popc", "--launch-skip", "1", "--launch-count", "2",
                 "--", app, "--repeat", "3")
names = [k["profile"]["kernel"]["name"].split("(")[0] for k in run["kernels"]]
assert len(names) == 2 and all("popc" in n for n in names), names

# Several host threads and many launches: bounded (count limit), nothing lost.
run, _ = analyze(work / "threads.json", "--launch-count", "40", "--", app, "--threads", "4", "--repeat", "25")
assert len(run["kernels"]) == 40, len(run["kernels"])
assert run["launches"]["seen"] == 4 * 25 * 6 + 1, run["launches"]  # + the captured launch

# Two host threads, each in a context of its own: every launch of both contexts is profiled
# with exact counts (the profiler moves from one context to the other).
run, _ = analyze(work / "contexts.json", "--", app, "--threads", "2", "--own-context", "--repeat", "2")
per_name = {}
for k in run["kernels"]:
    per_name.setdefault(k["profile"]["kernel"]["name"].split("(")[0], []).append(k)
assert len(per_name["add_conflict32"]) == 4, {n: len(v) for n, v in per_name.items()}
assert all(k["profile"]["counters"][WAVES] == 32 * warps for k in per_name["add_conflict32"])
assert run["launches"]["failed"] == 0, run["launches"]

# The program's exit code is propagated.
analyze(work / "exit.json", "--", app, "--exit-code", "3", expect_rc=3)

# A crashing program: the launches profiled before the crash are on disk and analyzed.
run, p = analyze(work / "crash.json", "--", app, "--crash", expect_rc=128 + 6)
names = [k["profile"]["kernel"]["name"].split("(")[0] for k in run["kernels"]]
assert names[:2] == ["popc_distinct", "add_conflict32"], names
assert any("signal" in w for w in run["warnings"]), run["warnings"]
print("analyze (injection) OK")

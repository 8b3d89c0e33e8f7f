"""The Nsight Compute section and rule (share/atomq/ncu), without ncu: the section collects
exactly the counters `atomq metrics` lists (and the launch statistics the import reads), and the
rule, run against a stand-in NvRules module on each launch of the recorded multi_kernel_app
export, shows atomq's verdict: the class, the binding unit and U that `atomq analyze --ncu-csv`
gives that launch."""
import csv
import io
import json
import os
import pathlib
import re
import subprocess
import sys

atomq, share, fixture, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
work.mkdir(parents=True, exist_ok=True)

# 1. The section's metrics are atomq's.
section = (share / "AtomicQueue.section").read_text()
named = set(re.findall(r'Name: "([^"]+)"', section))
listed = set(subprocess.run([atomq, "metrics"], capture_output=True, text=True, check=True).stdout.strip().split(","))
missing = listed - named
assert not missing, f"AtomicQueue.section lacks counters atomq reads: {sorted(missing)}"
assert 'Identifier: "AtomicQueue"' in section

# 2. A stand-in NvRules: one action per launch of the export, its metrics from the export's rows.
(work / "NvRules.py").write_text('''
class IFrontend:
    MsgType_MSG_NONE, MsgType_MSG_OK, MsgType_MSG_OPTIMIZATION, MsgType_MSG_WARNING, MsgType_MSG_ERROR = range(5)

class Metric:
    def __init__(self, unit, value): self._unit, self._value = unit, value
    def unit(self): return self._unit
    def as_double(self): return float(self._value)

class Action:
    def __init__(self, name, metrics): self._name, self._metrics = name, metrics
    def name(self): return self._name
    def metric_by_name(self, n):
        m = self._metrics.get(n)
        return None if m is None else Metric(*m)

class Frontend:
    def __init__(self): self.messages = []
    def message(self, *args): self.messages.append(args)

class Context:
    def __init__(self, action): self.action, self.fe = action, Frontend()
    def range_by_idx(self, i): return self
    def action_by_idx(self, i): return self.action
    def frontend(self): return self.fe

def get_context(handle): return handle
''')
sys.path[:0] = [str(work), str(share)]
os.environ["ATOMQ"] = atomq
# ncu's embedded Python has no subprocess module (measured: ncu 2025.3, no _posixsubprocess): the
# rule must load and run without it.
sys.modules["subprocess"] = None
import AtomicQueue  # noqa: E402
import NvRules  # noqa: E402

lines = fixture.read_text().splitlines()
start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
launches = {}
for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
    launch = launches.setdefault(r["ID"], {"name": r["Kernel Name"], "metrics": {}})
    value = r["Metric Value"].replace(",", "")
    if value not in ("", "n/a"):
        launch["metrics"][r["Metric Name"]] = (r["Metric Unit"], value)
    grid = int(r["Grid Size"].strip("()").split(",")[0])
    block = int(r["Block Size"].strip("()").split(",")[0])
    major, minor = r["CC"].split(".")
    launch["metrics"].update({"launch__grid_size": ("", grid), "launch__block_size": ("", block),
                              "device__attribute_compute_capability_major": ("", major),
                              "device__attribute_compute_capability_minor": ("", minor)})

out = work / "rule_reference.json"
subprocess.run([atomq, "analyze", "--ncu-csv", str(fixture), "-o", str(out)], capture_output=True, check=True)
reference = [k["analysis"] for k in json.loads(out.read_text())["kernels"]]
assert len(reference) == len(launches), (len(reference), len(launches))
for (lid, launch), expected in zip(launches.items(), reference):
    ctx = NvRules.Context(NvRules.Action(launch["name"], launch["metrics"]))
    AtomicQueue.apply(ctx)
    assert len(ctx.fe.messages) == 1, ctx.fe.messages
    kind, text = ctx.fe.messages[0]
    print(f"{launch['name']}: {text}")
    assert text.startswith(f"atomq: {expected['class']};"), (text, expected["class"])
    unit = {"shared_atomic_unit": "shared-memory", "l2_atomic_unit": "L2 atomic"}.get(expected["binding_unit"],
                                                                                        "no atomic unit")
    assert unit in text, (unit, text)
    assert f"U shared {100 * (expected['utilization'].get('max') or 0):.0f}%" in text, text
    if expected.get("recommended_what_if"):
        assert f"({expected['recommended_what_if']['id']})" in text, text
    want = NvRules.IFrontend.MsgType_MSG_OK if expected["class"] == "not_atomic_bound" else \
        NvRules.IFrontend.MsgType_MSG_OPTIMIZATION
    assert kind == want, (kind, want)
# Without atomq the rule says so and nothing else.
os.environ["ATOMQ"] = str(work / "no_atomq")
os.environ["PATH"] = ""
ctx = NvRules.Context(NvRules.Action("k", {}))
AtomicQueue.find_atomq = lambda: None
AtomicQueue.apply(ctx)
assert ctx.fe.messages and "atomq not found" in ctx.fe.messages[0][1], ctx.fe.messages
print(f"ncu rule OK on {len(launches)} launches")

"""The build's target graph, as CMake itself reports it (`cmake --graphviz`).

One reader for the tools that check or draw the libraries' layering (check_layering.py,
architecture_graph.py): configure the source tree into a scratch folder and return every
target's kind and its direct link edges (public, interface and private alike).
"""
import re
import shutil
import subprocess
import sys
from collections import defaultdict

NODE = re.compile(r'^\s*"(node\d+)" \[ label = "([^"]+)", shape = (\w+) \];$')
EDGE = re.compile(r'^\s*"(node\d+)" -> "(node\d+)"(?: \[ style = (\w+) \])?')
KINDS = {"egg": "executable", "octagon": "static", "doubleoctagon": "shared",
         "tripleoctagon": "module", "pentagon": "interface", "septagon": "external", "box": "custom"}


class TargetGraph:
    def __init__(self):
        self.kind = {}                 # target -> "static", "shared", "executable", ...
        self.edges = defaultdict(set)  # target -> direct link dependencies
        self.private = set()           # (from, to) edges that are PRIVATE links


def configure(source, work, cmake_args=()):
    """Configures `source` into `work`/build (tests off) and reads its target graph."""
    if work.exists():
        shutil.rmtree(work)
    dot = work / "targets.dot"
    cmd = ["cmake", "-S", str(source), "-B", str(work / "build"), "-G", "Ninja",
           "-DATOMQ_BUILD_TESTS=OFF", f"--graphviz={dot}", *cmake_args]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"configure failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    graph, names = TargetGraph(), {}
    for line in dot.read_text().splitlines():
        if m := NODE.match(line):
            name = m.group(2).split("\\n")[0]  # "atomq_model\n(atomq::model)": the alias is left out
            names[m.group(1)] = name
            graph.kind[name] = KINDS.get(m.group(3), m.group(3))
        elif (m := EDGE.match(line)) and m.group(1) in names and m.group(2) in names:
            a, b = names[m.group(1)], names[m.group(2)]
            graph.edges[a].add(b)
            if m.group(3) == "dotted":
                graph.private.add((a, b))
    if not graph.edges:
        sys.exit(f"no link edges in {dot}")
    return graph

#!/usr/bin/env python3
"""The layering rules of atomq's libraries, checked on the build's own target graph.

Configures the source tree into a scratch folder with `cmake --graphviz`, reads every link
edge (public, interface and private) and fails when a library reaches one it must not:
the host-only layers (common, table, model, run document, report) reach nothing CUDA or
CUPTI, the report does not depend on the collector, and valijson (the JSON Schema checks of
tests/schema.cmake) stays out of them. Prints the offending path.

  check_layering.py --source DIR --work DIR [--cmake-arg=-DX=Y ...] [--expect-violation]

--expect-violation inverts the verdict (exit 0 only when a rule is broken): the self-test
configures with a deliberately wrong link and must see it refused.
"""
import argparse
import re
import sys
from pathlib import Path

from target_graph import configure

HOST_ONLY = ["atomq_common", "atomq_table", "atomq_model", "atomq_run_document", "atomq_report",
             "atomq_ncu_import"]
CUDA_SIDE = re.compile(r"^(CUDA::.*|CUPTI::.*|atomq_cuda_common|atomq_microbench|atomq_histogram|atomq_validation|"
                       r"atomq_collector|atomq_calibration|atomq_inject)$")
# (library, forbidden dependency pattern, why)
RULES = [(lib, CUDA_SIDE, "a host-only library must not link anything CUDA or CUPTI")
         for lib in HOST_ONLY]
RULES += [("atomq_report", re.compile(r"^atomq_collector$"),
           "the report reads run documents; it must not depend on the collector"),
          ("atomq_model", re.compile(r"^atomq_(report|run_document|collector)$"),
           "the model is below the analyzer and the report")]
RULES += [(lib, re.compile(r"^valijson$"), "valijson is for the schema tests only (tests/schema.cmake)")
          for lib in HOST_ONLY]

def path_to(edges, start, forbidden):
    """Shortest dependency path from start to a target matching forbidden, or None."""
    queue, seen = [[start]], {start}
    while queue:
        path = queue.pop(0)
        for nxt in sorted(edges.get(path[-1], ())):
            if nxt in seen:
                continue
            if forbidden.match(nxt):
                return path + [nxt]
            seen.add(nxt)
            queue.append(path + [nxt])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--cmake-arg", action="append", default=[])
    ap.add_argument("--expect-violation", action="store_true")
    args = ap.parse_args()
    edges = configure(args.source, args.work, args.cmake_arg).edges
    violations = []
    for lib, forbidden, why in RULES:
        if lib not in edges and not any(lib in deps for deps in edges.values()):
            violations.append(f"{lib}: not in the build's target graph (renamed? update the rules)")
            continue
        path = path_to(edges, lib, forbidden)
        if path:
            violations.append(f"{' -> '.join(path)}: {why}")
    for v in violations:
        print("layering:", v)
    print(f"layering: {len(RULES)} rules, {len(violations)} broken")
    if args.expect_violation:
        return 0 if violations else 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())

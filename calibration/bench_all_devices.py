#!/usr/bin/env python3
"""Benchmark of `atomq calibrate --all-devices` on a host with several GPUs, in one run:
the wall time of one GPU's calibration alone, then of every GPU side by side, their ratio
(goal <= 1.3), and how far identical GPUs' saturated cells (n >= 8) lie apart (goal: within 2%).
Usage: calibration/bench_all_devices.py ATOMQ OUT_DIR [--quick]"""
import json
import pathlib
import statistics
import subprocess
import sys
import time

atomq, out = sys.argv[1], pathlib.Path(sys.argv[2])
extra = ["--quick"] if "--quick" in sys.argv[3:] else []
out.mkdir(parents=True, exist_ok=True)


def timed(args, log):
    t0 = time.perf_counter()
    p = subprocess.run([atomq, "calibrate", *args, *extra], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    (out / log).write_text(p.stdout + p.stderr)
    if p.returncode != 0:
        sys.exit(f"atomq calibrate {' '.join(args)} exited {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return dt, p.stdout


single, _ = timed(["--device", "0", "--no-progress", "-o", str(out / "single" / "device0.json")], "single.txt")
both, text = timed(["--all-devices", "-o", str(out / "all")], "all-devices.txt")
tables = sorted((out / "all").glob("*.json"))
docs = [json.loads(t.read_text()) for t in tables]
uuids = [d["provenance"].get("device_uuid") for d in docs]
print(text.strip())
print(f"one GPU alone: {single:.1f} s; {len(tables)} GPUs side by side: {both:.1f} s; ratio {both / single:.2f} "
      f"(goal <= 1.3: {'met' if both / single <= 1.3 else 'MISSED'})")
print(f"tables: {', '.join(t.name for t in tables)}; device UUIDs in provenance: {uuids}")
if len(docs) >= 2:
    cells = {(c["n"], c["e"], c["c"], c["variant"], c["pattern"]): c["s"] for c in docs[0]["cells"] if c["n"] >= 8}
    diffs = []
    for c in docs[1]["cells"]:
        key = (c["n"], c["e"], c["c"], c["variant"], c["pattern"])
        if key in cells:
            diffs.append(abs(c["s"] - cells[key]) / (0.5 * (c["s"] + cells[key])))
    within = sum(d <= 0.02 for d in diffs)
    print(f"saturated cells (n >= 8) of GPU 0 and GPU 1: {len(diffs)} compared, |S difference| median "
          f"{100 * statistics.median(diffs):.2f}%, max {100 * max(diffs):.2f}%, {within}/{len(diffs)} within 2%")

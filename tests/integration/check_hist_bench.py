"""Execute `atomq hist-bench --quick`, then validate its JSON, CSV and Markdown (GPU only; else skip).

The quick run uses small inputs, so its times say nothing; what is checked is the table itself:
every variant that runs is exact, every skipped row says why, and the derived columns follow from
the measured ones (GB/s, fraction of read bandwidth, of the same-input read, x CUB)."""
import csv
import json
import pathlib
import subprocess
import sys

atomq, work = sys.argv[1], pathlib.Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)
probe = subprocess.run([atomq, "devices"], capture_output=True, text=True, timeout=120)
if probe.returncode != 0:
    print("SKIPPED: no GPU:", probe.stderr.strip())
    sys.exit(77)

out = {ext: work / f"hist-bench.{ext}" for ext in ("json", "csv", "md")}
p = subprocess.run([atomq, "hist-bench", "--quick", "--json", str(out["json"]), "--csv", str(out["csv"]),
                    "--markdown", str(out["md"])], capture_output=True, text=True, timeout=600)
assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]

doc = json.loads(out["json"].read_text())
assert doc["read_bandwidth_gbs"] > 0 and doc["large_read_bandwidth_gbs"] > 0
assert doc["runs"] >= 20
rows = doc["rows"]
variants = {r["variant"] for r in rows}
for required in ("naive_global", "block_private", "block_grid_stride", "warp_replicated", "lane_replicated",
                 "two_phase", "warp_aggregated", "sort_rle", "many_bins", "many_bins_packed", "image_plain",
                 "image_interleaved", "image_lane_replicated", "rank_shared", "rank_lane_replicated", "cub"):
    assert required in variants, f"{required} missing from the benchmark"
for kind in ("uniform", "zipf(s=1.1)", "hot(30%)", "single"):
    assert any(r["input"] == kind and r["type"] == "u32" for r in rows), kind

ran = [r for r in rows if not r["skipped"]]
assert ran and all(r["exact"] for r in ran), [r["variant"] for r in ran if not r["exact"]]
for r in ran:
    where = f'{r["type"]} {r["input"]} {r["bins"]} {r["variant"]}'
    assert 0 < r["min_ms"] <= r["median_ms"] <= r["max_ms"], where
    assert abs(r["gbs"] - r["bytes"] / (r["median_ms"] * 1e-3) / 1e9) <= 1e-6 * r["gbs"] + 1e-9, where
    assert abs(r["fraction_of_read_bw"] - r["gbs"] / doc["read_bandwidth_gbs"]) < 1e-9, where
    assert r["input_read_ms"] > 0, where
    assert abs(r["fraction_of_input_read"] - r["input_read_ms"] / r["median_ms"]) < 1e-9, where
for r in rows:
    if r["skipped"]:
        assert r["median_ms"] == 0 and not r["exact"], r
# x CUB: CUB's own row is 1, every other row is CUB's median over its own (same case).
cases = {}
for r in ran:
    cases.setdefault((r["type"], r["input"], r["bins"]), []).append(r)
for key, case in cases.items():
    cub = [r for r in case if r["variant"] == "cub"]
    assert len(cub) == 1, key
    for r in case:
        assert abs(r["speedup_vs_cub"] - cub[0]["median_ms"] / r["median_ms"]) < 1e-9, (key, r["variant"])

with out["csv"].open() as f:
    table = list(csv.DictReader(f))
assert len(table) == len(rows)
assert {row["variant"] for row in table} == variants
md = out["md"].read_text()
assert "## Summary" in md and "## All rows" in md and doc["device"] in md
print(f"{len(ran)} rows ran exactly, {len(rows) - len(ran)} skipped with a reason")

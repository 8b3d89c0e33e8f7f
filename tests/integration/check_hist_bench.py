"""Execute `atomq hist-bench --quick`, then hold its outputs against each other (GPU only; else skip).

The quick run uses small inputs, so its times say nothing. What is checked does not come from the
JSON alone: the variant list comes from `atomq hist --list` (the variant table), the CSV and the
Markdown written by the same run must say what the JSON says row by row, the read bandwidth the
fraction columns are relative to must be the one printed in the Markdown header, and every row
that ran must be exact in all three files."""
import csv
import json
import pathlib
import re
import subprocess
import sys

atomq, work = sys.argv[1], pathlib.Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)

# The variants as the variant table lists them (no GPU needed).
listing = subprocess.run([atomq, "hist", "--list"], capture_output=True, text=True, timeout=60)
assert listing.returncode == 0, listing.stderr
listed = [line.split()[0] for line in listing.stdout.splitlines()[1:] if line.strip()]
assert len(listed) >= 16 and "cub" in listed and len(set(listed)) == len(listed), listed
help_text = subprocess.run([atomq, "hist", "--help"], capture_output=True, text=True, timeout=60).stdout
assert ", ".join(listed) in help_text, "--help lists other variants than --list"

probe = subprocess.run([atomq, "devices"], capture_output=True, text=True, timeout=120)
if probe.returncode != 0:
    print("SKIPPED: no GPU:", probe.stderr.strip())
    sys.exit(77)

out = {ext: work / f"hist-bench.{ext}" for ext in ("json", "csv", "md")}
p = subprocess.run([atomq, "hist-bench", "--quick", "--json", str(out["json"]), "--csv", str(out["csv"]),
                    "--markdown", str(out["md"])], capture_output=True, text=True, timeout=600)
assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]

doc = json.loads(out["json"].read_text())
rows = doc["rows"]
with out["csv"].open() as f:
    table = list(csv.DictReader(f))
md = out["md"].read_text()
assert md in p.stdout, "the Markdown file differs from what the run printed"

# Every variant of the table is benchmarked on some case.
assert {r["variant"] for r in rows} == set(listed), set(listed) ^ {r["variant"] for r in rows}
for kind in ("uniform", "zipf(s=1.1)", "hot(30%)", "single"):
    assert any(r["input"] == kind and r["type"] == "u32" for r in rows), kind

# The CSV says what the JSON says, row by row, to the CSV's printed precision.
assert len(table) == len(rows)
for j, c in zip(rows, table):
    where = f'{j["type"]} {j["input"]} {j["bins"]} {j["variant"]}'
    for key in ("type", "input", "variant", "skipped"):
        assert c[key] == str(j[key]), (where, key)
    for key in ("bins", "n", "bytes"):
        assert int(c[key]) == j[key], (where, key)
    for key, digits in (("median_ms", 6), ("fraction_of_read_bw", 4), ("speedup_vs_cub", 4)):
        assert abs(float(c[key]) - j[key]) <= 0.6 * 10 ** -digits, (where, key, c[key], j[key])
    assert c["exact"] == ("" if j["skipped"] else ("yes" if j["exact"] else "no")), where

# The Markdown's "All rows" table: one line per row, in the same order, same exactness.
all_rows = md.split("## All rows", 1)[1]
md_rows = [line.split("|")[1:-1] for line in all_rows.splitlines() if line.startswith("| ") and "---" not in line]
md_rows = [[cell.strip() for cell in r] for r in md_rows[1:]]  # past the header line
assert len(md_rows) == len(rows), (len(md_rows), len(rows))
for j, m in zip(rows, md_rows):
    assert m[0] == j["type"] and m[1] == j["input"] and m[4] == j["variant"], (m, j["variant"])
    if j["skipped"]:
        assert m[-1] == "not run: " + j["skipped"], m
    else:
        assert m[-1] == "yes", (m, "not exact")
        assert abs(float(m[5]) - j["median_ms"]) <= 0.6e-4, m

# The fraction columns are relative to the read bandwidth printed in the header line.
header_bw = re.search(r"median of \d+ runs: \*\*(\d+) GB/s\*\* reading (\d+) MiB", md)
assert header_bw, "no read-bandwidth line in the Markdown"
read_gbs = float(header_bw.group(1))
assert abs(read_gbs - doc["read_bandwidth_gbs"]) <= 0.5, (read_gbs, doc["read_bandwidth_gbs"])
assert int(header_bw.group(2)) == doc["read_bandwidth_bytes"] >> 20
ran = [(j, m) for j, m in zip(rows, md_rows) if not j["skipped"]]
assert ran and all(j["exact"] for j, _ in ran), [j["variant"] for j, _ in ran if not j["exact"]]
for j, m in ran:
    gbs, of_read = float(m[8]), float(m[9].rstrip("%")) / 100
    # both rounded in the Markdown: GB/s to 1, the fraction to 0.1%
    assert abs(of_read - gbs / read_gbs) <= 0.0006 + (0.5 / read_gbs) * (1 + gbs / read_gbs), (m, read_gbs)
print(f"{len(ran)} rows ran exactly, {len(rows) - len(ran)} skipped with a reason; "
      f"JSON, CSV and Markdown agree on all {len(rows)} rows")

"""Execute `atomq report` on the recorded runs (Markdown and HTML, --compare, --pair) and
on bad input; validate the files and the error messages. Needs no GPU."""
import csv
import json
import pathlib
import re
import subprocess
import sys

atomq, recorded, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
hist = recorded / "hist"


def report(*args):
    return subprocess.run([atomq, "report", *map(str, args)], capture_output=True, text=True, timeout=120)


def check_tables(markdown):
    """Every pipe table: a header, a --- separator, rows with as many cells as the header."""
    lines = markdown.splitlines()
    i = 0
    tables = 0
    while i < len(lines):
        if lines[i].startswith("|"):
            cells = len(re.split(r"(?<!\\)\|", lines[i])) - 2
            assert re.fullmatch(r"\|(---\|)+", lines[i + 1]), lines[i + 1]
            assert lines[i + 1].count("---") == cells, (lines[i], lines[i + 1])
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                assert len(re.split(r"(?<!\\)\|", lines[i])) - 2 == cells, lines[i]
                i += 1
            tables += 1
        else:
            i += 1
    return tables


runs = [hist / f"{v}-{i}.json" for i in ("single", "uniform")
        for v in ("naive_global", "block_private", "warp_replicated", "lane_replicated")]
md, html = work / "report.md", work / "report.html"
summary_csv, summary_json = work / "summary.csv", work / "summary.json"
p = report(*runs, recorded / "multi_kernel_app.json", "-o", md, "-o", html, "-o", summary_csv, "-o", summary_json,
           "--pair", "multi_kernel_app/add_conflict32:multi_kernel_app/popc_distinct")
assert p.returncode == 0, p.stdout + p.stderr
print(p.stdout)
assert f"wrote {md}" in p.stdout and f"wrote {html}" in p.stdout
text = md.read_text()
assert "<" not in text.replace("<unsigned", "").replace("<float", ""), "Markdown holds HTML"
assert check_tables(text) >= 4
for r in runs:
    assert f"| {r.stem} |" in text, r.stem
launches = text.split("## Launches", 1)[1].splitlines()  # one row per launch
header = next(l for l in launches if l.startswith("| kernel |"))
column = {name.strip(): i for i, name in enumerate(header.strip("|").split("|"))}


def micro_s(cell):
    return float(cell.replace(" µs", "").replace(",", ""))


# The terminal summary starts with the report's first headline (the ranking itself is the unit
# tests': Report.HeadlinesOf*).
first_line = text.split("\n\n", 1)[1].splitlines()[0]
assert first_line.startswith("1. ") and p.stdout.startswith(first_line), (first_line, p.stdout[:300])
# The slowest launch is named in a headline, never passed over as fine.
slowest = max((l for l in launches if l.startswith("| ") and "µs" in l),
              key=lambda l: micro_s(l.strip("|").split("|")[column["time"]].strip()))
slowest_name = slowest.strip("|").split("|")[0].strip()
headlines = text.split("\n\n", 2)[1]
assert f". {slowest_name}: " in headlines, (slowest_name, headlines)
# The test program's 32-way conflict kernel is atomic-bound, with a replication what-if > 1x.
row = next(l for l in launches if l.startswith("| multi_kernel_app/add_conflict32 |"))
cells = [c.strip() for c in row.strip("|").split("|")]
assert cells[column["class"]] == "severe", cells
assert cells[column["binds"]] == "shared_atomic_unit", cells
assert float(cells[column["predicted gain"]].rstrip("x")) > 1.5, cells
assert re.search(r"^\| replicate \d+x: k from 32\.0", text, re.M), "replication what-if"
# The global-atomic kernel has no shared atomics: the shared unit is idle.
row = next(l for l in launches if l.startswith("| naive_global-single |"))
assert [c.strip() for c in row.strip("|").split("|")][2] == "0%", row
assert "### multi_kernel_app/add_conflict32 vs multi_kernel_app/popc_distinct" in text

# The flat export: one row per kernel (run, kernel name), the columns of docs/report.md, ranked.
docs = pathlib.Path(__file__).resolve().parents[2] / "docs" / "report.md"
documented = re.findall(r"^\| `([a-z_0-9]+)` \|", docs.read_text(), re.M)
with open(summary_csv, newline="") as f:
    reader = csv.DictReader(f)
    csv_rows = list(reader)
    assert reader.fieldnames == documented, (reader.fieldnames, documented)
kernels = {(json.loads(r.read_text())["command"], k["profile"]["kernel"]["name"])
           for r in runs + [recorded / "multi_kernel_app.json"] for k in json.loads(r.read_text())["kernels"]}
assert len(csv_rows) == len(kernels), (len(csv_rows), len(kernels))
stake = [float(r["time_at_stake_us"]) for r in csv_rows]
assert stake == sorted(stake, reverse=True), stake
assert all(r["u_mean"] == "" for r in csv_rows if r["kernel"].startswith("naive_global")), "no shared atomics: empty"
exported = json.loads(summary_json.read_text())
assert exported["format"] == "atomq.kernel_summary" and [c["name"] for c in exported["columns"]] == documented
assert [k["kernel"] for k in exported["kernels"]] == [r["kernel"] for r in csv_rows]
assert "S(n) of the table" in text

page = html.read_text()
assert page.startswith("<!DOCTYPE html>") and "<script src" not in page and "http://" not in page.split("Chart.js v")[0]
data = json.loads(re.search(r'<script type="application/json" id="atomq-report-data">(.*?)</script>', page, re.S)
                  .group(1).replace("<\\/", "</"))
launch_count = sum(len(json.loads(r.read_text())["kernels"]) for r in runs + [recorded / "multi_kernel_app.json"])
assert len(data["kernels"]) == launch_count and data["curves"] and data["comparisons"], len(data["kernels"])
assert page.count('data-atomq-chart="') >= 4

# --compare: the same kernel before (block_private, one value) and after (uniform input).
cmp_md = work / "compare.md"
p = report(hist / "block_private-uniform.json", "--compare", hist / "block_private-single.json", "-o", cmp_md)
assert p.returncode == 0, p.stderr
assert "### baseline block_private-single -> block_private-uniform" in cmp_md.read_text()

# The same program analyzed live (the recorded run) and from its ncu export: every kernel is
# matched although ncu spells the names differently ("const float *" vs "float const*").
ncu_run = work / "ncu.json"
ncu_csv = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "multi_kernel_app.ncu.csv"
p = subprocess.run([atomq, "analyze", "--ncu-csv", str(ncu_csv), "-o", str(ncu_run)], capture_output=True, text=True)
assert p.returncode == 0, p.stderr
p = report(recorded / "multi_kernel_app.json", "--compare", ncu_run, "-o", work / "live_vs_ncu.md")
assert p.returncode == 0, p.stderr
live_names = {k["profile"]["kernel"]["name"].split("(")[0] for k in json.loads((recorded / "multi_kernel_app.json").read_text())["kernels"]}
compared = set(re.findall(r"^baseline ncu/(\w+)(?:#\d+)? -> multi_kernel_app/(\w+)(?:#\d+)?:", p.stdout, re.M))
assert {b for b, a in compared if a == b} == live_names, (compared, live_names)
assert "unmatched" not in p.stdout, p.stdout

# Bad input: one line naming the file and the field, exit 1.
not_run = work / "not_a_run.json"
not_run.write_text(json.dumps({"format": "atomq.service_table", "version": 1}))
wrong_version = work / "wrong_version.json"
doc = json.loads(runs[0].read_text())
doc["version"] = 9
wrong_version.write_text(json.dumps(doc))
for bad, field in ((not_run, "'format'"), (wrong_version, "'version'")):
    p = report(bad, "-o", work / "bad.md")
    assert p.returncode == 1, (bad, p.stdout, p.stderr)
    assert str(bad) in p.stderr and field in p.stderr and p.stderr.count("\n") == 1, p.stderr
p = report(runs[0], "-o", work / "report.pdf")
assert p.returncode == 1 and ".html or .md" in p.stderr, p.stderr
p = report(runs[0], runs[1], "--pair", "nope:naive_global-single", "-o", work / "bad.md")
assert p.returncode == 1 and "nope" in p.stderr and "naive_global-single" in p.stderr, p.stderr
assert not (work / "bad.md").exists()
print("report CLI: ok")

# Several outputs are all or none: the second cannot be written, so the first is not either.
first = work / "first.md"
first.unlink(missing_ok=True)
p = report(runs[0], "-o", first, "-o", work / "no_such_dir" / "second.md")
assert p.returncode == 1 and "second.md" in p.stderr, p.stderr
assert not first.exists() and not list(work.glob(".first.md.*")), "half of the outputs written"
# An output that is also an input is refused, and the input is left as it was.
copy = work / "input_copy.json"
copy.write_bytes(runs[0].read_bytes())
p = report(copy, "-o", copy)
assert p.returncode == 1 and "is also an input" in p.stderr and copy.read_bytes() == runs[0].read_bytes(), p.stderr

# - is standard output: the Markdown report alone there, its summary on stderr.
p = report(runs[0], "-o", "-")
assert p.returncode == 0 and p.stdout.startswith("# atomq bottleneck report"), p.stdout[:200] + p.stderr
assert "table: " in p.stderr and not (pathlib.Path.cwd() / "-").exists(), p.stderr
# Two runs whose files share a name stay two runs (they were merged: twice the launches).
for side in ("before", "after"):
    (work / side).mkdir(exist_ok=True)
    (work / side / "app.json").write_bytes(runs[0].read_bytes())
both = work / "both.csv"
p = report(work / "before" / "app.json", work / "after" / "app.json", "-o", both)
with open(both, newline="") as f:
    rows = list(csv.DictReader(f))
assert p.returncode == 0 and sorted(r["run"] for r in rows) == ["after/app", "before/app"], rows
assert rows[0]["launches"] == rows[1]["launches"] == str(len(json.loads(runs[0].read_text())["kernels"])), rows
print("report outputs: all or none, input refused, - is stdout, runs kept apart")

# analyze -o -: the run document alone on standard output, the summary on stderr.
p = subprocess.run([atomq, "analyze", "--ncu-csv", str(ncu_csv), "-o", "-"], capture_output=True, text=True)
assert p.returncode == 0 and json.loads(p.stdout)["format"] == "atomq.analysis_run", p.stderr
assert "wrote standard output" in p.stderr, p.stderr[-300:]
# An error naming text from the command line or a file shows its control characters as escapes.
p = report(runs[0], "--pair", "\x1b]52;c;ZXZpbA==\x07:x", "-o", work / "bad.md")
assert p.returncode == 1 and "\x1b" not in p.stderr and "\\x1b]52;c;ZXZpbA==\\x07" in p.stderr, p.stderr
print("analyze -o - is stdout; errors escape control characters")

#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora and dictionaries (tests/fuzz/corpus/, tests/fuzz/*.dict)
from the project's committed fixtures. Run from anywhere; the output is committed.

  service_table/  the bundled GH100 table cut down to a few grid points (two sizes)
  kernel_profile/ the model tests' recorded profiles (tests/unit/model/fixtures)
  run_document/   recorded run documents (analyzer/report/recorded)
  rules/          rule sets, alone and followed by a NUL byte and a profile
  ncu_csv/        the ncu export fixture, whole and cut to its first kernel
  ncu_csv_timing/ the same, and the first kernel with a quote opened and never closed
  kernel_filter/  filter patterns, a NUL byte, then a kernel name of the fixture
"""
import json
import pathlib
import shutil

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)


def cut_table(table, n, e, c, variants, patterns, ops, spreads, warps):
    t = json.loads(json.dumps(table))
    t["axes"].update(n=n, e=e, c=c, variants=variants, patterns=patterns)
    t["cells"] = [x for x in t["cells"] if x["n"] in n and x["e"] in e and x["c"] in c
                  and x["variant"] in variants and x["pattern"] in patterns]
    t["controls"] = [x for x in t["controls"] if x["n"] in n and x["e"] in e]
    t["latencies"] = [x for x in t["latencies"] if x["pattern"] in patterns]
    l2 = t["l2"]
    l2["axes"].update(ops=ops, spreads=spreads, warps_per_sm=warps)
    l2["cells"] = [x for x in l2["cells"] if x["op"] in ops and x["spread"] in spreads
                   and x["warps_per_sm"] in warps]
    return t


def tables():
    gh100 = json.loads((ROOT / "calibration/tables/GH100.json").read_text())
    small = cut_table(gh100, [1, 8, 64], [1, 32], [0.0, 1.0], ["popc_inc", "add"],
                      ["distinct", "conflict4", "same"], ["red.add.u32", "atom.cas.u32"],
                      ["one_address", "one_line", "many_lines", "distinct"], [4, 64])
    tiny = cut_table(gh100, [8], [32], [0.0], ["add"], ["distinct"], ["red.add.u32"], ["one_address"], [64])
    write(CORPUS / "service_table/gh100_small.json", json.dumps(small, indent=1))
    write(CORPUS / "service_table/gh100_tiny.json", json.dumps(tiny, indent=1))
    return [small, tiny]


def profiles():
    out = []
    for f in sorted((ROOT / "tests/unit/model/fixtures").glob("*.json")):
        profile = json.loads(f.read_text())["profile"]
        write(CORPUS / "kernel_profile" / f.name, json.dumps(profile, indent=1))
        out.append(profile)
    return out


def run_documents():
    recorded = ROOT / "analyzer/report/recorded"
    docs = [recorded / "multi_kernel_app.json"] + [recorded / "hist" / n for n in
                                                  ("naive_global-single.json", "block_private-uniform.json")]
    for f in docs:
        write(CORPUS / "run_document" / f.name, f.read_bytes())
    return [json.loads(f.read_text()) for f in docs]


def rules(profile):
    sets = {"empty.json": {}, "strict.json": {"severe_utilization": 0.95, "potential_utilization": 0.5},
            "conflict.json": {"high_conflict_min_k": 2, "replication_factor": 4, "imbalance_ratio": 1.1},
            "l2.json": {"l2_hot_address_min_share": 0.3, "l2_rate_tolerance": 0.5, "memory_busy_fraction": 0.2}}
    for name, doc in sets.items():
        write(CORPUS / "rules" / name, json.dumps(doc, indent=1))
    write(CORPUS / "rules/strict_with_profile.bin",
          json.dumps(sets["strict.json"]).encode() + b"\0" + json.dumps(profile, indent=1).encode())
    return list(sets.values())


def ncu_csv():
    fixture = ROOT / "tests/fixtures/multi_kernel_app.ncu.csv"
    text = fixture.read_text()
    write(CORPUS / "ncu_csv" / fixture.name, text)
    lines = text.splitlines(keepends=True)
    header = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    first = [l for l in lines[header + 1:] if l.startswith('"0"')]
    write(CORPUS / "ncu_csv/one_kernel.ncu.csv", "".join([lines[header]] + first))
    write(CORPUS / "ncu_csv_timing" / fixture.name, text)
    write(CORPUS / "ncu_csv_timing/one_kernel.ncu.csv", "".join([lines[header]] + first))
    write(CORPUS / "ncu_csv_timing/stray_quote.ncu.csv", "".join([lines[header], first[0], '"0","popc\n'] + first[1:]))
    # Found by the harness (its lines before a header were split one by one): kept as a seed.
    write(CORPUS / "ncu_csv_timing/header_lacks_grid_size.ncu.csv", "".join(
        [lines[header].replace('"Grid Size"', '"DeviceGrid Size"')] + lines[header + 1:]))
    # Also found by it: a line that starts like a header, without a line break (a 1 MiB line).
    write(CORPUS / "ncu_csv_timing/id_line_without_break.ncu.csv", '"ID","Proce"ID","Procss13,175Process Nes')
    return lines[header:]


FILTER_PATTERNS = ["popc_distinct", "^popc", "(popc|cas)_distinct\\(", "[[:alpha:]_]+\\(unsigned int \\*\\)$",
                   "(a|b)*c", "(a)\\1", "a(?=b)", ".*.*.*=.*", "\\d+\\w*",
                   ".*.{1000}1", ".*.{90}1"]  # the last two: the program-size limit (found by the harness)


def kernel_filter():
    names = sorted({l.split('","')[4] for l in ncu_csv()[1:] if l.count('","') > 4})
    for i, pattern in enumerate(FILTER_PATTERNS):
        write(CORPUS / f"kernel_filter/{i:02d}.bin", pattern.encode() + b"\0" + names[i % len(names)].encode())
    write(HERE / "kernel_filter.dict", "\n".join('"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"' for t in
                                             ["(", ")", "(?:", "(?=", "(?i)", "[", "]", "[^", "[[:alpha:]]", "\\", "\\1",
                                              "\\d", "\\w", "\\b", "*", "+", "?", "{1000}", "{2,}", "|", "^", "$",
                                              ".", "<", ">", "::", "regex:"]) + "\n")


def keys(doc, out):
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.add(k)
            keys(v, out)
    elif isinstance(doc, list):
        for v in doc:
            keys(v, out)
    elif isinstance(doc, str) and len(doc) < 40:
        out.add(doc)


def dictionary(path, words):
    tokens = ['"{"', '"}"', '"["', '"]"', '","', '":"', '"true"', '"false"', '"null"', '"-1"', '"1e999"',
              '"0.0"', '"4294967297"', '"9223372036854775808"', '"\\\\u0000"', '"\\\\ud800"', '"\\xff"']
    quoted = ['"' + w.replace("\\", "\\\\").replace('"', '\\"') + '"' for w in sorted(words)
              if w and all(32 <= ord(ch) < 127 for ch in w)]
    write(path, "\n".join(tokens + quoted) + "\n")


def main():
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    words = set()
    for doc in tables() + profiles() + run_documents():
        keys(doc, words)
    profile_words = set()
    keys(json.loads((CORPUS / "kernel_profile/multi_kernel_app-popc_distinct.json").read_text()), profile_words)
    for doc in rules(json.loads((CORPUS / "kernel_profile/multi_kernel_app-popc_distinct.json").read_text())):
        keys(doc, words)
    dictionary(HERE / "json.dict", words)
    csv_words = {"ID", "Kernel Name", "Block Size", "Grid Size", "CC", "Metric Name", "Metric Unit", "Metric Value",
                 "==WARNING==", "==PROF==", "n/a", "(1, 1, 1)", "(1024, 1, 1)", "9.0", "byte", "Kbyte", "ns", "usecond",
                 "cycle", "inst", "%", "inst/cycle", "launch__registers_per_thread", "launch__occupancy_limit_blocks",
                 "device__attribute_multiprocessor_count", "1,234,567.5", "\ufeff"}
    for line in ncu_csv():
        csv_words.update(f.strip('"') for f in line.rstrip("\n").split('","'))
    dictionary(HERE / "ncu_csv.dict", {w for w in csv_words if len(w) < 80})
    kernel_filter()


if __name__ == "__main__":
    main()

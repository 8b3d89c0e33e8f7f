#!/usr/bin/env python3
"""Writes a large ncu CSV export from the committed fixture, to measure `atomq analyze --ncu-csv`
on it (docs/reliability.md, "A large export"). The output is not committed.

  make_large_ncu_export.py --bytes 1000000000 --out /tmp/big.ncu.csv \
      [--fixture tests/fixtures/multi_kernel_app.ncu.csv]

The fixture's lines before its table and its header are written once; then its launches, in
order, again and again, each copy under new result IDs (0, 1, 2, ... as ncu numbers them),
until the output holds at least --bytes bytes.
"""
import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def launches(lines):
    """The fixture's data rows grouped by result ID, in file order, each without its ID field."""
    groups = {}
    for line in lines:
        if not line.startswith('"'):
            continue
        rid, rest = line[1:].split('"', 1)
        groups.setdefault(rid, []).append(rest)
    return list(groups.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fixture", default=str(ROOT / "tests/fixtures/multi_kernel_app.ncu.csv"))
    args = ap.parse_args()
    lines = pathlib.Path(args.fixture).read_text().splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    groups = launches(lines[header + 1:])
    written, rid = 0, 0
    with open(args.out, "w") as out:
        head = "".join(lines[:header + 1])
        out.write(head)
        written += len(head)
        while written < args.bytes:
            chunk = []
            for group in groups:
                prefix = f'"{rid}"'
                chunk.extend(prefix + rest for rest in group)
                rid += 1
            text = "".join(chunk)
            out.write(text)
            written += len(text)
    print(f"{args.out}: {written} bytes, {rid} launches", file=sys.stderr)


if __name__ == "__main__":
    main()

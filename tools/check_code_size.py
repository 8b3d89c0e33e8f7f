#!/usr/bin/env python3
"""Product code size limits: no file over MAX_FILE lines, no function over MAX_FUNCTION lines.

Functions are found by brace matching: a '{' that closes a line ending a parameter list ')'
(optionally followed by qualifiers) opens a function body. Comments and strings are blanked
first so their braces do not count. Usage: check_code_size.py ROOT [--max-file N] [--max-function N]
"""
import argparse
import pathlib
import re
import sys

PRODUCT_DIRS = ["common", "microbench", "histogram", "calibration", "model", "analyzer"]
SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h"}
HEADER_RE = re.compile(
    r"\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s\*&]+|\s)*\s*(:[^;{}]*)?\{$", re.S)
CONTROL_RE = re.compile(r"\b(if|for|while|switch|catch|do|else)\s*(\(|\{)")


def blank_comments_and_strings(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


def functions(text):
    """Yields (name, first_line, line_count) for every function body in the file."""
    code = blank_comments_and_strings(text)
    stack = []  # (is_function, name, start_line)
    line = 1
    for pos, ch in enumerate(code):
        if ch == "\n":
            line += 1
        elif ch == "{":
            head = code[max(0, pos - 400):pos + 1]
            head = head[max(head.rfind(";"), head.rfind("}"), head.rfind("{", 0, len(head) - 1)) + 1:]
            is_fn = bool(HEADER_RE.search(head.strip())) and not CONTROL_RE.search(head) \
                and not any(f for f, _, _ in stack if f)
            name = re.findall(r"([~\w:]+)\s*\(", head)
            stack.append((is_fn, name[0] if name else "?", line))
        elif ch == "}" and stack:
            is_fn, name, start = stack.pop()
            if is_fn:
                yield name, start, line - start + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--max-file", type=int, default=500)
    ap.add_argument("--max-function", type=int, default=90)
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    problems = []
    for d in PRODUCT_DIRS:
        for path in sorted((root / d).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            rel = path.relative_to(root)
            lines = text.count("\n")
            if lines > args.max_file:
                problems.append(f"{rel}: {lines} lines (limit {args.max_file})")
            for name, start, count in functions(text):
                if count > args.max_function:
                    problems.append(f"{rel}:{start}: function {name} has {count} lines "
                                    f"(limit {args.max_function})")
    for p in problems:
        print(p)
    print(f"code size: {len(problems)} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Distinct sectors per global atomic instruction, from the ncu CSVs of tools/ncu_probe.sh.

  tools/atomic_sectors.py FOLDER [FOLDER ...]

`smsp__sass_sectors_mem_global` counts the distinct 32-byte sectors each warp instruction
touches, summed over every global memory instruction; the L1's own load and store sector counts
(`l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}`) are the same for those instructions, so the
rest is the atomics' (docs/model.md, "Lanes per sector"). Per file, the first launch of the first
kernel that is not the validation's stream hold: its global RED and ATOM instructions, their
distinct sectors per instruction, the L1's sectors per instruction (a sector per lane for RED)
and the L2's RED requests per RED, and the kernel's time.
"""
import csv
import pathlib
import sys

NEEDED = ("smsp__sass_sectors_mem_global.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "smsp__sass_inst_executed_op_global_red.sum",
          "smsp__sass_inst_executed_op_global_atom.sum", "gpu__time_duration.sum")


def first_kernel(path, needed=NEEDED):
    rows = [r for r in csv.reader(path.open()) if len(r) > 10]
    if not rows or "Metric Name" not in rows[0]:
        raise ValueError(f"{path}: no ncu CSV table (header with 'Metric Name')")
    head = rows[0]
    col = {name: head.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    launches = {}
    for r in rows[1:]:
        if "hold" in r[col["Kernel Name"]]:
            continue
        value = r[col["Metric Value"]].replace(",", "")
        launches.setdefault(int(r[col["ID"]]), {})[r[col["Metric Name"]]] = float(value) if value else 0.0
    if not launches:
        raise ValueError(f"{path}: no kernel launch besides the stream hold")
    metrics = launches[min(launches)]
    missing = [m for m in needed if m not in metrics]
    if missing:
        raise ValueError(f"{path}: metric {missing[0]} not in the CSV")
    return metrics


def row(path):
    m = first_kernel(path)
    red, atom = m[NEEDED[3]], m[NEEDED[4]]
    ops = red + atom
    rest = m[NEEDED[0]] - m[NEEDED[1]] - m[NEEDED[2]]
    lanes = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", 0.0) + \
        m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", 0.0)
    l2 = m.get("lts__t_requests_srcunit_tex_op_red.sum")
    per = (lambda x: f"{x / ops:.2f}") if ops else (lambda x: "-")
    l2_per_red = f"{l2 / red:.2f}" if red and l2 is not None else "-"
    name = path.stem.removeprefix("ncu-")
    return f"| {name} | {m[NEEDED[5]] / 1e3:.1f} | {red:.0f} | {atom:.0f} | {per(rest)} | {per(lanes)} | {l2_per_red} |"


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        rows = []
        for folder in argv[1:]:
            files = sorted(pathlib.Path(folder).glob("ncu-*.csv"))
            if not files:
                raise ValueError(f"{folder}: no ncu-*.csv files")
            rows += [row(f) for f in files]
    except (OSError, ValueError) as e:
        print(f"atomic_sectors: {e}", file=sys.stderr)
        return 1
    print("| probe | time (us) | RED | ATOM | distinct sectors / instr | L1 sectors / instr | L2 RED requests / RED |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The word-lane sweep of a calibration table (docs/calibration.md, "The word-lane sweep").

    tools/word_lanes.py TABLE.json

One row per cell: op, layout (one word per line, or packed), lanes per word, L2 requests per
warp instruction, sectors per request, the hottest slice's share and observed L2 cycles per
request, all slices' requests per L2 cycle, the busy counter, and each SM's time per warp
instruction and per request (launch time x SMs / instructions or requests; the SM count is the
table's device's)."""
import json
import sys


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            table = json.load(f)
        cells = table["l2"].get("word_lane_cells", [])
        sms = table["provenance"]["sm_count"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"word_lanes: {argv[1]}: {e}", file=sys.stderr)
        return 1
    if not cells:
        print(f"word_lanes: {argv[1]}: no word_lane_cells (a table calibrated before the sweep)", file=sys.stderr)
        return 1
    print("| op | layout | lanes per word | requests / instr | sectors / request | hottest share | "
          "L2 cycles / request (hottest) | requests / L2 cycle (all) | busy | ns / instr / SM | ns / request / SM |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cells:
        instructions = c["requests"] / c["requests_per_instruction"]
        per_instr = c["duration_ns"] * sms / instructions
        per_request = c["duration_ns"] * sms / c["requests"]
        print(f"| {c['op']} | {'packed' if c['packed'] else 'one per line'} | {c['lanes_per_word']} | "
              f"{c['requests_per_instruction']:.2f} | {c.get('sectors_per_request', 0):.2f} | "
              f"{c['hottest_slice_share']:.4f} | {c['cycles_per_request']:.2f} | {c['gpu_requests_per_cycle']:.1f} | "
              f"{c['busy_fraction']:.2f} | {per_instr:.1f} | {per_request:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

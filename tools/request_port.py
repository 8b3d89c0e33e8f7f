#!/usr/bin/env python3
"""The SMs' request port to the L2, from the ncu CSVs of tools/ncu_probe.sh (docs/model.md,
"The request port").

  tools/request_port.py FOLDER [FOLDER ...]

Per file, the first launch of the first kernel that is not the validation's stream hold: the
share of the L1's cycles it handed a request to the crossbar (`l1tex__m_l1tex2xbar_req_cycles_active`)
and held one the crossbar did not take (`..._stalled`), their sum (the port's occupancy), the
hottest slice's atomic unit busy share, the observed L2 cycles per RED request at the hottest
slice, and the kernel's time.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from atomic_sectors import first_kernel  # noqa: E402  (the same CSV reading)

NEEDED = ("l1tex__m_l1tex2xbar_req_cycles_active.avg", "l1tex__m_l1tex2xbar_req_cycles_stalled.avg",
          "l1tex__cycles_elapsed.avg", "lts__d_atomic_input_cycles_active.max", "lts__cycles_elapsed.max",
          "lts__t_requests_op_red.max", "gpu__time_duration.sum")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    print("| file | port active | port stalled | port occupied | hottest slice busy | L2 cycles / RED at the hottest | time (us) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    status = 0
    for folder in argv[1:]:
        for path in sorted(pathlib.Path(folder).glob("ncu-*.csv")):
            try:
                m = first_kernel(path, NEEDED)
            except (OSError, ValueError) as e:
                print(f"request_port: {e}", file=sys.stderr)
                status = 1
                continue
            elapsed = m["l1tex__cycles_elapsed.avg"]
            active = m["l1tex__m_l1tex2xbar_req_cycles_active.avg"] / elapsed
            stalled = m["l1tex__m_l1tex2xbar_req_cycles_stalled.avg"] / elapsed
            busy = m["lts__d_atomic_input_cycles_active.max"] / m["lts__cycles_elapsed.max"]
            red = m["lts__t_requests_op_red.max"]
            per_red = f"{m['lts__cycles_elapsed.max'] / red:.2f}" if red > 0 else "-"
            print(f"| {path.stem[4:]} | {active:.1%} | {stalled:.1%} | {active + stalled:.1%} | {busy:.1%} | {per_red} | "
                  f"{m['gpu__time_duration.sum'] / 1e3:.1f} |")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""One PyTorch CAS-loop kernel on a uniform input and on a one-value input, in the order the
argument names (u: uniform, o: one value; default "uo"), for tools/per_launch_check.py.

    python3 torch_storm.py [ORDER]

`scatter_reduce_(..., reduce="prod")` on float32 multiplies through a global atomicCAS loop
(PyTorch has no native float multiply atomic): 256 Ki values near 1 into 4096 targets, or all
into one. Each launch's result is checked against a float64 product on the CPU (relative error
below 1e-3). Exits 0 when every launch agrees."""
import sys

import torch

VALUES = 1 << 18
TARGETS = 4096


def run(one_value):
    g = torch.Generator().manual_seed(1301)
    src = 1.0 + (torch.rand(VALUES, generator=g) - 0.5) * 1e-3
    index = torch.zeros(VALUES, dtype=torch.int64) if one_value else torch.randint(0, TARGETS, (VALUES,), generator=g)
    out = torch.ones(TARGETS, device="cuda")
    out.scatter_reduce_(0, index.cuda(), src.cuda(), reduce="prod")
    torch.cuda.synchronize()
    expected = torch.ones(TARGETS, dtype=torch.float64).scatter_reduce_(0, index, src.double(), reduce="prod")
    error = ((out.cpu().double() - expected).abs() / expected.abs()).max().item()
    if error > 1e-3:
        print(f"torch_storm: {'one-value' if one_value else 'uniform'} product off by {error:.3g}", file=sys.stderr)
        return False
    return True


def main():
    order = sys.argv[1] if len(sys.argv) > 1 else "uo"
    if not order or set(order) - {"u", "o"}:
        sys.exit("usage: torch_storm.py [ORDER]  (letters u and o)")
    ok = all([run(c == "o") for c in order])
    print(f"torch_storm: {len(order)} launches, order {order}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

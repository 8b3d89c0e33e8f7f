"""A short PyTorch pipeline for overhead measurements (docs/analyzer.md, "Overhead"): a few
steps of elementwise work, a matrix product, a softmax, a reduction and a float histogram
(`torch.histc` on float32 counts into shared memory with atomicAdd(float), a CAS loop on sm_90).
Nothing here is atomq's code.

    python3 torch_pipeline.py [STEPS]   (default 6: about 50 kernel launches)

Prints the number of steps and the histogram's total, and exits 0 when every step's histogram
counted every value."""
import sys

import torch

VALUES = 1 << 22
BINS = 256


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    gen = torch.Generator(device="cuda").manual_seed(1401)
    x = torch.rand(VALUES, device="cuda", generator=gen)
    w = torch.randn(512, 512, device="cuda", generator=gen)
    ok = True
    for _ in range(steps):
        y = torch.sin(x) * 2.0 + 1.0
        counts = torch.histc(y, bins=BINS, min=-1.0, max=3.0)
        m = torch.mm(w, w).softmax(dim=1)
        w = w + 1e-3 * m
        ok = ok and int(counts.sum().item()) == VALUES
        x = (x + 0.1).remainder(1.0)
    torch.cuda.synchronize()
    print(f"torch_pipeline: {steps} steps, histograms {'complete' if ok else 'INCOMPLETE'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

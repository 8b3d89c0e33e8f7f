"""Atomic-heavy PyTorch operators, each paired with another PyTorch call that computes the same
result another way: a third-party program for atomq (nothing here is atomq's code).

  python3 torch_ops.py CASE ROLE [--repeat N] [--timings FILE]

ROLE `baseline` or `fix` runs that call N times (default 2) after building the input. With
--timings FILE the two roles' results are compared (exit 1 when they differ), then both are
timed (CUDA events, median of 11 runs) and written to FILE as JSON."""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F

N = 1 << 24
BINS = 256


def hot_index(n, bins, hot_share, gen):
    idx = torch.randint(0, bins, (n,), device="cuda", generator=gen)
    hot = torch.rand(n, device="cuda", generator=gen) < hot_share
    return torch.where(hot, torch.zeros_like(idx), idx)


def make_cases(gen):
    cases = {}

    def scatter_vs_bincount(name, hot_share, dtype=torch.float32):
        idx = hot_index(N, BINS, hot_share, gen)
        w = torch.rand(N, device="cuda", generator=gen, dtype=dtype)
        out = torch.zeros(BINS, device="cuda", dtype=dtype)
        cases[name] = (lambda: out.zero_().scatter_add_(0, idx, w),
                       lambda: torch.bincount(idx, weights=w, minlength=BINS).to(dtype), 1e-3)

    scatter_vs_bincount("scatter_add_hot", 0.25)
    scatter_vs_bincount("scatter_add_uniform", 0.0)
    scatter_vs_bincount("scatter_add_hot_f64", 0.25, torch.float64)  # REDG.E.ADD.F64

    # index_add_ of rows: 8-wide float rows into 1 Mi targets, uniform (little contention).
    rows_idx = torch.randint(0, 1 << 20, (1 << 22,), device="cuda", generator=gen)
    rows = torch.rand(1 << 22, 8, device="cuda", generator=gen)
    table = torch.zeros(1 << 20, 8, device="cuda")
    order = torch.argsort(rows_idx)
    sorted_idx, sorted_rows = rows_idx[order], rows[order]
    cases["index_add_rows"] = (lambda: table.zero_().index_add_(0, rows_idx, rows),
                               lambda: table.zero_().index_add_(0, sorted_idx, sorted_rows), 1e-3)

    # histc: float values, 256 bins, values clustered in a few bins.
    vals = (torch.randn(N, device="cuda", generator=gen) * 0.02 + 0.5).clamp(0, 1)
    cases["histc_clustered"] = (lambda: torch.histc(vals, bins=BINS, min=0, max=1),
                                lambda: torch.bincount((vals * BINS).long().clamp(max=BINS - 1),
                                                       minlength=BINS).float(), 0)

    # scatter_reduce amax into 256 slots, a quarter of the updates into slot 0.
    idx = hot_index(N, BINS, 0.25, gen)
    w = torch.rand(N, device="cuda", generator=gen)
    dst = torch.zeros(BINS, device="cuda")
    cases["scatter_amax_hot"] = (
        lambda: dst.zero_().scatter_reduce_(0, idx, w, reduce="amax", include_self=True),
        lambda: torch.zeros(BINS, device="cuda").index_reduce_(0, idx, w, "amax", include_self=True), 0)
    return cases


def f16_scatter_add_hot(gen):
    # PyTorch's gpuAtomicAdd on at::Half, a quarter into bin 0. A half sum of 4 Mi adds stops
    # growing long before a float one: tolerance None, not compared.
    idx = hot_index(N, BINS, 0.25, gen)
    w = torch.rand(N, device="cuda", generator=gen).mul_(1e-3).half()
    out = torch.zeros(BINS, device="cuda", dtype=torch.half)
    return (lambda: out.zero_().scatter_add_(0, idx, w),
            lambda: torch.bincount(idx, weights=w.float(), minlength=BINS).half(), None)


def f16_index_add_rows(gen):
    # index_add_ of half rows (PyTorch's half2 atomics), uniform targets, against sorted indices.
    idx = torch.randint(0, 1 << 20, (1 << 22,), device="cuda", generator=gen)
    rows = torch.rand(1 << 22, 8, device="cuda", generator=gen).half()
    table = torch.zeros(1 << 20, 8, device="cuda", dtype=torch.half)
    order = torch.argsort(idx)
    sorted_idx, sorted_rows = idx[order], rows[order]
    return (lambda: table.zero_().index_add_(0, idx, rows),
            lambda: table.zero_().index_add_(0, sorted_idx, sorted_rows), 2e-2)


def upsample_bilinear_bwd(gen):
    # Bilinear 2x upsampling's backward (a scatter: 4 float adds per output pixel) against the same
    # adjoint as two matrix products (a gather: no atomics).
    grad = torch.rand(8, 64, 256, 256, device="cuda", generator=gen)
    eye = torch.eye(128, device="cuda")[None]
    up_t = F.interpolate(eye, size=256, mode="linear", align_corners=False)[0]  # (128, 256)
    return (lambda: torch.ops.aten.upsample_bilinear2d_backward(grad, [256, 256], [8, 64, 128, 128], False),
            lambda: torch.matmul(torch.matmul(up_t, grad), up_t.t()), 1e-3)


def bincount_large_hot(gen):
    # bincount into 1 Mi bins (too many for shared memory: global 64-bit atomics), a quarter into
    # bin 0, against index_put_ with accumulate (sort-based).
    bins = 1 << 20
    idx = hot_index(N, bins, 0.25, gen)
    ones = torch.ones(N, device="cuda", dtype=torch.long)
    counts = torch.zeros(bins, device="cuda", dtype=torch.long)
    return (lambda: torch.bincount(idx, minlength=bins),
            lambda: counts.zero_().index_put_((idx,), ones, accumulate=True), 0)


def sort_equal_keys(gen):
    # torch.sort (CUB's radix sort) of 64 Mi int32 keys all equal, against random keys: different
    # inputs, results not compared; the contrast says what the equal digits cost.
    keys = torch.randint(0, 1 << 30, (1 << 26,), device="cuda", generator=gen, dtype=torch.int32)
    same = torch.full((1 << 26,), 7, device="cuda", dtype=torch.int32)
    return (lambda: torch.sort(same), lambda: torch.sort(keys), None)


def compiled_scatter_add_hot(gen):
    # A compiled (generated Triton) index_add_, a quarter into bin 0, against bincount.
    idx = hot_index(N, BINS, 0.25, gen)
    w = torch.rand(N, device="cuda", generator=gen)
    fn = torch.compile(lambda i, v: torch.zeros(BINS, device="cuda").index_add_(0, i, v))
    return (lambda: fn(idx, w), lambda: torch.bincount(idx, weights=w, minlength=BINS), 1e-3)


def scatter_add_sorted(gen):
    # scatter_add_ of 16 Mi floats by sorted indices (each next index one higher with probability
    # 1/6: runs of mean 6 over about 2.8 M slots), as a charge deposit or a row sum after a sort,
    # against segment_reduce over the runs (their lengths computed once: the indices are reused).
    steps = (torch.rand(N, device="cuda", generator=gen) < 1 / 6).long()
    idx = torch.cumsum(steps, 0)
    w = torch.rand(N, device="cuda", generator=gen)
    out = torch.zeros(int(idx[-1]) + 1, device="cuda")
    keys, lengths = torch.unique_consecutive(idx, return_counts=True)
    return (lambda: out.zero_().scatter_add_(0, idx, w),
            lambda: out.zero_().index_copy_(0, keys, torch.segment_reduce(w, "sum", lengths=lengths)), 1e-3)


# The cases added later, each built alone (the earlier cases' inputs stay those of their runs).
LATER_CASES = {f.__name__: f for f in (f16_scatter_add_hot, f16_index_add_rows, upsample_bilinear_bwd,
                                       bincount_large_hot, sort_equal_keys, compiled_scatter_add_hot,
                                       scatter_add_sorted)}


def median_ms(fn, runs=11):
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("role", choices=["baseline", "fix"])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timings")
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(1)
    if args.case in LATER_CASES:
        baseline, fix, tol = LATER_CASES[args.case](gen)
    else:
        cases = make_cases(gen)
        if args.case not in cases:
            raise SystemExit(f"unknown case {args.case}; known: {', '.join([*cases, *LATER_CASES])}")
        baseline, fix, tol = cases[args.case]
    if not args.timings:  # profiled: only this role's kernels run
        run = baseline if args.role == "baseline" else fix
        for _ in range(args.repeat):
            run()
        torch.cuda.synchronize()
        print(f"{args.case} {args.role}: ran {args.repeat} times")
        return
    def result(run):  # a copy: both roles of a case may write the same tensor
        out = run()
        return (out[0] if isinstance(out, tuple) else out).float().clone()  # torch.sort: (values, indices)
    a = result(baseline)
    b = result(fix)
    torch.cuda.synchronize()
    if tol is None:
        print(f"{args.case}: results not compared (see the case's comment)")
    elif not torch.allclose(a, b, rtol=max(tol, 1e-6), atol=max(tol, 1e-3)):
        print(f"{args.case}: results differ, max |a-b| {float((a - b).abs().max())}")
        raise SystemExit(1)
    else:
        print(f"{args.case}: results agree")
    if args.timings:
        t = {"case": args.case, "baseline_ms": median_ms(baseline), "fix_ms": median_ms(fix),
             "device": torch.cuda.get_device_name(), "torch": torch.__version__}
        with open(args.timings, "w") as f:
            json.dump(t, f, indent=1)
        print(json.dumps(t))


if __name__ == "__main__":
    main()

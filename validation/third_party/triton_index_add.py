"""A kernel generated at run time: torch.compile (Inductor) turns a float index_add into a Triton
kernel (`triton_poi_fused_index_add_mul_zeros_*`, global atomic adds), loaded from a cubin the
driver gets through cuModuleLoadData; a quarter of the 16 Mi updates go to bin 0. Checks the
compiled result against eager execution; exits 1 when they differ.
  atomq -v analyze -o OUT.json -- python3 triton_index_add.py"""
import torch

torch.manual_seed(0)
n, bins = 1 << 24, 256
idx = torch.randint(0, bins, (n,), device="cuda")
idx[::4] = 0
w = torch.rand(n, device="cuda")


@torch.compile
def hist(idx, w):
    out = torch.zeros(bins, device="cuda")
    return out.index_add(0, idx, w * 2.0)


for _ in range(3):
    r = hist(idx, w)
torch.cuda.synchronize()
ref = torch.zeros(bins, device="cuda").index_add_(0, idx, w * 2.0)
ok = torch.allclose(r, ref, rtol=1e-3)
print("triton result", "correct" if ok else "WRONG")
raise SystemExit(0 if ok else 1)

"""Triton's float atomics into one global address, as generated code issues them: `tl.atomic_max`
on float32 (Triton lowers it to integer max/min on the bit pattern, one for non-negative values and
one for negative ones) and `tl.atomic_add` on float32. Each kernel reads 4 Mi values (half of them
negative) and updates one word; the results are checked against torch (exactly for the max, to
1e-3 relative for the sum); exits 1 when they differ.
  atomq analyze -o OUT.json -- python3 triton_atomics.py"""
import torch
import triton
import triton.language as tl


@triton.jit
def triton_max_one_address(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(x_ptr + offsets, mask=mask)
    tl.atomic_max(out_ptr + offsets * 0, values, mask=mask)


@triton.jit
def triton_add_one_address(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(x_ptr + offsets, mask=mask)
    tl.atomic_add(out_ptr + offsets * 0, values, mask=mask)


torch.manual_seed(0)
n, block = 1 << 22, 1024
x = torch.randn(n, device="cuda")
grid = (triton.cdiv(n, block),)
top = torch.full((1,), float("-inf"), device="cuda")
total = torch.zeros(1, device="cuda")
triton_max_one_address[grid](x, top, n, BLOCK=block)
triton_add_one_address[grid](x, total, n, BLOCK=block)
torch.cuda.synchronize()
ok = top.item() == x.max().item() and abs(total.item() - x.double().sum().item()) <= 1e-3 * x.abs().sum().item()
print("triton atomics result", "correct" if ok else "WRONG", top.item(), total.item())
raise SystemExit(0 if ok else 1)

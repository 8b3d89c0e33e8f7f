"""A PyTorch program under torch.autograd.profiler.emit_nvtx(): each op's kernels run inside an
NVTX range named after the op ("aten::mm, seq = N", ...), all inside a "step" range. For
tests/integration/check_torch_nvtx.py."""
import torch

x = torch.rand(1 << 20, device="cuda")
a = torch.rand(512, 512, device="cuda")
torch.cuda.synchronize()
with torch.autograd.profiler.emit_nvtx():
    torch.cuda.nvtx.range_push("step")
    for _ in range(2):
        b = a @ a
        h = torch.histc(x, bins=256, min=0.0, max=1.0)
        s = torch.softmax(b, dim=1)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
ok = int(h.sum().item()) == x.numel() and abs(float(s.sum().item()) - 512.0) < 1e-2
print("torch nvtx result", "correct" if ok else "WRONG")
raise SystemExit(0 if ok else 1)

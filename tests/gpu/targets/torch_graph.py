# A third-party program for the CUDA-graph test: PyTorch captures scatter_add_ (global atomics on
# one hot bin) with a fill and a multiply into a CUDA graph and replays it 5 times; it checks its
# result against eager execution and exits 1 when they differ (tests/integration/check_torch_graph.py).
import torch
torch.manual_seed(0)
dev = "cuda"
n, bins = 1 << 22, 256
idx = torch.randint(0, bins, (n,), device=dev)
idx[::4] = 0  # a hot bin
src = torch.ones(n, device=dev)
out = torch.zeros(bins, device=dev)
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(2):
        out.zero_(); out.scatter_add_(0, idx, src); out.mul_(2.0)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    out.zero_()
    out.scatter_add_(0, idx, src)
    out.mul_(2.0)
acc = torch.zeros(bins, device=dev)
for _ in range(5):
    g.replay()
    acc += out
torch.cuda.synchronize()
ref = torch.zeros(bins, device=dev).scatter_add_(0, idx, src) * 2.0 * 5
ok = torch.allclose(acc, ref)
print("torch graph result", "correct" if ok else "WRONG", float(acc[0]), float(ref[0]))
raise SystemExit(0 if ok else 1)

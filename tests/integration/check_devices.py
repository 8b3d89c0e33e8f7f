"""Execute `atomq devices`, then validate: a full listing with a GPU, one clear line without."""
import subprocess
import sys

atomq = sys.argv[1]
p = subprocess.run([atomq, "devices"], capture_output=True, text=True, timeout=120)
if p.returncode == 0:
    for field in ("chip", "compute capability", "SMs", "max warps per SM", "shared memory per SM",
                  "SM clock", "driver / runtime", "hardware counters"):
        assert field in p.stdout, f"devices output lacks '{field}':\n{p.stdout}"
    print(p.stdout)
else:
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 3, f"expected exit code 3 without a GPU, got {p.returncode}: {p.stderr}"
    assert len(lines) == 1, f"expected one line, got: {p.stderr!r}"
    assert lines[0].startswith(("atomq: no usable NVIDIA GPU", "atomq: `atomq devices` needs a GPU build")), lines[0]
    assert "Segmentation" not in p.stderr and "terminate" not in p.stderr
    print("no GPU here, as reported:", lines[0])

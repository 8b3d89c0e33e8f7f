"""The skip checks the GPU integration checks share: exit 77 (CTest's skip code) with the
reason when the machine has no GPU or no toolkit tool a check needs."""
import pathlib
import shutil
import subprocess
import sys


def require_gpu(atomq):
    if subprocess.run([atomq, "devices"], capture_output=True).returncode != 0:
        print("SKIPPED: no GPU")
        sys.exit(77)


def require_tool(name, why):
    if not shutil.which(name) and not (pathlib.Path("/usr/local/cuda/bin") / name).exists():
        print(f"SKIPPED: no {name} ({why})")
        sys.exit(77)


def require_torch_cuda():
    """Skips unless this Python has PyTorch built for CUDA with a device."""
    probe = subprocess.run([sys.executable, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
                           capture_output=True)
    if probe.returncode != 0:
        print("SKIPPED: no PyTorch with CUDA for this Python")
        sys.exit(77)


def gpu_count():
    """The GPUs nvidia-smi lists (0 without it)."""
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except OSError:
        listed = ""
    return sum(line.startswith("GPU ") for line in listed.splitlines())


def require_gpus(count, why):
    """Skips unless nvidia-smi lists at least `count` GPUs."""
    found = gpu_count()
    if found < count:
        print(f"SKIPPED: {found} GPU(s), {count} needed ({why})")
        sys.exit(77)

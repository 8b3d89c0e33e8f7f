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

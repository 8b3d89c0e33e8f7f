"""cmake/bootstrap.cmake passes the architecture, the generator and the options it is given on to
the configure step (its dry run prints that command and installs and builds nothing).

  check_bootstrap.py CMAKE SOURCE_DIR"""
import subprocess
import sys

cmake, source = sys.argv[1], sys.argv[2]


def configure_line(*defs):
    cmd = [cmake, *[f"-D{d}" for d in defs], "-DATOMQ_BOOTSTRAP_DRY_RUN=ON", "-P", f"{source}/cmake/bootstrap.cmake"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [l for l in (p.stdout + p.stderr).splitlines() if "configure: " in l]
    assert len(lines) == 1, p.stdout + p.stderr
    print(lines[0])
    return lines[0]


line = configure_line("CMAKE_CUDA_ARCHITECTURES=89", "CMAKE_GENERATOR=Unix Makefiles", "ATOMQ_HOST_ONLY=ON",
                      "ATOMQ_BUILD_DIR=/tmp/atomq-bootstrap-build")
assert "-DCMAKE_CUDA_ARCHITECTURES=89" in line, line
assert "-G Unix Makefiles" in line, line
assert "-DATOMQ_HOST_ONLY=ON" in line and "-B /tmp/atomq-bootstrap-build" in line, line
# Without settings: Ninja, and the installed GPU's architecture when nvidia-smi reports one.
line = configure_line()
assert "-G Ninja" in line, line
smi = subprocess.run(["sh", "-c", "nvidia-smi --query-gpu=compute_cap --format=csv,noheader"],
                     capture_output=True, text=True)
if smi.returncode == 0 and smi.stdout.strip():
    major, minor = smi.stdout.split()[0].split(".")
    assert f"-DCMAKE_CUDA_ARCHITECTURES={major}{minor}" in line, line
else:
    assert "CMAKE_CUDA_ARCHITECTURES" not in line, line  # the project's default (90)
print("bootstrap forwards its settings: ok")

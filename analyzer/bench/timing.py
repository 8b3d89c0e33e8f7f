"""The bench scripts' one timer: wall time of a command, which must succeed."""
import subprocess
import time


def timed(cmd, stdout=None, stderr=subprocess.PIPE):
    """Seconds `cmd` ran; stdout/stderr go where given (default: captured). Exits on failure."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=stdout or subprocess.PIPE, stderr=stderr, text=True, timeout=600)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({p.returncode}): {(p.stderr or '')[-2000:]}")
    return dt

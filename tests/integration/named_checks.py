"""What the GPU integration checks share beyond their skips (gpu_skip.py): running a command
with its output shown, and a list of named checks that decides the exit code."""
import subprocess
import sys


def run_shown(cmd, timeout=600):
    """Runs cmd, prints its stdout and the end of its stderr, returns the CompletedProcess."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    print(p.stdout)
    print(p.stderr[-3000:])
    return p


failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def finish():
    """Exit 1 when any check failed, else 0."""
    sys.exit(1 if failures else 0)

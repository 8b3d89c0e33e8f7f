"""Injection under hostile programs (tests/gpu/targets/hostile_app.cu), on a GPU: each mode is
run under `atomq analyze`; atomq must not hang or crash, must report the program's own exit
status, and must keep the profiles taken before the program ended (on disk, readable)."""
import json
import pathlib
import subprocess
import sys
import time

from gpu_skip import require_gpu

atomq, app, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
require_gpu(atomq)

# mode: (extra analyze options, the program's exit status, profiles expected: exact or (min,))
CASES = {
    "plain": ([], 0, 2),
    "fork_exec": ([], 0, (2,)),               # the parent's two, plus the exec'd child's if seen
    "many_kernels": (["--launch-count", "10"], 0, 10),
    "threads": ([], 0, 32),                  # 8 threads x 4 launches on 2 contexts
    "device_reset": ([], 0, 2),
    "stream_alloc": ([], 0, 4),
    "exit_early": ([], 0, 1),                # _exit without teardown: the profile is on disk
    "fault": ([], 5, (0,)),                  # the program's status; atomq itself does not fail
    "sigkill": ([], 128 + 9, 1),             # killed: status 137, the profile before it kept
}
failures = []
for mode, (options, status, expected) in CASES.items():
    out = work / f"{mode}.json"
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    try:
        p = subprocess.run([atomq, "analyze", "-o", str(out), *options, "--", app, mode],
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        failures.append(f"{mode}: atomq still running after 300 s (hang)")
        continue
    dt = time.perf_counter() - t0
    problems = []
    if p.returncode < 0:
        problems.append(f"atomq killed by signal {-p.returncode}")
    if p.returncode != status:
        problems.append(f"exit {p.returncode}, the program's status is {status}")
    profiles = None
    try:
        doc = json.loads(out.read_text())
        profiles = len(doc["kernels"])
        if doc["program_exit_code"] != status:
            problems.append(f"run document says exit {doc['program_exit_code']}")
        if mode == "many_kernels" and doc["launches"]["seen"] < 100000:
            problems.append(f"{doc['launches']['seen']} launches seen, 100000 made")
    except (OSError, ValueError, KeyError) as e:
        problems.append(f"no readable run document: {e}")
    if profiles is not None:
        ok = profiles >= expected[0] if isinstance(expected, tuple) else profiles == expected
        if not ok:
            problems.append(f"{profiles} profiles, expected {expected}")
    print(f"{mode:14s} exit {p.returncode:4d}  profiles {profiles}  {dt:6.1f} s  "
          f"{'ok' if not problems else '; '.join(problems)}")
    if problems:
        failures.append(f"{mode}: {'; '.join(problems)}\n{p.stderr[-1500:]}")
if failures:
    sys.exit("hostile programs:\n" + "\n".join(failures))
print("hostile programs: no hang, no crash of atomq, exit status and profiles kept in every mode")

"""The wheel as a user installs it: python/make_wheel.py assembles it from the build, pip
installs it into a fresh virtual environment (no index, no network), and there `import atomq`
gives the version, the model runs on a recorded run, and `python -m atomq demo --replay` writes
the report with the data the wheel carries.

  check_wheel.py PYTHON SOURCE_DIR BUILD_DIR WORK_DIR"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

python, source, build, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
if work.exists():
    shutil.rmtree(work)
work.mkdir(parents=True)
# A user's environment: no atomq variables, no PYTHONPATH, a HOME without calibrated tables.
env = {k: v for k, v in os.environ.items() if not k.startswith("ATOMQ_") and k not in ("PYTHONPATH", "XDG_DATA_HOME")}
env["HOME"] = str(work / "home")


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=600, **kw)
    print("$", " ".join(map(str, cmd)), "->", p.returncode)
    print(p.stdout[-3000:])
    print(p.stderr[-3000:], file=sys.stderr)
    return p


wheel = run([python, source / "python/make_wheel.py", build, work / "dist"])
assert wheel.returncode == 0, "make_wheel.py failed"
wheel_path = pathlib.Path(wheel.stdout.strip().splitlines()[-1])
venv = run([python, "-m", "venv", work / "venv"])
if venv.returncode != 0:
    print(f"SKIPPED: no virtual environment here ({venv.stderr.strip()[:300]}); Debian: apt install python3-venv")
    sys.exit(0)
vpython = work / "venv/bin/python"
assert run([vpython, "-m", "pip", "install", "--no-index", "--no-deps", wheel_path]).returncode == 0, "pip install failed"

outside = work / "elsewhere"  # not the source or build tree: the installed package is imported
outside.mkdir()
recorded = source / "analyzer/report/recorded/multi_kernel_app.json"
script = ("import atomq, json, sys; t = atomq.load_table(chip='GH100'); "
          f"print(json.dumps({{'version': atomq.__version__, 'file': atomq.__file__, 'origin': t.origin, "
          f"'classes': [atomq.analyze(p, t)['class'] for p in atomq.read_profiles({str(recorded)!r})]}}))")
p = run([vpython, "-c", script], cwd=outside)
assert p.returncode == 0, "import atomq failed in the virtual environment"
got = json.loads(p.stdout.strip().splitlines()[-1])
assert got["version"] == "0.1.0", got
assert str(work / "venv") in got["file"], f"atomq imported from {got['file']}, not the virtual environment"
assert got["classes"] and "severe" in got["classes"], got

demo = work / "demo"
p = run([vpython, "-m", "atomq", "demo", "--replay", "-o", demo], cwd=outside)
assert p.returncode == 0, "python -m atomq demo --replay failed"
assert "REPLAY of profiles recorded on " in p.stdout and (demo / "report.md").is_file()
assert f"{work / 'venv'}" in p.stdout, "the demo must use the table the wheel carries"
print(f"wheel {wheel_path.name}: installed with pip in a fresh virtual environment, imported, demo replayed: ok")

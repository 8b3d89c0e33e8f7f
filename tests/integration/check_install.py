"""Install atomq into a temporary prefix, build a separate project against the installed package
(tests/install/consumer, find_package(atomq)), evaluate a recorded run with it, then move the
prefix and run the installed `atomq demo` from the new place: the data must be found relative to
the binary, and no source or build path may be compiled into what was installed.

  check_install.py CMAKE SOURCE_DIR BUILD_DIR WORK_DIR"""
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

cmake, source, build, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
if work.exists():
    shutil.rmtree(work)
work.mkdir(parents=True)
prefix, moved = work / "prefix", work / "moved"
# A user's environment: no atomq variables, a HOME without calibrated tables.
env = {k: v for k, v in os.environ.items() if not k.startswith("ATOMQ_") and k != "XDG_DATA_HOME"}
env["HOME"] = str(work / "home")


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, timeout=560, **kw)
    print("$", " ".join(map(str, cmd)), "->", p.returncode)
    print(p.stdout[-4000:])
    print(p.stderr[-4000:], file=sys.stderr)
    assert p.returncode == 0, f"{cmd[0]} failed ({p.returncode})"
    return p


run([cmake, "--install", build, "--prefix", prefix])
for rel in ["bin/atomq", "share/atomq/tables/GH100.json", "share/atomq/recorded/manifest.json",
            "include/atomq/model/analysis.hpp", "lib/cmake/atomq/atomqConfig.cmake"]:
    assert (prefix / rel).is_file(), f"not installed: {rel}"

# The consumer: find_package(atomq), one recorded run evaluated through atomq::model.
consumer_build = work / "consumer-build"
run([cmake, "-S", source / "tests/install/consumer", "-B", consumer_build, "-G", "Ninja",
     f"-DCMAKE_PREFIX_PATH={prefix}"])
run([cmake, "--build", consumer_build])
out = run([consumer_build / "consumer"]).stdout
got = dict(line.split("\t") for line in out.strip().splitlines())
# What atomq itself concluded for the same run, when it was recorded.
doc = json.loads((prefix / "share/atomq/recorded/multi_kernel_app.json").read_text())
classes = [k["analysis"]["class"] for k in doc["kernels"]]
# Verdicts this build changed since the recording, each with its measurement.
for c in json.loads((source / "tests/python/recorded_verdict_changes.json").read_text()).get("multi_kernel_app.json", []):
    classes[c["launch"]] = c["now"]
want = dict(zip((k["profile"]["kernel"]["name"] for k in doc["kernels"]), classes))  # the last launch of a name
assert got == want, (got, want)

# Move the prefix away: the installed files hold no path of the source or build tree.
shutil.move(str(prefix), str(moved))
binaries = ["bin/atomq"] + (["bin/atomq-gpu"] if (moved / "bin/atomq-gpu").exists() else [])
for rel in binaries + [str(p.relative_to(moved)) for p in (moved / "lib").glob("*.so")]:
    strings = run(["strings", "-a", moved / rel]).stdout
    for tree in {str(source.resolve()), str(build.resolve())}:
        assert tree not in strings, f"{rel} holds the path {tree}"

demo = work / "demo"
p = run([moved / "bin/atomq", "demo", "--replay", "-o", demo], cwd=work)
assert "REPLAY of profiles recorded on " in p.stdout
# The moved prefix's bundled table of the recordings' GPU (a table of that board is bundled).
demo_table = re.search(r"table: (\S+\.json)", p.stdout)
assert demo_table and demo_table.group(1).startswith(f"{moved.resolve()}/share/atomq/tables/"), \
    "the demo must use the moved prefix's table"
recorded_gpu = json.loads((moved / "share/atomq/recorded/multi_kernel_app.json").read_text())["kernels"][0]["profile"]["device"]["name"]
assert json.loads(pathlib.Path(demo_table.group(1)).read_text())["provenance"]["gpu_name"] == recorded_gpu, demo_table.group(1)
assert (demo / "report.md").is_file()

# The source tree moved away: a copy of the prefix outside both trees runs the demo in a mount
# namespace where the source and build trees are empty (root, as CI runs, may make one).
outside = pathlib.Path(tempfile.mkdtemp(prefix="atomq_install_"))
try:
    shutil.copytree(moved, outside / "prefix", symlinks=True)
    trees = sorted({str(source.resolve()), str(build.resolve())})
    # A build tree inside the source tree is hidden with it (its mount point would be gone).
    trees = [t for t in trees if not any(t != o and t.startswith(o + "/") for o in trees)]
    hide = " && ".join(f"mount -t tmpfs none {shlex.quote(t)}" for t in trees)
    script = (f"{hide} && test ! -e {shlex.quote(str(source.resolve() / 'CMakeLists.txt'))} && "
              f"exec {shlex.quote(str(outside / 'prefix/bin/atomq'))} demo --replay -o {shlex.quote(str(outside / 'demo'))}")
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=300,
                       cwd=outside)
    if p.returncode != 0 and p.stderr.startswith("unshare:"):
        print(f"note: no mount namespace here ({p.stderr.strip()}): the source tree was not hidden")
    else:
        print(p.stdout[-2000:], p.stderr[-2000:])
        assert p.returncode == 0, f"the installed demo failed with the source tree hidden ({p.returncode})"
        assert "REPLAY of profiles recorded on " in p.stdout and (outside / "demo/report.md").is_file()
        assert f"table: {(outside / 'prefix').resolve()}/share/atomq/tables/{pathlib.Path(demo_table.group(1)).name}" in p.stdout
        print("installed demo with the source and build trees hidden: ok")

    # The CUDA toolkit hidden (issue: a performance engineer reads reports on a laptop): the
    # installed atomq needs no CUDA library to start, and report, demo --replay and analyze
    # --ncu-csv run; a GPU command says what it lacks (exit 3). Only atomq-gpu needs CUPTI.
    atomq = outside / "prefix/bin/atomq"
    dynamic = run(["readelf", "-d", atomq]).stdout
    for lib in ("libcupti", "libcuda", "libnvperf", "libcudart"):
        assert lib not in dynamic, f"bin/atomq needs {lib} at load time:\n{dynamic}"
    toolkits = sorted({str(pathlib.Path(t).resolve()) for t in ["/usr/local/cuda", "/opt/cuda"] if pathlib.Path(t).exists()})
    gpu_build = (outside / "prefix/bin/atomq-gpu").exists()
    recorded = outside / "prefix/share/atomq/recorded/multi_kernel_app.json"
    commands = [
        f"{shlex.quote(str(atomq))} report {shlex.quote(str(recorded))} -o {shlex.quote(str(outside / 'hidden.md'))}",
        f"{shlex.quote(str(atomq))} demo --replay -o {shlex.quote(str(outside / 'hidden_demo'))}",
        f"{shlex.quote(str(atomq))} analyze --ncu-csv {shlex.quote(str(source / 'tests/fixtures/multi_kernel_app.ncu.csv'))}"
        f" -o {shlex.quote(str(outside / 'hidden_csv.json'))}",
    ]
    hide = " && ".join(f"mount -t tmpfs none {shlex.quote(t)}" for t in toolkits) or "true"
    script = (f"{hide} && test ! -e /usr/local/cuda/bin/nvcc && " + " && ".join(commands) +
              f" && {{ {shlex.quote(str(atomq))} calibrate -o {shlex.quote(str(outside / 't.json'))}; echo \"gpu-exit=$?\"; }}")
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=300,
                       cwd=outside)
    if p.returncode != 0 and p.stderr.startswith("unshare:"):
        print(f"note: no mount namespace here ({p.stderr.strip()}): the toolkit was not hidden; bin/atomq's "
              "dynamic section names no CUDA library")
    else:
        print(p.stdout[-3000:], p.stderr[-3000:])
        assert p.returncode == 0, f"an installed command failed with the CUDA toolkit hidden ({p.returncode})"
        assert (outside / "hidden.md").is_file() and (outside / "hidden_demo/report.md").is_file()
        assert (outside / "hidden_csv.json").is_file()
        assert "gpu-exit=3" in p.stdout, "a GPU command without the toolkit must exit 3"
        if gpu_build:
            assert "needs the CUDA toolkit's CUPTI" in p.stderr, p.stderr
        print(f"report, demo --replay and analyze --ncu-csv with the toolkit hidden ({', '.join(toolkits)}): ok")
finally:
    shutil.rmtree(outside, ignore_errors=True)
print("install, consumer and relocated demo: ok")

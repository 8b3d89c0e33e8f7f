"""Install atomq into a temporary prefix, build a separate project against the installed package
(tests/install/consumer, find_package(atomq)), evaluate a recorded run with it, then move the
prefix and run the installed `atomq demo` from the new place: the data must be found relative to
the binary, and no source or build path may be compiled into what was installed.

  check_install.py CMAKE SOURCE_DIR BUILD_DIR WORK_DIR"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

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
want = {k["profile"]["kernel"]["name"]: k["analysis"]["class"] for k in doc["kernels"]}
assert got == want, (got, want)

# Move the prefix away: the installed files hold no path of the source or build tree.
shutil.move(str(prefix), str(moved))
for rel in ["bin/atomq"] + [str(p.relative_to(moved)) for p in (moved / "lib").glob("*.so")]:
    strings = run(["strings", "-a", moved / rel]).stdout
    for tree in {str(source.resolve()), str(build.resolve())}:
        assert tree not in strings, f"{rel} holds the path {tree}"

demo = work / "demo"
p = run([moved / "bin/atomq", "demo", "--replay", "-o", demo], cwd=work)
assert "REPLAY of recorded H200 profiles" in p.stdout
assert f"table: {moved.resolve()}/share/atomq/tables/GH100.json" in p.stdout, "the demo must use the moved prefix's table"
assert (demo / "report.md").is_file()
print("install, consumer and relocated demo: ok")

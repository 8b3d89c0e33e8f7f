"""The CLI's conventions, each run as a user would (no GPU needed):
- usage errors exit 2 with one line naming the bad word (unknown command, option, value);
- ncu's kernel-name semantics (-k NAME, -k regex:RE), -s and -c, honoured with --ncu-csv, and the
  options that only profiling uses refused there;
- --quiet and --log-level; colour only on a terminal and never with NO_COLOR;
- the exit codes in --help; metrics --chip in any case and --list-chips;
- analyze and report say which table they used and why: the user's calibrated table where
  calibrate installs it, else the bundled one, also when $HOME cannot be read or the user's
  table is broken (with a warning naming it, the error and the fix).

  check_cli.py ATOMQ FIXTURES_DIR RECORDED_DIR WORK_DIR"""
import json
import os
import pathlib
import pty
import re
import shutil
import subprocess
import sys

atomq, fixtures, recorded, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
if work.exists():
    shutil.rmtree(work)
work.mkdir(parents=True)
csv = fixtures / "multi_kernel_app.ncu.csv"
run_doc = recorded / "multi_kernel_app.json"
# The bundled table for that recording: its GPU model's (a table of that board is bundled).
run_gpu = json.loads(run_doc.read_text())["kernels"][0]["profile"]["device"]["name"]
run_bundled = f"the table bundled with atomq for the {run_gpu}"
home = work / "home"
home.mkdir()
ENV = {k: v for k, v in os.environ.items() if not k.startswith("ATOMQ_") and k not in ("XDG_DATA_HOME", "NO_COLOR")}
ENV["HOME"] = str(home)


def atomq_run(*args, env=None, cwd=work):
    p = subprocess.run([atomq, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd,
                       env={**ENV, **(env or {})})
    return p


def usage_error(args, word):
    p = atomq_run(*args)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2, f"{args}: exit {p.returncode}, want 2\n{p.stderr}"
    assert len(lines) == 1 and word in lines[0], f"{args}: want one line naming {word!r}: {p.stderr!r}"
    assert not re.search(r"\d{25}", p.stderr), f"{args}: a runaway number: {p.stderr!r}"
    print("usage error:", lines[0])


# Usage errors: exit 2, one line naming the bad word.
usage_error(["frobnicate"], "frobnicate")
usage_error([], "command")
usage_error(["analyze", "--bogus", "--ncu-csv", csv], "--bogus")
usage_error(["analyze", "--launch-count", "-1", "--ncu-csv", csv], "-1")
usage_error(["analyze", "-k", "regex:(", "--ncu-csv", csv], "regex:(")
usage_error(["analyze", "--instructions-kernel", "(", "--", "true"], "regex:(")
usage_error(["analyze", "--nvtx-include", "step", "--", "true"], '"step"')  # not a push/pop range
usage_error(["analyze", "--ncu-csv", csv, "--nvtx-include", "step/"], "--nvtx-include")
usage_error(["--log-level", "loud", "table", "show", "x"], "loud")
usage_error(["analyze"], "--ncu-csv")
# Filters that an export cannot honour are refused, not ignored.
usage_error(["analyze", "--ncu-csv", csv, "--device", "0"], "--device")
usage_error(["analyze", "--ncu-csv", csv, "--instructions", "2"], "--instructions")

help_text = atomq_run("--help").stdout
assert "Exit codes:" in help_text and "2 usage error" in help_text and "3 no usable NVIDIA GPU" in help_text, help_text


# Kernel selection with ncu's semantics on an export: what each filter keeps, from the full run.
def kernels(*filters):
    out = work / "filtered.json"
    p = atomq_run("analyze", "--ncu-csv", csv, "-o", out, *filters)
    assert p.returncode == 0, p.stderr
    return [k["profile"]["kernel"]["name"] for k in json.loads(out.read_text())["kernels"]], p.stdout


everything, stdout = kernels()
function = [n.split("(")[0] for n in everything]
assert kernels("-k", "no_atomics")[0] == [n for n, f in zip(everything, function) if f == "no_atomics"]
assert kernels("--kernel-name", everything[0])[0] == [n for n in everything if n == everything[0]]
# A NAME is a whole function name, not a part of one: "popc" matches nothing, and a filter that
# matches nothing is a usage error naming the kernels there were, with no document written.
usage_error(["analyze", "--ncu-csv", csv, "-o", work / "none.json", "-k", "popc"], "popc_distinct, add_conflict32")
assert not (work / "none.json").exists(), "a filter that matched nothing must write no document"
assert kernels("-k", "regex:^popc")[0] == [n for n in everything if n.startswith("popc")]
assert kernels("-k", "regex:^popc", "-s", "1", "-c", "1")[0] == [n for n in everything if n.startswith("popc")][1:2]
assert kernels("-s", "2", "-c", "3")[0] == everything[2:5]
# The table and why it was chosen: none calibrated under this HOME, so the bundled one.
assert re.search(r"table \S+/tables/GH100\.json \(no \S+: the table bundled with atomq for GH100\)", stdout), stdout

# A table calibrated for another chip makes the report warn: --quiet and --log-level silence it.
table = json.loads((pathlib.Path(re.search(r"table (\S+/GH100\.json)", stdout).group(1))).read_text())
table["provenance"]["chip"] = "GX999"
other = work / "other-chip.json"
other.write_text(json.dumps(table))
report = ["report", run_doc, "-o", work / "r.md", "--table", other]
loud = atomq_run(*report)
assert loud.returncode == 0 and "atomq: warning: " in loud.stderr and "GX999" in loud.stderr, loud.stderr
assert "\x1b[" not in loud.stderr, "no colour when stderr is not a terminal"
for quiet in (["--quiet"], ["-q"], ["--log-level", "error"]):
    p = atomq_run(*quiet, *report)
    assert p.returncode == 0 and p.stderr == "", (quiet, p.stderr)
assert "warning" in atomq_run("--log-level", "info", *report).stderr


def on_terminal(args, env):
    """Runs atomq with stdout and stderr on a pseudo-terminal; returns what it wrote."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(work)
        os.execve(atomq, [atomq, *map(str, args)], {**ENV, **env})
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode(errors="replace")


coloured = on_terminal(report, {})
assert "warning" in coloured and "\x1b[" in coloured, "colour on a terminal"
plain = on_terminal(report, {"NO_COLOR": "1"})
assert "warning" in plain and "\x1b[" not in plain, "NO_COLOR: no colour even on a terminal"

# The user's calibrated table, where `atomq calibrate` installs it, wins over the bundled one.
user_table = home / ".local/share/atomq/tables/GH100.json"
user_table.parent.mkdir(parents=True)
shutil.copy(re.search(r"table (\S+/GH100\.json)", stdout).group(1), user_table)
p = atomq_run("report", run_doc, "-o", work / "user.md")
assert p.returncode == 0 and f"table: {user_table} (calibrated on this machine for GH100" in p.stdout, p.stdout
p = atomq_run("report", run_doc, "-o", work / "xdg.md", env={"XDG_DATA_HOME": str(work / "xdg")})
assert p.returncode == 0 and run_bundled in p.stdout, p.stdout
# Runs of two boards in one report: each board's kernels with the table chosen for it (the H200's
# is the chip's bundled table), named at the top of the report (by file name: a report travels)
# and the other board's kernels evaluated again; one table named for all: a warning.
other_board = json.loads(run_doc.read_text())
for k in other_board["kernels"]:
    k["profile"]["device"]["name"] = "NVIDIA H200"
(work / "other_board.json").write_text(json.dumps(other_board))
p = atomq_run("report", run_doc, "--compare", work / "other_board.json", "-o", work / "boards.md",
              env={"XDG_DATA_HOME": str(work / "xdg")})
assert p.returncode == 0 and run_bundled in p.stdout, p.stdout
assert "which is also this board's choice" not in p.stderr, p.stderr
boards = (work / "boards.md").read_text()
assert re.search(r"\d+ kernel\(s\) of the NVIDIA H200 evaluated with the table chosen for that board, GH100\.json\b",
                 boards), boards[:2000]
assert str(work) not in boards, "no path of this machine in the report"
assert re.search(r"other_board[^\n]*baseline\)[^\n]*analyses evaluated again by this build", boards), boards
named = re.search(r"table: (\S+\.json) ", p.stdout).group(1)
p = atomq_run("report", run_doc, "--compare", work / "other_board.json", "-o", work / "boards_named.md",
              "--table", named, env={"XDG_DATA_HOME": str(work / "xdg")})
assert p.returncode == 0, p.stderr
assert f"kernels of the NVIDIA H200 evaluated with the table named for all runs, {named}" in p.stderr, p.stderr

# A broken user table (a truncated file) does not stop analyze or report: the bundled table,
# with a warning naming the file, the error and the fix.
user_table.write_text(user_table.read_text()[:1000])
for args in (["report", run_doc, "-o", work / "broken.md"], ["analyze", "--ncu-csv", csv, "-o", work / "broken.json"]):
    p = atomq_run(*args)
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    assert "unusable: the table bundled with atomq for " in p.stdout, (args, p.stdout)
    assert f"{user_table} cannot be used" in p.stderr and "not valid JSON" in p.stderr, (args, p.stderr)
    assert "atomq calibrate" in p.stderr and f"delete {user_table}" in p.stderr, (args, p.stderr)
user_table.unlink()
print("broken user table: bundled table, with a warning")

# A HOME that cannot be read (here: a symbolic link loop) is passed over: the bundled table.
loop = work / "loop"
os.symlink(loop, loop)
p = atomq_run("report", run_doc, "-o", work / "loop.md", env={"HOME": str(loop)})
assert p.returncode == 0 and run_bundled in p.stdout, (p.stdout, p.stderr)

# metrics: --chip in any case, --list-chips (CUPTI's list; a host-only build says it has none).
chips = atomq_run("metrics", "--list-chips")
if chips.returncode == 0:
    assert "GH100" in chips.stdout.split(), chips.stdout
    listed = atomq_run("metrics", "--list", "--chip", "gh100")
    assert listed.returncode == 0 and "on GH100" in listed.stdout, listed.stdout + listed.stderr
    usage_error(["metrics", "--list", "--chip", "nochip9"], "nochip9")
else:
    assert chips.returncode == 3 and "host-only" in chips.stderr, chips.stderr
print("CLI conventions: ok")

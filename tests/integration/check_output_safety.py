#!/usr/bin/env python3
"""Output files on a shared machine, as root: another user plants symbolic links under every
name atomq's writers used to take for their temporaries (OUT.tmp.PID for the next 100,000 pids)
and under guessable ones, in a folder that user owns; root then runs `atomq table csv` and
`atomq report` into that folder. No file outside the outputs may change, and no file may appear
where a dangling link points. An output name that is itself the other user's link is refused.

Usage: check_output_safety.py ATOMQ BUNDLED_TABLE_DIR RECORDED_DIR WORK_DIR
Runs only as root (it creates a user); exit 77 with the reason otherwise.
"""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

INTRUDER = "atomq-intruder"
PIDS = 100_000
GUESSABLE = ["{n}.tmp", "{n}~", "{n}.new", "{n}.bak", ".{n}.tmp", ".{n}.swp", ".{n}.XXXXXX", "{n}.tmp.0"]


def intruder_ids():
    try:
        entry = pwd.getpwnam(INTRUDER)
    except KeyError:
        if shutil.which("useradd") is None:
            sys.exit("useradd not found (Debian package passwd): cannot create the other user")
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", INTRUDER],
                       check=True)
        entry = pwd.getpwnam(INTRUDER)
    return entry.pw_uid, entry.pw_gid


def as_intruder(uid, gid, action):
    """Runs action() in a child process with the other user's ids; fails if the child fails."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            action()
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "planting the links as the other user failed"


def next_pids(count):
    """The next `count` pids the kernel hands out, or every pid where pid_max is smaller."""
    last = int(Path("/proc/sys/kernel/ns_last_pid").read_text())
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    pids = ((last + 1 + i) % pid_max for i in range(min(count, pid_max)))
    return [pid for pid in pids if pid > 0]


def plant(out_dir, pids_per_name, victim, dangling_dir):
    """Links under OUT.tmp.PID for the next pids and under guessable names, for each output name:
    every second one points at the victim, the others at a missing file (O_CREAT would create it)."""
    for name, count in pids_per_name.items():
        candidates = [f"{name}.tmp.{pid}" for pid in next_pids(count)] + [g.format(n=name) for g in GUESSABLE]
        for i, link in enumerate(candidates):
            target = victim if i % 2 == 0 else dangling_dir / f"created-{name}-{i}"
            os.symlink(target, out_dir / link)


def snapshot(folders, skip):
    """Every file in these folders (but skip), with its type, owner, content and modification time."""
    seen = {}
    for folder in folders:
        for p in folder.iterdir():
            if p == skip:
                continue
            st = p.lstat()
            seen[p] = (st.st_mode, st.st_mtime_ns, st.st_uid, p.read_bytes() if p.is_file() else None)
    return seen


def run(atomq, *args, expect=0):
    r = subprocess.run([atomq, *args], capture_output=True, text=True)
    assert r.returncode == expect, f"{' '.join(args)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def shared_folder_parent(work):
    """A tmpfs for the other user's links where there is one: made by a user other than root,
    30,000 links took 11 s on this machine's disk and 0.3 s in /dev/shm."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else work


def check_outputs(atomq, table, recorded, work, out_dir, uid, gid):
    """Plants the links as the other user, runs atomq as root, checks that nothing but the
    outputs changed; returns the number of links."""
    victims = work / "victims"
    victim = victims / "precious.txt"
    # The report's first output gets the next 100,000 pids; the others the next 2,000 (atomq starts
    # a few pids on).
    pids_per_name = {"report.md": PIDS, "report.csv": 2_000, "table.csv": 2_000}
    outputs = list(pids_per_name)
    as_intruder(uid, gid, lambda: plant(out_dir, pids_per_name, victim, victims))
    links_before = sorted(p.name for p in out_dir.iterdir())
    before = snapshot([work, victims], out_dir)

    run(atomq, "table", "csv", str(table), "-o", str(out_dir / "table.csv"))
    run(atomq, "report", str(recorded / "multi_kernel_app.json"), "-q",
        "-o", str(out_dir / "report.md"), "-o", str(out_dir / "report.csv"))

    assert snapshot([work, victims], out_dir) == before, "a file outside the outputs changed or appeared"
    for name in outputs:
        st = (out_dir / name).lstat()
        assert (out_dir / name).is_file() and not (out_dir / name).is_symlink(), name
        assert st.st_uid == 0, f"{name}: owned by {st.st_uid}"
    after = sorted(p.name for p in out_dir.iterdir() if p.name not in outputs)
    assert after == links_before, "the planted links changed, or a temporary was left"
    assert all(entry.is_symlink() for entry in os.scandir(out_dir) if entry.name not in outputs)

    # The output name itself planted as the other user's link: refused, the victim untouched.
    as_intruder(uid, gid, lambda: os.symlink(victim, out_dir / "planted.md"))
    r = run(atomq, "report", str(recorded / "multi_kernel_app.json"), "-q", "-o", str(out_dir / "planted.md"),
            expect=1)
    assert "a symbolic link owned by another user" in r.stderr, r.stderr
    assert snapshot([work, victims], out_dir) == before, "the planted output link was followed"
    return len(links_before)


def main():
    atomq, table_dir, recorded, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    if os.geteuid() != 0:
        print("SKIP: this test creates a user and runs atomq as root; run it as root (CI does)")
        return 77
    uid, gid = intruder_ids()
    shutil.rmtree(work, ignore_errors=True)
    (work / "victims").mkdir(parents=True)
    victim = work / "victims" / "precious.txt"
    victim.write_text("root's file: must not change\n")
    os.chmod(victim, 0o644)
    parent = Path(tempfile.mkdtemp(prefix="atomq-output-safety-", dir=shared_folder_parent(work)))
    try:
        os.chmod(parent, 0o755)
        out_dir = parent / "shared"
        out_dir.mkdir()
        os.chown(out_dir, uid, gid)
        os.chmod(out_dir, 0o777)  # not sticky: the kernel's protected_symlinks does not apply here
        links = check_outputs(atomq, next(table_dir.glob("*.json")), recorded, work, out_dir, uid, gid)
    finally:
        shutil.rmtree(parent)
    pid_max = Path("/proc/sys/kernel/pid_max").read_text().strip()
    print(f"ok: {links} links planted by uid {uid} in {out_dir} (pid_max {pid_max}); outputs written, "
          "nothing else touched")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())

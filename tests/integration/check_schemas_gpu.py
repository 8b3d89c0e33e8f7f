"""Execute the atomq commands that write documents on a GPU and validate what they wrote against
docs/schemas/ with atomq_schema_check: `atomq calibrate --quick` (the service table), `atomq hist
--analyze` (in-process) and `atomq analyze -- multi_kernel_app` (injected, with per-instruction
counts) (run documents). GPU only; else skip."""
import pathlib
import shutil
import subprocess
import sys

from gpu_skip import require_gpu

atomq, check, schemas, app, work = sys.argv[1:6]
schemas, work = pathlib.Path(schemas), pathlib.Path(work)
require_gpu(atomq)
if work.exists():
    shutil.rmtree(work)
work.mkdir(parents=True)


def run(*argv, timeout=600):
    p = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{argv}: rc {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def conforms(schema, *files):
    p = run(check, schemas / f"{schema}.schema.json", *files)
    print(p.stderr.strip())


table = work / "quick.json"
run(atomq, "calibrate", "--quick", "--no-progress", "-o", table)
conforms("service_table", table)

hist = work / "hist.json"
run(atomq, "hist", "--variant", "block_private", "--input", "uniform", "--type", "u8", "--n", "4194304",
    "--runs", "1", "--analyze", "--analysis-output", hist, "--table", table)
live = work / "live.json"
run(atomq, "analyze", "-o", live, "--table", table, "--instructions", "2", "--", app)
conforms("run_document", hist, live)
print("schemas: the table and run documents written on this GPU conform")

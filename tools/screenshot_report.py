"""Screenshot of the demo report for the docs: replays the recorded runs with
`atomq demo --replay`, renders the HTML report in headless Chromium and writes a PNG.
Usage: python3 tools/screenshot_report.py ATOMQ OUT.png [--height PIXELS]
(docs/report-demo.png: `python3 tools/screenshot_report.py build/bin/atomq docs/report-demo.png`)."""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("atomq")
parser.add_argument("out", type=pathlib.Path)
parser.add_argument("--width", type=int, default=1400)
parser.add_argument("--height", type=int, default=2600)
args = parser.parse_args()

browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
if browser is None:
    print("SKIP: no Chromium installed (Debian package chromium)")
    sys.exit(77)  # the test's skip code
with tempfile.TemporaryDirectory() as work:
    demo = pathlib.Path(work) / "demo"
    subprocess.run([args.atomq, "demo", "--replay", "-o", str(demo)], check=True, stdout=subprocess.DEVNULL)
    tmp_png = pathlib.Path(work) / "shot.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--no-first-run", "--disable-background-networking", f"--user-data-dir={profile}",
                        f"--window-size={args.width},{args.height}", "--virtual-time-budget=5000",
                        f"--screenshot={tmp_png}", (demo / "report.html").as_uri()],
                       check=True, capture_output=True, timeout=120)
    data = tmp_png.read_bytes()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        sys.exit("screenshot_report: Chromium wrote no PNG")
    partial = args.out.with_name(args.out.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, args.out)  # never a half-written image
print(f"wrote {args.out} ({len(data)} bytes)")

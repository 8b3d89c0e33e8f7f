"""Render the HTML report in headless Chromium and fail on script errors, console messages or
a chart without points. The page records on <body> how many charts it drew (assets/report.js).
Exit 77 (skipped, reason printed) only when no Chromium is installed or it cannot start."""
import html.parser
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

atomq, recorded, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)

browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
if browser is None:
    print("SKIP: no Chromium installed (Debian package chromium; cmake/bootstrap.cmake installs it)")
    sys.exit(77)

page = work / "report.html"
runs = sorted((recorded / "hist").glob("*.json")) + [recorded / "multi_kernel_app.json"]
p = subprocess.run([atomq, "report", *map(str, runs), "-o", str(page), "--compare",
                    str(recorded / "hist" / "block_private-single.json"), "-q"],
                   capture_output=True, text=True, timeout=120)
assert p.returncode == 0, p.stdout + p.stderr


def render(path):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             "--virtual-time-budget=5000", "--dump-dom", path.resolve().as_uri()],
            capture_output=True, text=True, timeout=120)


# A trivial page first: tells "Chromium cannot run here" apart from "the report is broken".
probe = work / "probe.html"
probe.write_text("<html><body><script>document.body.setAttribute('data-probe','ran')</script></body></html>")
try:
    r = render(probe)
except (OSError, subprocess.TimeoutExpired) as e:
    print(f"SKIP: Chromium cannot start here: {e}")
    sys.exit(77)
if 'data-probe="ran"' not in r.stdout:
    print(f"SKIP: Chromium cannot run a page here (exit {r.returncode}): {r.stderr[-800:]}")
    sys.exit(77)

r = render(page)
assert r.returncode == 0, r.stderr[-2000:]


class BodyAttributes(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.canvases = None, []

    def handle_starttag(self, tag, attrs):
        if tag == "body" and self.body is None:
            self.body = dict(attrs)
        if tag == "canvas":
            self.canvases.append(dict(attrs))


dom = BodyAttributes()
dom.feed(r.stdout)
body = dom.body or {}
console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
print("body:", {k: v for k, v in body.items() if k.startswith("data-atomq")})
print("canvases:", [c.get("id") for c in dom.canvases])
assert not console, "console messages:\n" + "\n".join(console)
assert body.get("data-atomq-errors", "missing") == "", body.get("data-atomq-errors")
assert body.get("data-atomq-status") == "ok", body
expected = int(body["data-atomq-charts-expected"])
assert expected == len(dom.canvases) >= 5, (expected, len(dom.canvases))
assert int(body["data-atomq-charts-drawn"]) == expected and body.get("data-atomq-empty-charts") == "", body
# Drawn canvases get a size from Chart.js.
assert all("style" in c and "height" in c["style"] for c in dom.canvases), dom.canvases
print(f"report HTML in {os.path.basename(browser)}: {expected} charts drawn, no console message")

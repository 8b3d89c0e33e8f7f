"""Render the HTML report in headless Chromium and fail on script errors, console messages or
a chart without points. The page records on <body> how many charts it drew (assets/report.js).
Exit 77 (skipped, reason printed) only when no Chromium is installed or it cannot start."""
import html.parser
import json
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
                    str(recorded / "hist" / "block_private-single.json"),
                    "--pair", "multi_kernel_app/add_conflict32:multi_kernel_app/popc_distinct", "-q"],
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



class BodyAttributes(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.canvases = None, []

    def handle_starttag(self, tag, attrs):
        if tag == "body" and self.body is None:
            self.body = dict(attrs)
        if tag == "canvas":
            self.canvases.append(dict(attrs))


def problems(path, min_charts):
    """What is wrong with the rendered page: an empty list when every chart drew its points."""
    r = render(path)
    if r.returncode != 0:
        return [f"chromium exit {r.returncode}: {r.stderr[-1500:]}"]
    dom = BodyAttributes()
    dom.feed(r.stdout)
    body = dom.body or {}
    print(path.name, {k: v for k, v in body.items() if k.startswith("data-atomq")},
          [c.get("id") for c in dom.canvases])
    found = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    if body.get("data-atomq-errors", "missing") != "":
        found.append("script errors: " + body.get("data-atomq-errors", "no status recorded"))
    if body.get("data-atomq-status") != "ok":
        found.append(f"status {body.get('data-atomq-status')}")
    expected = int(body.get("data-atomq-charts-expected", -1))
    if not expected == len(dom.canvases) >= min_charts:
        found.append(f"{expected} charts expected, {len(dom.canvases)} canvases, at least {min_charts} wanted")
    if body.get("data-atomq-charts-drawn") != str(expected) or body.get("data-atomq-empty-charts", "x") != "":
        found.append(f"drawn {body.get('data-atomq-charts-drawn')}, empty: {body.get('data-atomq-empty-charts')}")
    # Chart.js sizes every canvas it draws on.
    found += [f"canvas {c.get('id')} not sized" for c in dom.canvases if "height" not in c.get("style", "")]
    return found


found = problems(page, 5)
assert not found, "\n".join(found)

# The check itself must be able to fail: the same page with no S(n) points, and with a script error.
text = page.read_text()
no_points = work / "no_points.html"
marker = '<script type="application/json" id="atomq-report-data">'
start = text.index(marker) + len(marker)
end = text.index("</script>", start)
data = json.loads(text[start:end].replace("<\\/", "</"))
for curve in data["curves"]:
    curve["points"] = []
data["kernels"] = [dict(k, evaluated=False) for k in data["kernels"]]
no_points.write_text(text[:start] + json.dumps(data) + text[end:])
broken = work / "broken.html"
broken.write_text(text.replace("<script>\n", "<script>\nundefinedFunctionCall();\n", 2))
for bad in (no_points, broken):
    assert problems(bad, 5), f"{bad.name} passed the check"
print(f"report HTML in {os.path.basename(browser)}: every chart drawn, no console message; broken pages caught")

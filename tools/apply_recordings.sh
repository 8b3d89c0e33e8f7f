#!/usr/bin/env bash
# Turns a re-recording made on a GPU machine into the committed recordings (on the build machine),
# each folder optional ("-" skips it):
#   tools/apply_recordings.sh REC VAL TP "PROVENANCE"
#   REC  the output of tools/record_fixtures.sh: demo/ -> analyzer/report/recorded/ (copied unchanged);
#        demo/multi_kernel_app.json, l2/, cas/, acc/ -> tests/unit/model/fixtures/ (make_*.py)
#   VAL  the output of tools/validation_run.sh: the cases tests/fixtures/validation/ holds, and its
#        u8 histograms (hist-u8-*.json), copied unchanged; expectations.json written from them
#   TP   the output of tools/third_party_run.sh: the third-party fixtures and their timings
# The validation expectations are the verdicts of this checkout's model (BUILD/python, BUILD from
# $BUILD, default build), as tests/python re-evaluates them. PROVENANCE goes into every fixture a
# script writes (GPU, driver, build, date); READMEs that quote a recording's date or build are left
# to the commit that applies it. Every input is checked before anything is copied, so a folder that
# lacks one changes nothing.
set -euo pipefail
rec=${1:?REC}; val=${2:?VAL}; tp=${3:?TP}; prov=${4:?PROVENANCE}
root="$(cd "$(dirname "$0")/.." && pwd)"
fx="$root/tests/unit/model/fixtures"
vdir="$root/tests/fixtures/validation"
need=()
if [ "$rec" != - ]; then
  for f in "$root"/analyzer/report/recorded/hist/*.json; do need+=("$rec/demo/hist/$(basename "$f")"); done
  need+=("$rec/demo/multi_kernel_app.json" "$rec/demo/sites_app.json" "$rec/acc/run.json" "$rec/acc/t.txt"
         "$rec/cas/a_block_u64.json" "$rec/l2/naive_global-u32-single.run.json")
fi
if [ "$val" != - ]; then
  for f in "$vdir"/*.timings.json; do need+=("$val/$(basename "$f")" "$val/$(basename "$f" .timings.json).json"); done
  for f in "$vdir"/hist/*.json; do need+=("$val/$(basename "$f")"); done
fi
if [ "$tp" != - ]; then
  for f in "$root"/tests/fixtures/third_party/*.timings.json; do need+=("$tp/$(basename "$f")"); done
fi
for f in "${need[@]}"; do
  [ -f "$f" ] || { echo "apply_recordings.sh: $f is missing; nothing was changed" >&2; exit 1; }
done
if [ "$rec" != - ]; then
  for f in "$root"/analyzer/report/recorded/hist/*.json; do cp "$rec/demo/hist/$(basename "$f")" "$f"; done
  cp "$rec/demo/multi_kernel_app.json" "$rec/demo/sites_app.json" "$root/analyzer/report/recorded/"
  python3 "$fx/make_fixtures.py" "$rec/demo/multi_kernel_app.json" "$prov, \`atomq analyze -- multi_kernel_app\`" "$fx"
  python3 "$fx/make_l2_fixtures.py" "$rec/l2" "$prov" "$fx"
  python3 "$fx/make_cas_fixtures.py" "$rec/cas" "$prov" "$fx"
  python3 "$fx/make_accumulate_fixture.py" "$rec/acc" "$prov" "$fx"
fi
if [ "$val" != - ]; then
  for f in "$vdir"/*.timings.json; do
    c=$(basename "$f" .timings.json)
    cp "$val/$c.json" "$vdir/$c.json" && cp "$val/$c.timings.json" "$f"
  done
  for f in "$vdir"/hist/*.json; do cp "$val/$(basename "$f")" "$f"; done
  python3 "$root/tools/validation_summary.py" "$vdir" --reevaluate "${BUILD:-$root/build}/python" --expectations "$vdir/expectations.json" --provenance "$prov"
fi
if [ "$tp" != - ]; then
  for f in "$root"/tests/fixtures/third_party/*.timings.json; do cp "$tp/$(basename "$f")" "$f"; done
  python3 "$fx/make_third_party_fixtures.py" "$tp" "$prov" "$fx"
fi

#!/usr/bin/env bash
# Turns a re-recording made on a GPU machine into the committed recordings (on the build machine),
# each folder optional ("-" skips it):
#   tools/apply_recordings.sh REC VAL TP "PROVENANCE"
#   REC  the output of tools/record_fixtures.sh: demo/ -> analyzer/report/recorded/ (copied unchanged);
#        demo/multi_kernel_app.json, l2/, cas/, acc/ -> tests/unit/model/fixtures/ (make_*.py)
#   VAL  the output of tools/validation_run.sh: the cases tests/fixtures/validation/ holds, and its
#        u8 histograms (hist-u8-*.json), copied unchanged; expectations.json written from them
#   TP   the output of tools/third_party_run.sh: the third-party fixtures and their timings (a class
#        without a measured reason re-evaluated on the recording GPU's bundled table)
# The validation expectations are the verdicts of this checkout's model (BUILD/python, BUILD from
# $BUILD, default build), as tests/python re-evaluates them. PROVENANCE goes into every fixture a
# script writes (GPU, driver, build, date); READMEs that quote a recording's date or build are left
# to the commit that applies it. Everything is written to a scratch tree first and copied into the
# checkout only when every step has succeeded, so a folder that lacks an input changes nothing.
set -euo pipefail
rec=${1:?REC}; val=${2:?VAL}; tp=${3:?TP}; prov=${4:?PROVENANCE}
root="$(cd "$(dirname "$0")/.." && pwd)"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fx=tests/unit/model/fixtures
vdir=tests/fixtures/validation
mkdir -p "$stage/$fx" "$stage/$vdir/hist" "$stage/analyzer/report/recorded/hist" "$stage/tests/fixtures/third_party"
# Each committed file that PATTERN (under the checkout) matches, taken from FROM by its name.
take() {
  local from=$1 pattern=$2 f
  for f in "$root"/$pattern; do
    cp "$from/$(basename "$f")" "$stage/${f#"$root"/}" || { echo "apply_recordings.sh: nothing was changed" >&2; exit 1; }
  done
}
if [ "$rec" != - ]; then
  take "$rec/demo/hist" "analyzer/report/recorded/hist/*.json"
  take "$rec/demo" "analyzer/report/recorded/*_app.json"
  python3 "$root/$fx/make_fixtures.py" "$rec/demo/multi_kernel_app.json" "$prov, \`atomq analyze -- multi_kernel_app\`" "$stage/$fx"
  python3 "$root/$fx/make_l2_fixtures.py" "$rec/l2" "$prov" "$stage/$fx"
  python3 "$root/$fx/make_cas_fixtures.py" "$rec/cas" "$prov" "$stage/$fx"
  python3 "$root/$fx/make_accumulate_fixture.py" "$rec/acc" "$prov" "$stage/$fx"
fi
if [ "$val" != - ]; then
  take "$val" "$vdir/*.timings.json"
  for f in "$root"/$vdir/*.timings.json; do take "$val" "$vdir/$(basename "$f" .timings.json).json"; done
  take "$val" "$vdir/hist/*.json"
  python3 "$root/tools/validation_summary.py" "$stage/$vdir" --reevaluate "${BUILD:-$root/build}/python" \
    --expectations "$stage/$vdir/expectations.json" --provenance "$prov"
fi
if [ "$tp" != - ]; then
  take "$tp" "tests/fixtures/third_party/*.timings.json"
  python3 "$root/$fx/make_third_party_fixtures.py" "$tp" "$prov" "$stage/$fx" "${BUILD:-$root/build}/python"
fi
cp -r "$stage/." "$root/"

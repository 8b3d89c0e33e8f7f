#!/usr/bin/env bash
# Counters that atomq does not collect, read by ncu on validation variants (the probes quoted in
# docs/validation.md), on a GPU machine:
#   tools/ncu_probe.sh BUILD OUT METRICS CASE:VARIANT [CASE:VARIANT ...]
# METRICS: ncu's --metrics argument (comma-separated). Each variant runs once
# (`atomq validate --runs 1 --no-analyze`) under `ncu --csv --clock-control none`; its CSV goes
# to OUT/ncu-CASE-VARIANT.csv, ncu's messages to OUT/ncu-CASE-VARIANT.err, the GPU to OUT/gpu.csv.
# validate's own run document and timings go to OUT/validate-CASE-VARIANT.{json,timings.json}.
# PROBE_TIMEOUT (default 120 s) bounds each variant; PROBE_KERNELS (an ncu regex) limits the
# kernels profiled (default: every kernel of the run, the stream hold's included).
set -uo pipefail
usage="usage: ncu_probe.sh BUILD OUT METRICS CASE:VARIANT..."
BUILD=${1:?$usage}
OUT=${2:?$usage}
METRICS=${3:?$usage}
shift 3
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
for cv in "$@"; do  # every argument checked before anything runs
  case "$cv" in */*) echo "ncu_probe: '$cv': no '/' in a case or variant" >&2; exit 2 ;; *?:?*) ;;
    *) echo "ncu_probe: '$cv' is not CASE:VARIANT" >&2; exit 2 ;; esac
done
NCU=${ATOMQ_NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
[ -x "$NCU" ] || { echo "ncu_probe: no ncu (set ATOMQ_NCU)" >&2; exit 1; }
[ -x "$BUILD/bin/atomq" ] || { echo "ncu_probe: no $BUILD/bin/atomq" >&2; exit 1; }
filter=()
[ -n "${PROBE_KERNELS:-}" ] && filter=(--kernel-name "regex:$PROBE_KERNELS")
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.csv" 2>&1 || true
status=0
for cv in "$@"; do
  c=${cv%%:*}; v=${cv#*:}
  timeout "${PROBE_TIMEOUT:-120}" "$NCU" --csv --clock-control none --metrics "$METRICS" "${filter[@]}" \
    "$BUILD/bin/atomq" validate --case "$c" --variant "$v" --runs 1 --no-analyze \
    -o "$OUT/validate-$c-$v.json" --timings "$OUT/validate-$c-$v.timings.json" \
    > "$OUT/ncu-$c-$v.csv" 2> "$OUT/ncu-$c-$v.err" || { echo "ncu_probe: $cv failed, see $OUT/ncu-$c-$v.err" >&2; status=1; }
done
exit $status

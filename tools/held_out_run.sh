#!/usr/bin/env bash
# The held-out round's two GPU steps (docs/validation.md, "Held-out protocol"), on a GPU machine:
#   tools/held_out_run.sh BUILD OUT baselines   every held-out case's baselines only (no fix, no
#                                               ablation), for `tools/held_out.py predict OUT`
#   tools/held_out_run.sh BUILD OUT results     every variant, after the predictions are committed
# CASES (space-separated) limits the cases; ROUND picks the round (default round2); CASE_TIMEOUT
# (default 120 s) covers each case's input, timing, profile and per-instruction child runs;
# VALIDATE_ARGS adds options to each `atomq validate` (e.g. --no-instructions for the results,
# whose score reads only the timings, when device time is short). CALIBRATE=1 first measures this
# GPU's own table into OUT/table.json (where `tools/held_out.py predict OUT` finds it) and analyzes
# with it; TABLE=FILE analyzes with FILE (the results step, with the baselines' table).
set -euo pipefail
usage="usage: held_out_run.sh BUILD OUT baselines|results"
BUILD=${1:?$usage}
OUT=${2:?$usage}
STEP=${3:?$usage}
ATOMQ="$BUILD/bin/atomq"
case "$STEP" in baselines|results) ;; *) echo "$usage" >&2; exit 2 ;; esac
mkdir -p "$OUT"
date -u +%Y-%m-%dT%H:%M:%SZ > "$OUT/date.txt"
# The build's commit and the GPU, beside the runs (BUILD/commit.txt where a copied build carries it).
if [ -f "$BUILD/commit.txt" ]; then cp "$BUILD/commit.txt" "$OUT/commit.txt"
else git -C "$(dirname "$0")/.." rev-parse --short=12 HEAD > "$OUT/commit.txt" 2>/dev/null || echo unknown > "$OUT/commit.txt"; fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/nvidia-smi.csv" 2>&1 || true
# Each case's name, then its baseline variants, from the one case table.
list=$("$ATOMQ" validate --list)
cases=${CASES:-$(echo "$list" | { grep -E "^[a-z0-9_]+: .*\[held-out ${ROUND:-round2}\]" || true; } | cut -d: -f1)}
[ -n "$cases" ] || { echo "no held-out cases of ${ROUND:-round2}" >&2; exit 2; }
table=()
if [ "${CALIBRATE:-0}" = 1 ]; then
  "$ATOMQ" calibrate --no-progress -o "$OUT/table.json" > "$OUT/calibrate.log" 2>&1 ||
    { echo "calibration failed, see $OUT/calibrate.log" >&2; exit 1; }
  table=(--table "$OUT/table.json")
elif [ -n "${TABLE:-}" ]; then
  table=(--table "$TABLE")
fi
status=0
for c in $cases; do
  args=()
  if [ "$STEP" = baselines ]; then
    # The variant lines of this case ("  NAME ROLE ..."), up to the next case.
    for v in $(echo "$list" | awk -v c="$c" '$0 ~ "^"c": " {on=1; next} /^[a-z0-9_]+: / {on=0} on && $2 == "baseline" {print $1}'); do
      args+=(--variant "$v")
    done
    [ ${#args[@]} -gt 0 ] || { echo "$c: no baseline variant" >&2; status=1; continue; }
  fi
  echo "== $c ($STEP)"
  timeout "${CASE_TIMEOUT:-120}" "$ATOMQ" validate --case "$c" ${args[@]+"${args[@]}"} --runs "${RUNS:-11}" ${VALIDATE_ARGS:-} ${table[@]+"${table[@]}"} -o "$OUT/$c.json" \
    --timings "$OUT/$c.timings.json" > "$OUT/$c.log" 2>&1 || { echo "   failed (exit $?), see $c.log"; status=1; }
  head -40 "$OUT/$c.log"
done
exit $status

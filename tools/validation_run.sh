#!/usr/bin/env bash
# Runs the whole validation suite on a GPU machine: every case of `atomq validate --list`
# (baseline, fix, ablation; the threshold sweep's points), a live u8 histogram for the memory
# finding, and the summary. Everything goes under OUT. CASES="a b" runs only those cases (a run
# split over two machine calls: the first with HIST=0, then the rest into the same OUT, whose
# summary reads them all);
# VALIDATE_ARGS adds options to each `atomq validate` (e.g. --sector-counters).
#   tools/validation_run.sh BUILD OUT
set -euo pipefail
BUILD=${1:?usage: validation_run.sh BUILD OUT}
OUT=${2:?usage: validation_run.sh BUILD OUT}
ATOMQ="$BUILD/bin/atomq"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT"
"$ATOMQ" devices > "$OUT/devices.txt" 2>&1 || true
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/nvidia-smi.csv" 2>&1 || true
date -u +%Y-%m-%dT%H:%M:%SZ > "$OUT/date.txt"
# The build's commit: BUILD/commit.txt where a copied build carries it, else the checkout's.
if [ -f "$BUILD/commit.txt" ]; then cp "$BUILD/commit.txt" "$OUT/commit.txt"
else git -C "$HERE/.." rev-parse --short=12 HEAD > "$OUT/commit.txt" 2>/dev/null || echo unknown > "$OUT/commit.txt"; fi
# Held-out cases run only through tools/held_out_run.sh (baselines, predictions, then the rest).
cases=${CASES:-$("$ATOMQ" validate --list | grep -E '^[a-z0-9_]+:' | grep -v '\[held-out ' | cut -d: -f1)}
status=0
for c in $cases; do
  echo "== $c"
  timeout "${CASE_TIMEOUT:-120}" "$ATOMQ" validate ${VALIDATE_ARGS:-} --case "$c" --runs "${RUNS:-11}" -o "$OUT/$c.json" --timings "$OUT/$c.timings.json" \
    > "$OUT/$c.log" 2>&1 || { echo "   failed (exit $?), see $c.log"; status=1; }
  tail -n +1 "$OUT/$c.log" | head -40
done
# HIST=0: the first part of a split run stops here (the second runs the rest and the summary).
[ "${HIST:-1}" = 0 ] && exit $status
# The memory side on a live run: u8 samples with the lane-replicated variant (near DRAM bandwidth);
# and rank_shared against its lane-replicated fix (predicted interval against measured gain).
for v in lane_replicated:uniform rank_shared:single rank_lane_replicated:single; do
  timeout "${CASE_TIMEOUT:-120}" "$ATOMQ" hist --variant "${v%%:*}" --input "${v##*:}" --type u8 --n 200000000 --runs 11 --analyze \
    --json "$OUT/hist-u8-${v%%:*}-${v##*:}.result.json" \
    --analysis-output "$OUT/hist-u8-${v%%:*}-${v##*:}.json" > "$OUT/hist-u8-${v%%:*}-${v##*:}.log" 2>&1 || status=1
  cat "$OUT/hist-u8-${v%%:*}-${v##*:}.log"
done
"$ATOMQ" report "$OUT/hist-u8-rank_lane_replicated-single.json" --compare "$OUT/hist-u8-rank_shared-single.json" \
  -o "$OUT/rank-compare.md" > "$OUT/rank-compare.log" 2>&1 || status=1
python3 "$HERE/validation_summary.py" "$OUT" --markdown "$OUT/summary.md" --json "$OUT/summary.json" || status=1
exit $status

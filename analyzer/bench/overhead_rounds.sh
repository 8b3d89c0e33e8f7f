#!/bin/bash
# Overhead of atomq against ncu on one program, as docs/analyzer.md reports it: three
# alternating rounds of the program alone, ncu's counters, atomq's counters only, atomq's
# default, ncu's SourceCounters on kernels matching RE and atomq's per-instruction run on them;
# then atomq's -v time budgets. Wall times (one line per run) in OUT/walls.txt.
#   analyzer/bench/overhead_rounds.sh BUILD OUT RE -- PROGRAM ARGS...
# ONLY="alone ncu_source named_only" runs only the runs it names (and their budgets).
set -u
B=${1:?usage: overhead_rounds.sh BUILD OUT RE -- PROGRAM ARGS...}
OUT=${2:?} RE=${3:?}
shift 3
[ "${1:-}" = "--" ] && shift
mkdir -p "$OUT"
M=$("$B/bin/atomq" metrics)
wanted() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
t() {
  local name=$1; shift
  wanted "$name" || return 0
  local s=$EPOCHREALTIME
  "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  awk -v a="$s" -v b="$EPOCHREALTIME" -v n="$name" -v r="$rc" 'BEGIN{printf "%s %.2f rc=%s\n", n, b-a, r}' >> "$OUT/walls.txt"
}
for round in 1 2 3; do
  t alone "$@"
  t ncu ncu --csv --metrics "$M" "$@"
  t counters "$B/bin/atomq" analyze --instructions 0 -o "$OUT/counters.json" -- "$@"
  t default "$B/bin/atomq" analyze -o "$OUT/default.json" -- "$@"
  t ncu_source ncu --section SourceCounters --metrics "$M" -k "regex:$RE" "$@"
  t named "$B/bin/atomq" analyze --instructions-kernel "$RE" -o "$OUT/named.json" -- "$@"
  t named_only "$B/bin/atomq" analyze -k "regex:$RE" --instructions-kernel "$RE" -o "$OUT/named_only.json" -- "$@"
done
for run in default named_only named; do
  wanted $run || continue
  args=(); [ $run != default ] && args=(--instructions-kernel "$RE"); [ $run = named_only ] && args+=(-k "regex:$RE")
  "$B/bin/atomq" -v analyze "${args[@]}" -o "$OUT/budget_$run.json" -- "$@" > "$OUT/budget_$run.log" 2>&1
done

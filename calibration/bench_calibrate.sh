#!/usr/bin/env bash
# Benchmark of the calibration itself: wall time of the quick and the full grid in one run,
# and the repeat spread of the saturated cells. Usage:
#   calibration/bench_calibrate.sh [BUILD_DIR] [OUT_DIR]
# Prints one line per grid with its wall time, and writes both tables under OUT_DIR.
set -euo pipefail
BUILD_DIR=$(cd "${1:-build}" && pwd)
OUT_DIR=${2:-${OUT:-$PWD/bench-out}}
mkdir -p "$OUT_DIR"
for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64; do
  [ -e "$d/libnvperf_host.so" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" && break
done
ATOMQ="$BUILD_DIR/bin/atomq"

time_grid() {  # name, extra args
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$ATOMQ" calibrate "$@" --no-progress -o "$OUT_DIR/table-$name.json" > "$OUT_DIR/calibrate-$name.txt"
  t1=$(date +%s.%N)
  python3 - "$name" "$t0" "$t1" "$OUT_DIR/table-$name.json" <<'PY'
import json, sys
name, t0, t1, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
doc = json.load(open(path))
sat = [c for c in doc["cells"] if c["n"] >= 8]
worst = max(sat, key=lambda c: c["spread"])
limit = {"quick": 10.0, "full": 60.0}[name]
print(f"{name:5s} grid: {len(doc['cells'])} cells, wall {t1 - t0:6.2f} s (goal <= {limit:.0f} s: "
      f"{'met' if t1 - t0 <= limit else 'MISSED'}); saturated cells (n >= 8): max repeat spread "
      f"{100 * worst['spread']:.2f}% (n={worst['n']} e={worst['e']} c={worst['c']} "
      f"{worst['variant']} {worst['pattern']}), "
      f"{sum(c['spread'] <= 0.02 for c in sat)}/{len(sat)} within 2%")
l2 = doc["l2"]
most = max(l2["axes"]["warps_per_sm"])
l2_sat = [c for c in l2["cells"] if c["warps_per_sm"] == most]
l2_worst = max(l2_sat, key=lambda c: c["repeat_spread"])
print(f"{name:5s} L2:   {len(l2['cells'])} cells, wall {l2['wall_seconds']:6.2f} s of the grid's; "
      f"saturated cells ({most} warps/SM): max repeat spread {100 * l2_worst['repeat_spread']:.2f}% "
      f"({l2_worst['op']} {l2_worst['spread']}), "
      f"{sum(c['repeat_spread'] <= 0.02 for c in l2_sat)}/{len(l2_sat)} within 2%")
PY
}
time_grid quick --quick
time_grid full

#!/usr/bin/env bash
# Runs a carried build's histogram GPU tests and the histogram benchmark on a GPU machine:
#   histogram/bench/histogram_gpu_run.sh BUILD_DIR OUT_DIR
# Writes tests.txt, sass.txt, nvidia-smi.txt and the benchmark's bench.md/.csv/.json to OUT_DIR.
set -uo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=${2:-gpu-out}
mkdir -p "$OUT_DIR"
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1 | tee "$OUT_DIR/nvidia-smi.txt"
# The shared atomic each kernel compiles to (the compiler decides, not the source).
cuobjdump --dump-sass "$BUILD_DIR/tests/atomq_histogram_gpu_tests" 2>/dev/null |
  awk '/Function :/ {f=$3} /ATOMS|ATOMG|REDG|RED\.E|ATOM\.E/ {op=$0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", op); sub(/ .*/, "", op); print f, op}' |
  sort | uniq -c > "$OUT_DIR/sass.txt"
timeout ${TEST_TIMEOUT:-100} "$BUILD_DIR/tests/atomq_histogram_gpu_tests" 2>&1 | tee "$OUT_DIR/tests.txt" | tail -25
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
timeout ${BENCH_TIMEOUT:-200} "$BUILD_DIR/bin/atomq" hist-bench "${@:3}" --markdown "$OUT_DIR/bench.md" \
  --csv "$OUT_DIR/bench.csv" --json "$OUT_DIR/bench.json" > "$OUT_DIR/bench-stdout.txt" 2> "$OUT_DIR/bench-stderr.txt"
echo "hist-bench rc=$?" | tee -a "$OUT_DIR/bench-stderr.txt"
head -40 "$OUT_DIR/bench.md" 2>/dev/null
exit $status

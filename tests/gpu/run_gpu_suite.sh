#!/usr/bin/env bash
# Runs a build made on the build machine on a GPU machine that has the CUDA toolkit but no
# Eigen/CLI11/spdlog (atomq needs none of them at run time):
#   tests/gpu/run_gpu_suite.sh [BUILD_DIR] [OUT_DIR]
# 1. makes the build's absolute source path valid here (CTest files record it),
# 2. puts the toolkit's CUPTI folder on the loader path (libcupti loads libnvperf_host.so by
#    bare name), 3. lists the devices, runs the gpu- and integration-labelled tests (those matching
#    $ATOMQ_GPU_TESTS when set). Logs and the table go to OUT_DIR.
set -uo pipefail
BUILD_DIR=$(cd "${1:-build}" && pwd)
OUT_DIR=${2:-${OUT:-$PWD/gpu-out}}
mkdir -p "$OUT_DIR"
SRC_DIR=$(cd "$(dirname "$0")/../.." && pwd)

recorded_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt")
recorded_bin=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt")
for pair in "$recorded_src:$SRC_DIR" "$recorded_bin:$BUILD_DIR"; do
  from=${pair%%:*}; to=${pair#*:}
  if [ -n "$from" ] && [ "$from" != "$to" ] && [ ! -e "$from" ]; then
    mkdir -p "$(dirname "$from")" && ln -s "$to" "$from"
  fi
done

for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
  [ -e "$d/libnvperf_host.so" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" && break
done
export PATH="/usr/local/cuda/bin:$PATH"

ATOMQ="$BUILD_DIR/bin/atomq"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$OUT_DIR/nvidia-smi.txt"
"$ATOMQ" devices 2>&1 | tee "$OUT_DIR/devices.txt" || status=1
# GPU-labelled tests must run here: a skip is a failure. Other integration tests may skip
# with their reason (e.g. no Chromium on the GPU machine).
# ATOMQ_GPU_TESTS=REGEX runs only the tests it matches (e.g. the injection's after a collector
# change, when the device time left does not fit the whole suite).
select=()
[ -n "${ATOMQ_GPU_TESTS:-}" ] && select=(-R "$ATOMQ_GPU_TESTS")
ctest --test-dir "$BUILD_DIR" -L gpu "${select[@]}" --output-on-failure 2>&1 | tee "$OUT_DIR/ctest-gpu.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
if grep -q "\*\*\*Skipped" "$OUT_DIR/ctest-gpu.txt"; then
  echo "run_gpu_suite: some GPU tests were skipped on a GPU machine" | tee -a "$OUT_DIR/ctest-gpu.txt"
  status=1
fi
# ATOMQ_GPU_ONLY=1: only the GPU-labelled tests (the others run in CI on every commit), when
# the device time left is short.
[ "${ATOMQ_GPU_ONLY:-0}" = 1 ] && exit $status
ctest --test-dir "$BUILD_DIR" -L integration -LE gpu "${select[@]}" --output-on-failure 2>&1 | tee "$OUT_DIR/ctest-integration.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status

#!/usr/bin/env bash
# Records every committed capture again with this build's collector, on a GPU machine:
#   OUT/demo/    the demo's replayed runs (analyzer/report/recorded/: the histogram family on u8
#                one-value and uniform inputs, and the multi-kernel test program by injection)
#   OUT/l2/      tests/gpu/record_l2_runs.sh (the L2 queue's built-in targets)
#   OUT/cas/     tests/gpu/record_cas_runs.sh (the CAS-retry fixtures)
#   OUT/acc/     the k-means step of accumulate_app by injection, and its kernels timed
#                (tests/unit/model/fixtures/make_accumulate_fixture.py)
# The validation suite's captures come from tools/validation_run.sh.
#   tools/record_fixtures.sh BUILD OUT
set -uo pipefail
BUILD=${1:?usage: record_fixtures.sh BUILD OUT}
OUT=${2:?usage: record_fixtures.sh BUILD OUT}
ATOMQ="$BUILD/bin/atomq"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/demo/hist"
status=0
for v in naive_global block_private warp_replicated lane_replicated rank_shared rank_lane_replicated; do
  for i in single uniform; do
    "$ATOMQ" hist --variant "$v" --input "$i" --type u8 --n 67108864 --runs 5 --analyze \
      --analysis-output "$OUT/demo/hist/$v-$i.json" > "$OUT/demo/hist/$v-$i.log" 2>&1 || status=1
  done
done
if [ -x "$BUILD/bin/multi_kernel_app" ]; then
  "$ATOMQ" analyze -o "$OUT/demo/multi_kernel_app.json" -- "$BUILD/bin/multi_kernel_app" \
    > "$OUT/demo/multi_kernel_app.log" 2>&1 || status=1
fi
if [ -x "$BUILD/bin/sites_app" ]; then  # the demo's atomic sites (built with -lineinfo)
  "$ATOMQ" analyze --instructions 5 -o "$OUT/demo/sites_app.json" -- "$BUILD/bin/sites_app" \
    > "$OUT/demo/sites_app.log" 2>&1 || status=1
fi
if [ -x "$BUILD/bin/accumulate_app" ]; then
  mkdir -p "$OUT/acc"
  "$ATOMQ" analyze -o "$OUT/acc/run.json" -- "$BUILD/bin/accumulate_app" > "$OUT/acc/run.log" 2>&1 || status=1
  "$BUILD/bin/accumulate_app" t > "$OUT/acc/t.txt" 2>&1 || status=1
fi
"$HERE/../tests/gpu/record_l2_runs.sh" "$ATOMQ" "$OUT/l2" > "$OUT/l2.log" 2>&1 || status=1
"$HERE/../tests/gpu/record_cas_runs.sh" "$ATOMQ" "$OUT/cas" > "$OUT/cas.log" 2>&1 || status=1
exit $status

#!/usr/bin/env bash
# Records the global-atomic cases of the L2 queue on a GPU: each built-in target timed
# (atomq hist --json) and profiled in-process (--analyze), into OUT_DIR/NAME.{time,run}.json.
# tests/unit/model/fixtures/make_l2_fixtures.py turns them into recorded runs.
#   tests/gpu/record_l2_runs.sh ATOMQ OUT_DIR
set -uo pipefail
ATOMQ=$1
OUT_DIR=$2
mkdir -p "$OUT_DIR"
status=0
# name variant type input n bins
while read -r name variant type input n bins; do
  [ -z "$name" ] && continue
  echo "== $name"
  "$ATOMQ" hist --variant "$variant" --type "$type" --input "$input" --n "$n" --bins "$bins" --runs 11 \
    --json "$OUT_DIR/$name.time.json" --analyze --analysis-output "$OUT_DIR/$name.run.json" \
    > "$OUT_DIR/$name.log" 2>&1 || status=1
  grep -E "time |U |L2" "$OUT_DIR/$name.log" | head -6
done <<'CASES'
naive_global-u32-single naive_global u32 single 67108864 256
naive_global-u8-single naive_global u8 single 67108864 256
naive_global-u32-uniform naive_global u32 uniform 67108864 256
block_private-u32-single block_private u32 single 67108864 256
block_private-u32-uniform block_private u32 uniform 67108864 256
lane_replicated-u32-single lane_replicated u32 single 67108864 256
warp_replicated-u8-single warp_replicated u8 single 67108864 256
scatter_add_global-1024 scatter_add_global u32 uniform 16777216 1024
scatter_add_global-one scatter_add_global u32 single 16777216 1024
scatter_add_private-1024 scatter_add_private u32 uniform 16777216 1024
scatter_add_private-one scatter_add_private u32 single 16777216 1024
CASES
exit $status

#!/usr/bin/env bash
# Records the H200 runs behind the CAS-retry fixtures (tests/unit/model/fixtures/make_cas_fixtures.py):
# each shared-memory histogram whose counters Hopper cannot add natively, on one-value input,
# analyzed with per-instruction counts, and its fix timed on the same input.
#   tests/gpu/record_cas_runs.sh ATOMQ OUT_DIR
set -euo pipefail
ATOMQ=${1:?atomq binary}
OUT=${2:?output folder}
mkdir -p "$OUT"
INPUT=(--input single --n 16777216 --bins 1024)
for variant in block_u64 block_grid_stride scatter_add_private scatter_add_private_int; do
  "$ATOMQ" hist --variant "$variant" "${INPUT[@]}" --runs 11 --json "$OUT/t_$variant.json" > "$OUT/t_$variant.txt"
done
for variant in block_u64 scatter_add_private; do
  "$ATOMQ" analyze --instructions 1 -o "$OUT/a_$variant.json" -- "$ATOMQ" hist --variant "$variant" "${INPUT[@]}" --runs 1 \
    > "$OUT/a_$variant.txt"
done

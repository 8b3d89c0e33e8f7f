#!/bin/bash
# Third-party atomic kernels analyzed as a user would (docs/validation.md, "Third-party kernels"):
# PyTorch operators (validation/third_party/torch_ops.py: each with another call computing the
# same result) and CUB's DeviceHistogram (BUILD/bin/cub_histogram), on a GPU machine.
#   tools/third_party_run.sh BUILD OUT
# THIRD_PARTY_CASES="NAME ... [cub]" runs only those cases (cub: the CUB inputs); THIRD_PARTY_ROLES="baseline"
# analyzes only that role (both are still timed); ANALYZE_ARGS adds options to each `atomq analyze`
# (e.g. --sector-counters).
# Writes OUT/CASE-ROLE.json (atomq analyze, the role's kernels only), OUT/CASE.timings.json
# (both roles, CUDA events, median of 11 runs), OUT/cub-INPUT.json and .timings.json, and logs.
set -u
build=$1 out=$2
mkdir -p "$out"
atomq=$build/bin/atomq
ops=$(dirname "$0")/../validation/third_party/torch_ops.py
# case  baseline kernels  fix kernels ("-": the other call has no atomics, not analyzed)
cases="scatter_add_hot _scatter_gather_elementwise kernelHistogram1D
scatter_add_uniform _scatter_gather_elementwise kernelHistogram1D
scatter_add_hot_f64 _scatter_gather_elementwise kernelHistogram1D
index_add_rows indexFunc indexFunc
histc_clustered kernelHistogram1D kernelHistogram1D
scatter_amax_hot _scatter_gather_elementwise indexFunc
f16_scatter_add_hot _scatter_gather_elementwise kernelHistogram1D
f16_index_add_rows indexFunc indexFunc
upsample_bilinear_bwd upsample_bilinear2d_backward -
bincount_large_hot kernelHistogram1D indexing_backward
sort_equal_keys RadixSort RadixSort
compiled_scatter_add_hot triton_ kernelHistogram1D
scatter_add_sorted _scatter_gather_elementwise segment"
status=0
only=" ${THIRD_PARTY_CASES:-} "
while read -r name base_re fix_re; do
  [ "$only" != "  " ] && [[ "$only" != *" $name "* ]] && continue
  python3 "$ops" "$name" baseline --timings "$out/$name.timings.json" > "$out/$name.timings.log" 2>&1 || status=1
  for role in ${THIRD_PARTY_ROLES:-baseline fix}; do
    re=$base_re; [ "$role" = fix ] && re=$fix_re
    [ "$re" = - ] && continue
    "$atomq" analyze ${ANALYZE_ARGS:-} -k "regex:$re" -o "$out/$name-$role.json" -- python3 "$ops" "$name" "$role" \
      > "$out/$name-$role.log" 2>&1 || status=1
  done
done <<< "$cases"
[ "$only" != "  " ] && [[ "$only" != *" cub "* ]] && exit $status
for input in uniform single skewed; do
  "$build/bin/cub_histogram" "$input" > "$out/cub-$input.timings.json" 2> "$out/cub-$input.timings.log" || status=1
  "$atomq" analyze -k regex:DeviceHistogramSweep -o "$out/cub-$input.json" -- "$build/bin/cub_histogram" "$input" \
    > "$out/cub-$input.log" 2>&1 || status=1
done
exit $status

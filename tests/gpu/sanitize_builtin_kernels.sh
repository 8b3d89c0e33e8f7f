#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck on every built-in histogram kernel (each variant,
# each sample type it takes, 256 Ki samples, 256 bins, one timed run), on a GPU machine:
#   tests/gpu/sanitize_builtin_kernels.sh ATOMQ OUT_DIR
# One line per (tool, variant, type); exit 1 when any run reports an error.
set -uo pipefail
ATOMQ=$1
OUT=$2
mkdir -p "$OUT"
status=0
while read -r variant threads types _; do
  [ "$variant" = variant ] && continue
  for type in ${types//,/ }; do
    input=uniform
    [ "$type" = rgba8 ] && input=random-colour
    for tool in memcheck racecheck; do
      log="$OUT/$tool-$variant-$type.log"
      timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$ATOMQ" hist --variant "$variant" \
        --type "$type" --input "$input" --n 262144 --bins 256 --runs 1 > "$log" 2>&1
      rc=$?
      summary=$(grep -m1 "ERROR SUMMARY\|RACECHECK SUMMARY" "$log" || echo "no summary")
      echo "$tool $variant $type rc=$rc $summary"
      [ $rc -eq 0 ] || status=1
    done
  done
done < <("$ATOMQ" hist --list)
exit $status

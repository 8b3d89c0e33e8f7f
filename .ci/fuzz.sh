#!/usr/bin/env bash
# The libFuzzer harnesses (tests/fuzz): built with clang (ASan + UBSan), each run for
# $ATOMQ_FUZZ_SECONDS (default 15: .ci/run must stay within 45 minutes on a cold 2-core
# machine) on a scratch copy of its seed corpus with its dictionary.
# A crash, a leak, a sanitizer report or a round-trip failure fails the step; the input is
# left in build-fuzz/artifacts/. Longer runs and their figures: docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${ATOMQ_FUZZ_SECONDS:-15}
build=${ATOMQ_FUZZ_BUILD_DIR:-build-fuzz}

if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang libclang-rt-14-dev
fi
CXX=clang++ cmake -S tests/fuzz -B "$build" -G Ninja ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER}
cmake --build "$build"

mkdir -p "$build/artifacts"
for harness in service_table kernel_profile run_document rules ncu_csv kernel_filter ncu_csv_timing; do
  dict=tests/fuzz/json.dict
  case $harness in
    ncu_csv | ncu_csv_timing) dict=tests/fuzz/ncu_csv.dict ;;
    kernel_filter) dict=tests/fuzz/kernel_filter.dict ;;
  esac
  work="$build/corpus/$harness"  # new inputs go here, never into the committed seeds
  rm -rf "$work" && mkdir -p "$work"
  echo "fuzz_$harness: ${seconds} s"
  "$build/fuzz_$harness" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$build/artifacts/$harness-" "$work" "tests/fuzz/corpus/$harness" \
    2>"$build/fuzz_$harness.log" || { tail -n 60 "$build/fuzz_$harness.log"; echo "CI: fuzz_$harness failed"; exit 1; }
  grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|Done )" "$build/fuzz_$harness.log" || true
done

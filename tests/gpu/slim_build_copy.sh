#!/usr/bin/env bash
# Copies a build folder without object files and static libraries (not needed to run the
# binaries or the tests), to carry it to a GPU machine with less to transfer:
#   tests/gpu/slim_build_copy.sh build build-gpu && tests/gpu/run_gpu_suite.sh build-gpu OUT
set -euo pipefail
SRC=${1:?build folder}
DEST=${2:?destination folder}
rm -rf "$DEST"
mkdir -p "$DEST"
tar -C "$SRC" --exclude='*.o' --exclude='*.a' --exclude='.ninja_*' -cf - . | tar -C "$DEST" -xf -
du -sh "$DEST"

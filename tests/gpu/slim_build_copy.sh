#!/usr/bin/env bash
# Copies a build folder without object files and static libraries (not needed to run the
# binaries or the tests), its executables and libraries stripped of host symbols (the device
# code and its SASS stay), to carry it to a GPU machine with less to transfer:
#   tests/gpu/slim_build_copy.sh build build-gpu && tests/gpu/run_gpu_suite.sh build-gpu OUT
set -euo pipefail
SRC=${1:?build folder}
DEST=${2:?destination folder}
rm -rf "$DEST"
mkdir -p "$DEST"
tar -C "$SRC" --exclude='*.o' --exclude='*.a' --exclude='.ninja_*' -cf - . | tar -C "$DEST" -xf -
if command -v strip >/dev/null; then
  find "$DEST" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
    while IFS= read -r -d '' f; do
      head -c 4 "$f" | grep -q ELF && strip --strip-unneeded "$f" 2>/dev/null || true
    done
fi
du -sh "$DEST"

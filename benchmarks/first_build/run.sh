#!/usr/bin/env bash
# A user's first build against an installed passline: installs BUILD_DIR to a
# temporary prefix, configures tests/install/consumer against it, and times
# the clean build of each of its two targets, from nothing:
#   consumer     import passline;                         (main.cpp)
#   ir_consumer  import passline.pipelines; and the IR    (ir_main.cpp)
# Each figure is the wall time of `cmake --build --target T` on a fresh
# build directory, with the machine's cores (ninja's default).
#   benchmarks/first_build/run.sh BUILD_DIR
set -euo pipefail
build="$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
consumer="$here/../../tests/install/consumer"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
scan="$(sed -n 's/^CMAKE_CXX_COMPILER_CLANG_SCAN_DEPS:[A-Z]*=//p' "$build/CMakeCache.txt")"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for target in consumer ir_consumer; do
  cmake -S "$consumer" -B "$work/$target" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_CLANG_SCAN_DEPS="$scan" \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  units=$(find "$work/prefix/include" -name '*.cppm' | wc -l)
  start=$(date +%s%N)
  cmake --build "$work/$target" --target "$target" >/dev/null
  end=$(date +%s%N)
  awk -v t="$target" -v ns=$((end - start)) -v u="$units" 'BEGIN { printf "%-12s %6.1f s  (%d interface units installed)\n", t, ns / 1e9, u }'
done

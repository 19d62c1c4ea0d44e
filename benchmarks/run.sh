#!/usr/bin/env bash
# Runs every benchmark of a build tree; docs/benchmarks.md records the results.
#   benchmarks/run.sh BUILD_DIR [google-benchmark flags for dispatch...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: benchmarks/run.sh BUILD_DIR [flags...]}"; shift

echo "== dispatch: 50 no-op passes, side by side"
"$build/benchmarks/dispatch" --benchmark_counters_tabular=true "$@"

echo; echo "== zero overhead: compiled form vs hand-written calls (callgrind)"
"$here/zero_overhead.sh" "$build/benchmarks/zero_overhead_probe"

echo; echo "== compile time of static pipelines (plot: docs/compile-time.png)"
"$here/compile_time/run.sh" "$build" "$here/../docs/compile-time.png"

echo; echo "== end to end against mlir-opt, and each pass's scaling (plot: docs/vs-mlir-scaling.png)"
"$here/vs_mlir/run.sh" "$build" "$here/../docs/vs-mlir-scaling.png"

echo; echo "== instruments: a 50-pass pipeline with none, --time-passes, --print-changed=quiet"
work="$(mktemp -d)"
"$build/benchmarks/vs_mlir_generate" 43000 3 "$work/in.ir" "$work/in.mlir"
"$build/benchmarks/instruments_overhead" "$work/in.ir" 15
rm -rf "$work"

echo; echo "== Python: O2 from Python against C++, and a Python pass's call"
/usr/bin/python3 "$here/python/overhead.py" "$build"

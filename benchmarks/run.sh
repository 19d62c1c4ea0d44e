#!/usr/bin/env bash
# Runs every runtime benchmark of a build tree, side by side in one run.
#   benchmarks/run.sh BUILD_DIR [google-benchmark flags...]
set -euo pipefail
build="${1:?usage: benchmarks/run.sh BUILD_DIR [flags...]}"; shift
"$build/benchmarks/dispatch" --benchmark_counters_tabular=true "$@"

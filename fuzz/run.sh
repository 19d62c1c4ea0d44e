#!/usr/bin/env bash
# Runs a fuzz target over its seed corpus and its dictionary for a while.
#   run.sh TARGET-BINARY FUZZ-DIR NAME SECONDS [CORPUS-DIR]
# New inputs go to CORPUS-DIR if given (kept between runs), else to a
# directory of the run's own that is removed after. A crash leaves its input
# in the corpus directory's parent as crash-*, and the run fails. Prints the
# run's figures (executions, coverage); the whole log on a failure.
set -uo pipefail
binary="$1" fuzz="$2" name="$3" seconds="$4" corpus="${5:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -z "$corpus" ]]; then corpus="$work/corpus"; fi
mkdir -p "$corpus"
dict="$fuzz/dict/ir.dict"
[[ "$name" == pipeline_text ]] && dict="$fuzz/dict/pipeline.dict"
[[ "$name" == mlir_text ]] && dict="$fuzz/dict/mlir.dict"
artifacts="$(dirname "$corpus")/"
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 -dict="$dict" \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" "$fuzz/corpus/$name" >"$work/log" 2>&1
code=$?
if [[ $code == 0 ]]; then
  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$work/log"
  echo ok
else
  tail -n 80 "$work/log"
fi
exit "$code"

#!/usr/bin/env bash
# Runs a fuzz target over its seed corpus and its dictionary for a while.
#   run.sh TARGET-BINARY FUZZ-DIR NAME SECONDS [CORPUS-DIR]
# New inputs go to CORPUS-DIR if given (kept between runs), else to a
# directory of the run's own that is removed after. A crash leaves its input
# in the corpus directory's parent as crash-*, and the run fails.
set -uo pipefail
binary="$1" fuzz="$2" name="$3" seconds="$4" corpus="${5:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -z "$corpus" ]]; then corpus="$work/corpus"; fi
mkdir -p "$corpus"
dict="$fuzz/dict/ir.dict"
[[ "$name" == pipeline_text ]] && dict="$fuzz/dict/pipeline.dict"
artifacts="$(dirname "$corpus")/"
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 -dict="$dict" \
  -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" "$fuzz/corpus/$name" 2>&1 | tail -n 25
code=${PIPESTATUS[0]}
[[ $code == 0 ]] && echo ok
exit "$code"

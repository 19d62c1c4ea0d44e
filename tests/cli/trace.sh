#!/usr/bin/env bash
# Runs passline-opt with --trace, then prints what the trace holds without the
# times: one line per event, name and category, in the order they started.
#   trace.sh PASSLINE-OPT INPUT.ir [FLAGS...]
set -uo pipefail
opt="$1" input="$2"; shift 2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
file="$dir/trace.json"
"$opt" "$input" "$@" --trace="$file" -o "$dir/out.ir" 2>/dev/null || exit
head -c 15 "$file"; echo
grep -o '"name":"[^"]*","cat":"[^"]*"' "$file"

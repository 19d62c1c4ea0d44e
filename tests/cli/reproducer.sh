#!/usr/bin/env bash
# A failing run writes a reproducer; replaying it fails the same way.
#   reproducer.sh PASSLINE-OPT INPUT.ir [FLAGS...]
set -uo pipefail
opt="$1" input="$2"; shift 2
file="$(mktemp --suffix=.ir)"
trap 'rm -f "$file"' EXIT
"$opt" "$input" "$@" --reproducer="$file" 2>/dev/null
code=$?
[[ "$code" == 1 ]] || { echo "the run exited $code, not 1" >&2; exit 9; }
head -1 "$file"
"$opt" --run-reproducer "$file" 2>&1 >/dev/null | sed "s|$file|repro.ir|" >&2
exit "${PIPESTATUS[0]}"

#!/usr/bin/env bash
# Runs one driver command and checks what a user would see.
#   check.sh EXIT STDOUT STDERR_REGEX -- COMMAND...
# EXIT: the exit code; STDOUT: a file whose content stdout must equal, 're:REGEX'
# for a regex the whole of stdout must match, or '-' for any; STDERR_REGEX: a
# regex the whole of stderr must match ('' for empty).
set -uo pipefail
want_exit="$1" want_stdout="$2" want_stderr="$3"; shift 4
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
code=$?
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
[[ "$code" == "$want_exit" ]] || fail "exit code $code, expected $want_exit"
# A whole file, from its first character to its last, against one regex ('.'
# matches a newline too). Not grep: it would take each line of a regex with
# newlines as a pattern of its own.
matches() { perl -0777 -e 'my $text = <STDIN>; exit($text =~ /\A(?:$ARGV[0])\z/s ? 0 : 1)' -- "$1" <"$2"; }
case "$want_stdout" in
  -) ;;
  re:*) matches "${want_stdout#re:}" "$out" || fail "stdout does not match: ${want_stdout#re:}" ;;
  *) diff -u "$want_stdout" "$out" || fail "stdout differs" ;;
esac
if [[ -z "$want_stderr" ]]; then
  [[ ! -s "$err" ]] || fail "stderr is not empty"
else
  matches "$want_stderr" "$err" || fail "stderr does not match: $want_stderr"
fi
echo "ok"

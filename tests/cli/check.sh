#!/usr/bin/env bash
# Runs one driver command and checks what a user would see.
#   check.sh EXIT STDOUT STDERR_REGEX -- COMMAND...
# EXIT: the exit code; STDOUT: a file whose content stdout must equal, or '-'
# for any; STDERR_REGEX: a regex the whole of stderr must match ('' for empty).
set -uo pipefail
want_exit="$1" want_stdout="$2" want_stderr="$3"; shift 4
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
code=$?
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
[[ "$code" == "$want_exit" ]] || fail "exit code $code, expected $want_exit"
if [[ "$want_stdout" != "-" ]]; then diff -u "$want_stdout" "$out" || fail "stdout differs"; fi
if [[ -z "$want_stderr" ]]; then
  [[ ! -s "$err" ]] || fail "stderr is not empty"
else
  # The whole of stderr, from its first character to its last, against one
  # regex ('.' matches a newline too). Not grep: it would take each line of
  # a regex with newlines as a pattern of its own.
  perl -0777 -e 'my $text = <STDIN>; exit($text =~ /\A(?:$ARGV[0])\z/s ? 0 : 1)' -- "$want_stderr" <"$err" ||
    fail "stderr does not match: $want_stderr"
fi
echo "ok"

#!/usr/bin/env bash
# The hostile cases found against passline-mlir-opt, each as mlir-opt-19
# answers it: pipelines refused in one message before anything runs (no
# spin, no abort), no implicit nesting mlir-opt does not do, the whole
# pipeline's dialects loaded first, and an input read once whatever it is.
#   tests/mlir/hostile.sh PASSLINE_MLIR_OPT MLIR_OPT
set -uo pipefail
ours=$1 theirs=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

printf 'func.func @f(%%a: i32) -> i32 {\n  %%0 = arith.addi %%a, %%a : i32\n  return %%0 : i32\n}\n' >"$work/in.mlir"

# same_exit NAME ARGS...: both tools within 20 s, the same exit code; ours
# no signal, and on failure no output and a message.
same_exit() {
  local name=$1
  shift
  timeout 20 "$ours" "$work/in.mlir" "$@" >"$work/ours.out" 2>"$work/ours.err"
  local code=$?
  timeout 20 "$theirs" "$work/in.mlir" "$@" >"$work/theirs.out" 2>"$work/theirs.err"
  local theirs_code=$?
  if [[ $code != "$theirs_code" ]]; then
    fail "$name: exit code $code, mlir-opt's $theirs_code: $(head -c 300 "$work/ours.err")"
  elif [[ $code != 0 && ( -s "$work/ours.out" || ! -s "$work/ours.err" ) ]]; then
    fail "$name: a failure with output, or without a message"
  elif [[ $code == 0 ]] && ! cmp -s "$work/ours.out" "$work/theirs.out"; then
    fail "$name: the output differs from mlir-opt's"
  else
    ok "$name: exit code $code, as mlir-opt"
  fi
}

# An option value with a brace in quotes (MLIR's option parser once spun on it).
same_exit "a quoted brace in an option" --pass-pipeline='builtin.module(canonicalize{enable-patterns="}"})'
# A pass that fails to build before an unknown pass (once an abort).
same_exit "an unknown pass after a nested pipeline" --pass-pipeline='builtin.module(gpu.module(tosa-to-linalg-pipeline),no-such-pass)'
# A pass anchored on the module nested on functions: refused, not run on nothing.
same_exit "a module pass nested on functions" --pass-pipeline='builtin.module(func.func(convert-func-to-llvm))'
# The first pass needs a dialect that only the second depends on (once a SIGSEGV).
same_exit "the pipeline's dialects loaded first" -ensure-debug-info-scope-on-llvm-func -convert-nvvm-to-llvm
same_exit "an 'any' pipeline of a function pass" --pass-pipeline='any(buffer-deallocation)'
timeout 20 "$ours" "$work/in.mlir" --passes='builtin.module(gpu.module(tosa-to-linalg-pipeline),no-such-pass)' 2>"$work/err"
[[ $? == 1 ]] && grep -q "'no-such-pass' does not refer to a registered pass" "$work/err" &&
  ok "--passes with MLIR's pipeline: MLIR's message" || fail "--passes with an unknown pass: $(cat "$work/err")"
# passline's text hands the braces' text, quotes kept, to MLIR's option
# parser, which reads it as mlir-opt's flag -canonicalize='enable-patterns="}"' does.
timeout 20 "$ours" "$work/in.mlir" --passes='canonicalize{enable-patterns="}"}' >"$work/ours.out" 2>"$work/err"
code=$?
timeout 20 "$theirs" "$work/in.mlir" '-canonicalize=enable-patterns="}"' >"$work/theirs.out" 2>/dev/null
[[ $code == 0 && ! -s "$work/err" ]] && cmp -s "$work/ours.out" "$work/theirs.out" &&
  ok "passline's text with a quoted brace: read as mlir-opt's flag reads it" ||
  fail "passline's text with a quoted brace: exit code $code: $(cat "$work/err")"
timeout 20 "$ours" "$work/in.mlir" --passes='canonicalize{max-iterations=3' 2>"$work/err"
[[ $? == 1 && $(wc -l <"$work/err") == 3 ]] && grep -q "^pipeline:1:13: error: '{' at column 13 is never closed$" "$work/err" &&
  ok "passline's text with an unclosed brace: one error with its caret" ||
  fail "passline's text with an unclosed brace: $(cat "$work/err")"

# A FIFO whose writer is done at once: read once, no hang.
"$ours" "$work/in.mlir" -cse >"$work/want.mlir"
mkfifo "$work/fifo"
hangs=0
for i in $(seq 1 20); do
  timeout 20 cat "$work/in.mlir" >"$work/fifo" &
  if ! timeout 10 "$ours" "$work/fifo" -cse >"$work/got.mlir" || ! cmp -s "$work/got.mlir" "$work/want.mlir"; then
    hangs=$((hangs + 1))
  fi
  wait
done
[[ $hangs == 0 ]] && ok "a FIFO input, 20 times: read once, no hang" || fail "a FIFO input: $hangs of 20 runs hung or failed"

[[ $failures == 0 ]]

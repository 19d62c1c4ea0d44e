#!/usr/bin/env bash
# passline-mlir-opt against mlir-opt-19 on the corpus: for every input and
# every pass list of a fixed set, the same bytes out, on one thread and on
# two, in passline's pipeline text and in MLIR's; a pass that reports an
# error and goes on, as mlir-opt; and the inputs that make a pass fail fail
# with MLIR's diagnostic, exit code 1 and no output.
#
#   tests/mlir/corpus.sh PASSLINE_MLIR_OPT MLIR_OPT CORPUS_DIR
set -euo pipefail
ours=$1 theirs=$2 corpus=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Pass lists: passline's text, and the same passes as mlir-opt's flags.
# passline-mlir-opt INPUT --passes=PIPELINE on one thread and on two against
# the expected output in $work/expected.mlir, which `theirs...` describes.
compared=0
compare() {  # INPUT PIPELINE THEIRS...
  local input=$1 pipeline=$2
  shift 2
  for threads in 1 2; do
    if ! "$ours" "$input" --passes="$pipeline" --threads="$threads" -o "$work/got.mlir"; then
      fail "$input --passes='$pipeline' --threads=$threads exited non-zero"
    elif ! cmp -s "$work/expected.mlir" "$work/got.mlir"; then
      fail "$input --passes='$pipeline' --threads=$threads differs from $*"
      diff "$work/expected.mlir" "$work/got.mlir" | head -20 >&2 || true
    fi
    compared=$((compared + 1))
  done
}

lists=(canonicalize cse inline sccp symbol-dce loop-invariant-code-motion canonicalize,cse,canonicalize)
for input in "$corpus"/*.mlir; do
  [[ $(basename "$input") == fails.mlir ]] && continue
  for list in "${lists[@]}"; do
    flags=()
    IFS=, read -ra names <<<"$list"
    for name in "${names[@]}"; do flags+=("--$name"); done
    "$theirs" "$input" "${flags[@]}" >"$work/expected.mlir"
    compare "$input" "$list" "$theirs" "${flags[@]}"
  done
  # MLIR's textual pipelines: passes nested on functions run as passline's
  # function passes, on passline's threads; passes nested deeper or on other
  # operations, each as MLIR runs it there.
  for pipeline in 'builtin.module(func.func(canonicalize,cse))' \
                  'builtin.module(func.func(loop-invariant-code-motion),canonicalize)' \
                  'builtin.module(inline,func.func(sccp,canonicalize{max-iterations=2}),symbol-dce)' \
                  'builtin.module(func.func(canonicalize),builtin.module(cse,func.func(canonicalize{max-iterations=2})))' \
                  'builtin.module(any(cse,canonicalize))'; do
    "$theirs" "$input" --pass-pipeline="$pipeline" >"$work/expected.mlir"
    compare "$input" "$pipeline" "$theirs" --pass-pipeline="$pipeline"
  done
done

# A pass that reports an error and goes on (remove-dead-values at a branch):
# as mlir-opt, the error with its source line and caret, the module, exit
# code 0: the same bytes on stdout and stderr as mlir-opt's.
failing="$corpus/fails.mlir"
for pipeline in remove-dead-values 'builtin.module(cse,remove-dead-values)'; do
  if [[ $pipeline == builtin.module* ]]; then theirs_flags=(--pass-pipeline="$pipeline"); else theirs_flags=(--"$pipeline"); fi
  set +e
  "$theirs" "$failing" "${theirs_flags[@]}" >"$work/expected.mlir" 2>"$work/expected.err"
  theirs_code=$?
  "$ours" "$failing" --passes="$pipeline" >"$work/got.mlir" 2>"$work/got.err"
  code=$?
  set -e
  [[ $code == "$theirs_code" ]] || fail "--passes='$pipeline' on fails.mlir exited $code, mlir-opt $theirs_code"
  cmp -s "$work/expected.mlir" "$work/got.mlir" || fail "--passes='$pipeline' on fails.mlir: the output differs from mlir-opt's"
  cmp -s "$work/expected.err" "$work/got.err" || {
    fail "--passes='$pipeline' on fails.mlir: stderr differs from mlir-opt's"
    diff "$work/expected.err" "$work/got.err" >&2 || true
  }
  grep -qF "error: cannot optimize" "$work/expected.err" ||
    fail "$theirs ${theirs_flags[*]} no longer reports an error on fails.mlir"
  compared=$((compared + 1))
done

# A pass that fails, or (--strict-diagnostics, passline's rule) reports an
# error: MLIR's error, with its position, as one message; exit code 1; no
# output file.
check_failure() {  # EXPECTED-TEXT FLAG PIPELINE...
  local expected=$1 flag=$2
  shift 2
  for pipeline in "$@"; do
    set +e
    "$ours" "$failing" --passes="$pipeline" $flag -o "$work/out.mlir" >"$work/stdout" 2>"$work/stderr"
    local code=$?
    set -e
    [[ $code == 1 ]] || fail "--passes='$pipeline' $flag on fails.mlir exited $code, not 1"
    [[ ! -e "$work/out.mlir" ]] || fail "--passes='$pipeline' $flag on fails.mlir wrote its output"
    [[ ! -s "$work/stdout" ]] || fail "--passes='$pipeline' $flag on fails.mlir wrote to stdout"
    grep -qF -- "$expected" "$work/stderr" || {
      fail "--passes='$pipeline' $flag on fails.mlir: no '$expected' in:"
      cat "$work/stderr" >&2
    }
    rm -f "$work/out.mlir"
  done
}
check_failure "fails.mlir:8:3: error: cannot optimize an IR with non-function symbol ops" --strict-diagnostics \
  remove-dead-values 'builtin.module(cse,remove-dead-values)'
check_failure "failed without a diagnostic" "" \
  'canonicalize{test-convergence=true max-iterations=1}' \
  'builtin.module(func.func(canonicalize{test-convergence=true max-iterations=1}))'

echo "$compared outputs compared with $theirs, $failures failures"
[[ $failures == 0 ]]

#!/usr/bin/env bash
# passline-mlir-opt as a user meets it, beyond the corpus: what it writes
# and where, and the replay of a reproducer.
#   cli.sh PASSLINE_MLIR_OPT CORPUS_DIR
set -uo pipefail
tool="$1" corpus="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# -o: a file written whole, its mode kept; through a symbolic link, the link
# stays a link; a failed run leaves the file as it was.
"$tool" "$corpus/func_arith.mlir" --passes=canonicalize >"$work/want.mlir" || fail "stdout run"
printf 'old\n' >"$work/out.mlir"; chmod 640 "$work/out.mlir"
"$tool" "$corpus/func_arith.mlir" --passes=canonicalize -o "$work/out.mlir" &&
  cmp -s "$work/out.mlir" "$work/want.mlir" && [[ "$(stat -c %a "$work/out.mlir")" == 640 ]] &&
  ok "-o writes the file whole and keeps its mode" || fail "-o to a file"
ln -s out.mlir "$work/link.mlir"
"$tool" "$corpus/func_arith.mlir" --passes=cse -o "$work/link.mlir" && [[ -L "$work/link.mlir" ]] &&
  cmp -s "$work/link.mlir" "$work/out.mlir" && ok "-o through a symbolic link keeps the link" || fail "-o to a link"
cp "$work/out.mlir" "$work/before.mlir"
"$tool" "$corpus/fails.mlir" --passes=remove-dead-values --strict-diagnostics -o "$work/out.mlir" 2>"$work/err"
code=$?
[[ "$code" == 1 ]] || fail "a failing pass exits $code, not 1"
cmp -s "$work/out.mlir" "$work/before.mlir" && ! ls "$work" | grep -q '\.passline-' &&
  ok "a failing run leaves the output as it was, and no temporary file" || fail "output after a failure"
"$tool" "$corpus/func_arith.mlir" --passes=cse -o "$work/no-such-dir/out.mlir" 2>"$work/err"
[[ $? == 1 && "$(wc -l <"$work/err")" == 1 ]] && grep -q "^passline-mlir-opt: error: .*no-such-dir" "$work/err" &&
  ok "an output that cannot be written is one error" || fail "unwritable output: $(cat "$work/err")"

# Input that cannot be read.
"$tool" "$work" --passes=cse 2>"$work/err"
[[ $? == 1 && "$(wc -l <"$work/err")" == 1 ]] && grep -qx "passline-mlir-opt: error: cannot read '$work': Is a directory" "$work/err" &&
  ok "a directory as input is one error" || fail "directory input: $(cat "$work/err")"

# A reproducer: written when a pass fails, replayed by --run-reproducer to the same failure.
"$tool" "$corpus/fails.mlir" --passes='cse,canonicalize{test-convergence=true max-iterations=1}' \
  --reproducer="$work/repro.mlir" 2>"$work/err" >"$work/out"
code=$?
[[ "$code" == 1 ]] || fail "the failing run exits $code, not 1"
first_error="$(cat "$work/err")"
head -1 "$work/repro.mlir" | grep -q "^// passline-mlir-opt reproducer: '--passes=canonicalize{max-iterations=1 .*test-convergence=true .*}' --opt-level=3$" &&
  [[ ! -s "$work/out" ]] && ok "a failing pass writes its reproducer, and no output" || fail "reproducer: $(head -1 "$work/repro.mlir")"
"$tool" --run-reproducer "$work/repro.mlir" 2>"$work/err" >"$work/out"
[[ $? == 1 && "$(cat "$work/err")" == "$first_error" && ! -s "$work/out" ]] &&
  ok "--run-reproducer fails as the run did" || fail "replay: $(cat "$work/err")"
"$tool" --run-reproducer "$work/repro.mlir" --passes=cse 2>"$work/err"
[[ $? == 1 && "$(cat "$work/err")" == "passline-mlir-opt: error: --run-reproducer takes the input and the pipeline flags from its file" ]] &&
  ok "--run-reproducer with a pipeline of its own is an error" || fail "replay with --passes: $(cat "$work/err")"
"$tool" --run-reproducer "$corpus/func_arith.mlir" 2>"$work/err"
[[ $? == 1 ]] && grep -q "is not a reproducer: its first line has no 'passline-mlir-opt reproducer:'" "$work/err" &&
  ok "a file that is no reproducer is an error" || fail "not a reproducer: $(cat "$work/err")"

# --time-passes lists reading and printing beside the passes; --print-pass-graph
# writes the passes run as DOT in place of the module.
nested='builtin.module(func.func(canonicalize,cse))'
"$tool" "$corpus/func_arith.mlir" --passes="$nested" >"$work/untimed.mlir"
"$tool" "$corpus/func_arith.mlir" --passes="$nested" --time-passes -o "$work/timed.mlir" 2>"$work/err" &&
  cmp -s "$work/timed.mlir" "$work/untimed.mlir" && grep -qE '^ +[0-9.]+ .* 1  Parse input$' "$work/err" &&
  grep -qE '^ +[0-9.]+ .* 1  Print output$' "$work/err" && grep -qE '^ +[0-9.]+ .* 1    func.func\(canonicalize\{.*\},cse\)$' "$work/err" &&
  ok "--time-passes times reading and printing beside the passes" || fail "--time-passes: $(cat "$work/err")"
"$tool" "$corpus/func_arith.mlir" --passes=cse,canonicalize --print-pass-graph -o "$work/graph.dot" &&
  grep -qx 'digraph passes {' "$work/graph.dot" && grep -qx '  p0 \[label="cse"\];' "$work/graph.dot" &&
  grep -qx '  p1 \[label="canonicalize"\];' "$work/graph.dot" && ! grep -q 'func.func' "$work/graph.dot" &&
  ok "--print-pass-graph writes the passes run as DOT instead of the module" || fail "--print-pass-graph: $(cat "$work/graph.dot")"

# --report: the page of the run, with MLIR's function passes changing functions.
"$tool" "$corpus/func_arith.mlir" --passes="$nested" --report="$work/report.html" -o "$work/reported.mlir" &&
  cmp -s "$work/reported.mlir" "$work/untimed.mlir" &&
  grep -q '<pre>builtin.module$' "$work/report.html" && grep -q '^  func.func(canonicalize{.*},cse)$' "$work/report.html" &&
  grep -qE '<summary>[0-9]+\. builtin.module/func.func\(canonicalize\{.*\},cse\): [0-9]+ functions? changed</summary>' "$work/report.html" &&
  ok "--report writes the run's page" || fail "--report: $(head -c 300 "$work/report.html")"

[[ $failures == 0 ]]

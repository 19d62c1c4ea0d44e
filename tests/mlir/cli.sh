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
head -1 "$work/repro.mlir" | grep -q "^// passline-mlir-opt reproducer: '--passes=canonicalize{max-iterations=1 test-convergence=true}' --opt-level=3$" &&
  [[ ! -s "$work/out" ]] && ok "a failing pass writes its reproducer, and no output" || fail "reproducer: $(head -1 "$work/repro.mlir")"
"$tool" --run-reproducer "$work/repro.mlir" 2>"$work/err" >"$work/out"
[[ $? == 1 && "$(cat "$work/err")" == "$first_error" && ! -s "$work/out" ]] &&
  ok "--run-reproducer fails as the run did" || fail "replay: $(cat "$work/err")"
"$tool" --run-reproducer "$work/repro.mlir" --passes=cse 2>"$work/err"
[[ $? == 1 && "$(cat "$work/err")" == "passline-mlir-opt: error: --run-reproducer takes the input and the pipeline flags from its file" ]] &&
  ok "--run-reproducer with a pipeline of its own is an error" || fail "replay with --passes: $(cat "$work/err")"
# The same run from mlir-opt's pass flags, and from --pass-pipeline: the
# pipeline prints with the options given (those not at MLIR's defaults), and
# the reproducer replays the failure.
for flags in "-cse|-canonicalize=test-convergence=true max-iterations=1" \
  "--pass-pipeline=builtin.module(cse,canonicalize{test-convergence=true max-iterations=1})"; do
  IFS='|' read -ra given <<<"$flags"
  "$tool" "$corpus/fails.mlir" "${given[@]}" --print-pipeline >"$work/pipeline" 2>&1
  grep -qx "cse,canonicalize{max-iterations=1 test-convergence=true}" "$work/pipeline" &&
    ok "${given[*]}: --print-pipeline shows the options" || fail "${given[*]}: --print-pipeline: $(cat "$work/pipeline")"
  rm -f "$work/repro.mlir"
  "$tool" "$corpus/fails.mlir" "${given[@]}" --reproducer="$work/repro.mlir" >"$work/out" 2>"$work/err"
  [[ $? == 1 ]] || fail "${given[*]}: the run does not fail"
  "$tool" --run-reproducer "$work/repro.mlir" >"$work/out" 2>"$work/err"
  [[ $? == 1 ]] && grep -q "pass 'canonicalize' failed without a diagnostic" "$work/err" &&
    ok "${given[*]}: the reproducer fails as the run did" ||
    fail "${given[*]}: replay: $(head -1 "$work/repro.mlir") $(cat "$work/err")"
done
# A nest that fails without a diagnostic is named by the pass in it that
# failed (mlir-opt says nothing), on any number of threads.
for threads in 1 2; do
  "$tool" "$corpus/fails.mlir" --pass-pipeline='builtin.module(func.func(cse,canonicalize{test-convergence=true max-iterations=1}))' \
    --threads=$threads -o "$work/out.mlir" 2>"$work/err"
  [[ $? == 1 ]] && grep -q "): MLIR pass 'canonicalize{ .*test-convergence=true.*}' failed without a diagnostic$" "$work/err" &&
    ok "a failing nest names its failing pass, on $threads threads" || fail "failing nest on $threads threads: $(cat "$work/err")"
done
# Options left as MLIR's defaults print as the pass's name alone.
"$tool" "$corpus/fails.mlir" -cse '-canonicalize=max-iterations=10' --print-pipeline >"$work/pipeline" 2>&1
[[ "$(cat "$work/pipeline")" == "cse,canonicalize" ]] && ok "default options print as the name alone" ||
  fail "default options: $(cat "$work/pipeline")"
# mlir-opt's --run-reproducer is a flag: the input's own mlir_reproducer
# resource gives the pipeline; a file without one runs none, as in mlir-opt-19.
"$tool" --run-reproducer "$corpus/func_arith.mlir" >"$work/out" 2>"$work/err"
code=$?
mlir-opt-19 --run-reproducer "$corpus/func_arith.mlir" >"$work/mlir_out" 2>"$work/mlir_err"
[[ $code == $? ]] && cmp -s "$work/out" "$work/mlir_out" && cmp -s "$work/err" "$work/mlir_err" &&
  ok "--run-reproducer on a file that holds no reproducer does as mlir-opt-19" ||
  fail "--run-reproducer on no reproducer: exit $code, $(cat "$work/err")"

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

# mlir-opt's IR printing and timing flags: MLIR's own printer and timing on
# every MLIR pass manager of passline's run, function passes on passline's
# threads included, writing what mlir-opt writes.
fpasses=(-affine-scalrep -affine-loop-normalize)  # passes anchored on func.func: function passes
"$tool" "$corpus/func_arith.mlir" "${fpasses[@]}" >"$work/plain.mlir"
functions="$(grep -c '^func.func @' "$corpus/func_arith.mlir")"
for threads in 1 2; do
  "$tool" "$corpus/func_arith.mlir" "${fpasses[@]}" --threads=$threads -mlir-print-ir-after-all \
    -o "$work/printed.mlir" 2>"$work/err"
  # Each function printed whole after each pass, one print at a time.
  whole="$(awk 'after { if ($0 !~ /^func.func @/) bad = 1; after = 0 }
                /^\/\/ -----\/\/ IR Dump After [A-Za-z]+ \((affine-scalrep|affine-loop-normalize)\) \/\/----- \/\/$/ { after = 1; headers++ }
                /^}$/ { ends++ }
                END { print (bad || headers != ends) ? "no" : headers }' "$work/err")"
  cmp -s "$work/printed.mlir" "$work/plain.mlir" && [[ "$whole" == $((2 * functions)) ]] &&
    ok "-mlir-print-ir-after-all prints each function after each pass on $threads thread(s)" ||
    fail "-mlir-print-ir-after-all on $threads thread(s): $whole prints of $((2 * functions)): $(head -5 "$work/err")"
done
# One tree for the run: the counts go on from one pass manager to the next.
"$tool" "$corpus/func_arith.mlir" -affine-scalrep -affine-scalrep --threads=2 -mlir-print-ir-after-all \
  -mlir-print-ir-tree-dir="$work/tree" -o "$work/treed.mlir"
module_dir="$work/tree/builtin_module_no-symbol-name"
[[ "$(find "$work/tree" -type f | wc -l)" == $((2 * functions)) && -f "$module_dir/func_func_fold/0_0_affine-scalrep.mlir" &&
   -f "$module_dir/func_func_fold/0_1_affine-scalrep.mlir" && -f "$module_dir/func_func_common/0_1_affine-scalrep.mlir" ]] &&
  grep -q '^func.func @fold' "$module_dir/func_func_fold/0_1_affine-scalrep.mlir" &&
  ok "-mlir-print-ir-tree-dir writes one tree, counting each function's passes" ||
  fail "-mlir-print-ir-tree-dir: $(cd "$work/tree" && find . -type f | sort | head -5)"
touch "$work/a-file"
"$tool" "$corpus/func_arith.mlir" -affine-scalrep -mlir-print-ir-after-all -mlir-print-ir-tree-dir="$work/a-file/tree" \
  -o "$work/untreed.mlir" 2>"$work/err"
[[ $? == 1 && ! -e "$work/untreed.mlir" && "$(wc -l <"$work/err")" == 1 ]] &&
  grep -q "^passline-mlir-opt: error: -mlir-print-ir-tree-dir: cannot write '$work/a-file/tree/" "$work/err" &&
  ok "a tree that cannot be written is one error, and no output" || fail "unwritable tree: $(cat "$work/err")"
"$tool" "$corpus/func_arith.mlir" --passes=canonicalize,cse -mlir-timing -mlir-timing-display=tree \
  -o "$work/mlir-timed.mlir" 2>"$work/err"
[[ "$(grep -oE '(Parser|Canonicalizer|CSE|Output|Total)$' "$work/err" | tr '\n' ' ')" == "Parser Canonicalizer CSE Output Total " ]] &&
  grep -q 'Execution time report' "$work/err" &&
  ok "-mlir-timing prints MLIR's report of the run" || fail "-mlir-timing: $(cat "$work/err")"
"$tool" "$corpus/func_arith.mlir" -affine-scalrep --threads=1 -mlir-print-ir-before-all -mlir-print-ir-module-scope \
  -o "$work/scoped.mlir" 2>"$work/err"
[[ $? == 0 && "$(grep -c "IR Dump Before .* (affine-scalrep) ('func.func' operation: @" "$work/err")" == "$functions" &&
   "$(grep -c '^module {' "$work/err")" == "$functions" ]] &&
  ok "-mlir-print-ir-module-scope prints the whole module for each function" || fail "module scope: $(head -3 "$work/err")"
"$tool" "$corpus/func_arith.mlir" -affine-scalrep --threads=2 -mlir-print-ir-before-all -mlir-print-ir-module-scope \
  >"$work/out" 2>"$work/err"
[[ $? == 1 && ! -s "$work/out" && "$(wc -l <"$work/err")" == 1 ]] &&
  grep -q "without disabling multi-threading first. Give --threads=1" "$work/err" &&
  ok "-mlir-print-ir-module-scope on two threads is one error" || fail "module scope on threads: $(cat "$work/err")"

# A pass that crashes is recovered under passline's --reproducer: exit code
# 1, one error, no output, passline's reproducer written; its replay crashes
# as the pass did (SIGABRT: exit code 134). The same for a crash inside a
# nest, on one thread: MLIR runs a nest's operations on its context's
# threads, where a crash ends the process, in mlir-opt-19 too.
for case in 'test-pass-crash 2' 'func.func(test-pass-crash) 1'; do
  read -r nest threads <<<"$case"
  rm -f "$work/crash.mlir"
  # What the crashing pass had allocated is never freed, as in MLIR's own
  # recovery (its crash-recovery.mlir turns leak reports off the same way).
  LSAN_OPTIONS=detect_leaks=0 "$tool" "$corpus/func_arith.mlir" --pass-pipeline="builtin.module($nest)" \
    --threads="$threads" --reproducer="$work/crash.mlir" >"$work/out" 2>"$work/err"
  code=$?
  if [[ "$code" == 1 && ! -s "$work/out" && "$(wc -l <"$work/err")" == 1 ]] &&
    grep -q "^passline-mlir-opt: error: pass '$nest' failed .*: MLIR pass '$nest' crashed\$" "$work/err" &&
    head -1 "$work/crash.mlir" | grep -qF -- "--passes=$nest"; then
    "$tool" --run-reproducer "$work/crash.mlir" >/dev/null 2>&1
    replay=$?
    [[ "$replay" == 134 ]] && ok "--reproducer: a crash in $nest is recovered, and its reproducer crashes again" ||
      fail "--reproducer: the reproducer of a crash in $nest replays with exit code $replay"
  else
    fail "--reproducer: a crash in $nest: exit code $code, $(cat "$work/err")"
  fi
done

# mlir-opt's -mlir-pass-pipeline-crash-reproducer is MLIR's crash
# reproducer on the pass managers passline runs: the reproducer, the
# diagnostics and the exit code are mlir-opt-19's (threading as given: one
# thread is -mlir-disable-threading), and --run-reproducer, mlir-opt's flag,
# replays it to the same crash. With the local reproducer, the pass alone.
for case in 'test-pass-crash 2 -' 'func.func(test-pass-crash) 1 -' \
  'func.func(cse,test-pass-crash) 1 -mlir-pass-pipeline-local-reproducer'; do
  read -r nest threads local <<<"$case"
  [[ "$local" == - ]] && local=()
  [[ "$threads" == 1 ]] && mlir_threads=(-mlir-disable-threading) || mlir_threads=()
  rm -f "$work/crash.mlir" "$work/mlir_crash.mlir"
  "$tool" "$corpus/func_arith.mlir" --pass-pipeline="builtin.module($nest)" --threads="$threads" "${local[@]}" \
    -mlir-pass-pipeline-crash-reproducer="$work/crash.mlir" >"$work/out" 2>"$work/err"
  code=$?
  mlir-opt-19 "$corpus/func_arith.mlir" --pass-pipeline="builtin.module($nest)" "${mlir_threads[@]}" "${local[@]}" \
    -mlir-pass-pipeline-crash-reproducer="$work/mlir_crash.mlir" >"$work/mlir_out" 2>"$work/mlir_err"
  mlir_code=$?
  sed -i "s|$work/mlir_crash.mlir|$work/crash.mlir|" "$work/mlir_err"
  if [[ "$code" == 1 && "$mlir_code" == 1 && ! -s "$work/out" ]] && cmp -s "$work/err" "$work/mlir_err" &&
    cmp -s "$work/crash.mlir" "$work/mlir_crash.mlir"; then
    "$tool" --run-reproducer "$work/crash.mlir" >/dev/null 2>&1
    replay=$?
    [[ "$replay" == 134 ]] && ok "-mlir-pass-pipeline-crash-reproducer ${local[*]}: a crash in $nest writes mlir-opt-19's reproducer, which --run-reproducer replays" ||
      fail "-mlir-pass-pipeline-crash-reproducer: the reproducer of a crash in $nest replays with exit code $replay"
  else
    fail "-mlir-pass-pipeline-crash-reproducer ${local[*]}: a crash in $nest: exit code $code (mlir-opt-19: $mlir_code), $(diff "$work/err" "$work/mlir_err"; diff "$work/crash.mlir" "$work/mlir_crash.mlir")"
  fi
done
# The local reproducer needs one thread, as in MLIR.
"$tool" "$corpus/func_arith.mlir" --pass-pipeline='builtin.module(test-pass-crash)' --threads=2 \
  -mlir-pass-pipeline-local-reproducer -mlir-pass-pipeline-crash-reproducer="$work/crash.mlir" >"$work/out" 2>"$work/err"
[[ $? == 1 && ! -s "$work/out" && "$(wc -l <"$work/err")" == 1 ]] && grep -q "Give --threads=1 or -mlir-disable-threading" "$work/err" &&
  ok "the local reproducer on two threads is one error" || fail "local reproducer on threads: $(cat "$work/err")"

# -mlir-generate-reproducer: the module the pipeline made, with the pipeline,
# as mlir-opt-19 writes it; with passline's pipeline text, an error.
for pipeline in "-cse|-canonicalize" "--pass-pipeline=builtin.module(func.func(canonicalize),cse)"; do
  IFS='|' read -ra given <<<"$pipeline"
  "$tool" "$corpus/func_arith.mlir" "${given[@]}" -mlir-generate-reproducer="$work/made.mlir" >"$work/out" 2>&1
  code=$?
  mlir-opt-19 "$corpus/func_arith.mlir" "${given[@]}" -mlir-generate-reproducer="$work/mlir_made.mlir" >"$work/mlir_out" 2>&1
  [[ $code == 0 && $? == 0 ]] && cmp -s "$work/out" "$work/mlir_out" && cmp -s "$work/made.mlir" "$work/mlir_made.mlir" &&
    ok "${given[*]}: -mlir-generate-reproducer writes mlir-opt-19's reproducer" ||
    fail "${given[*]}: -mlir-generate-reproducer: exit $code, $(diff "$work/made.mlir" "$work/mlir_made.mlir")"
done
"$tool" "$corpus/func_arith.mlir" --passes=cse -mlir-generate-reproducer="$work/made.mlir" >"$work/out" 2>"$work/err"
[[ $? == 1 && ! -s "$work/out" && "$(wc -l <"$work/err")" == 1 ]] && grep -q "writes the pipeline as MLIR's text" "$work/err" &&
  ok "-mlir-generate-reproducer with passline's pipeline text is one error" || fail "generate with --passes: $(cat "$work/err")"
[[ $failures == 0 ]]

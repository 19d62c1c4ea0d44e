#!/usr/bin/env bash
# --reduce over MLIR, as a user runs it: passes of a passline plugin over
# MLIR (planted_mlir.cpp) that crash or fail only on `arith.remsi %x,
# %c7919`, buried in a module of 10^4 operations (generate_mlir.py) behind
# canonicalize, cse and symbol-dce. Each reduction must end in a reproducer
# that still fails the same way when replayed (on 1 and 4 threads), runs
# the planted pass alone, and keeps one function with the pattern and at
# most four operations in all; the same on 1 and 2 threads. A command
# judges as mlir-reduce's test scripts do.
#   reduce_mlir.sh PASSLINE_MLIR_OPT PLANTED_MLIR_PLUGIN GENERATE_MLIR_PY
set -uo pipefail
opt="$1" plugin="$2" generate="$3"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

python3 "$generate" 100 100 1 >"$work/big.mlir"   # 10,201 operations
pipeline="canonicalize,cse,PASS,symbol-dce"

# reduce NAME PASS FLAGS...: reduces the pipeline with PASS on big.mlir into $work/NAME.mlir.
reduce() {
  local name="$1" pass="$2"
  shift 2
  "$opt" "$work/big.mlir" --load-pass-plugin "$plugin" --passes="${pipeline/PASS/$pass}" --reduce "$@" \
    -o "$work/$name.mlir" >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.code"
}

# check_reduced NAME PASS: the reproducer runs PASS alone on one function with the pattern.
check_reduced() {
  local name="$1" pass="$2" file="$work/$1.mlir"
  [[ "$(cat "$work/$name.code")" == 0 ]] || { fail "$name: exit code $(cat "$work/$name.code")"; cat "$work/$name.err"; return 1; }
  head -1 "$file" | grep -q "^// passline-mlir-opt reproducer: --passes=$pass --load-pass-plugin .* --opt-level=3\$" ||
    { fail "$name: the pipeline is not $pass alone: $(head -1 "$file")"; return 1; }
  grep -q 'arith.remsi %arg[01], %c7919_i64 : i64' "$file" || { fail "$name: the pattern is gone"; cat "$file"; return 1; }
  [[ "$(grep -c 'func.func' "$file")" == 1 ]] || { fail "$name: not one function"; cat "$file"; return 1; }
  [[ "$(grep -c ' = \|return' "$file")" -le 3 ]] || { fail "$name: more than the pattern and a return"; cat "$file"; return 1; }
  ok "$name: $(grep 'reduce: done' "$work/$name.err" | sed 's/; replay.*//')"
}

reduce crash planted-crash --threads=1
check_reduced crash planted-crash
grep -q 'what still fails: a crash by SIGABRT' "$work/crash.err" || fail "crash: the symptom is not named"
for threads in 1 4; do
  "$opt" --run-reproducer "$work/crash.mlir" --threads=$threads >"$work/replay.out" 2>"$work/replay.err"
  code=$?
  [[ "$code" == 134 ]] && ok "crash: the reproducer aborts on $threads threads" || fail "crash: replay on $threads threads: exit code $code"
done
reduce crash2 planted-crash --threads=2
cmp -s "$work/crash.mlir" "$work/crash2.mlir" && ok "crash: the same reproducer on 1 and 2 threads" ||
  fail "crash: 1 and 2 threads differ: $(diff "$work/crash.mlir" "$work/crash2.mlir")"

reduce error planted-fail --reduce-match='remsi by 7919'
check_reduced error planted-fail
"$opt" --run-reproducer "$work/error.mlir" >"$work/replay.out" 2>"$work/replay.err"
code=$?
[[ "$code" == 1 ]] && grep -q "error: pass 'planted-fail' failed: found remsi by 7919" "$work/replay.err" &&
  ok "error: the reproducer fails the same way" || fail "error: replay: $code $(cat "$work/replay.err")"

fails="$(dirname "$generate")/../mlir/corpus/fails.mlir"

# A pass of MLIR's that fails with a diagnostic of its own, which MLIR's
# handler prints (--reduce's tries name the pass in a note, as
# PASSLINE_NAME_FAILED_PASS=1 asks; a plain run prints MLIR's error alone, as
# mlir-opt): a call of a
# function whose memref result has a dynamic shape, among 10 functions.
python3 "$generate" 10 10 1 | sed '$d' >"$work/shown.mlir"
printf '  func.func private @callee() -> memref<?xf32>\n  func.func @dynamic() {\n    %%0 = call @callee() : () -> memref<?xf32>\n    memref.dealloc %%0 : memref<?xf32>\n    return\n  }\n}\n' \
  >>"$work/shown.mlir"
"$opt" "$work/shown.mlir" --passes=canonicalize,cse,buffer-results-to-out-params,symbol-dce --reduce \
  -o "$work/shown.out.mlir" >/dev/null 2>"$work/shown.err"
code=$?
PASSLINE_NAME_FAILED_PASS=1 "$opt" --run-reproducer "$work/shown.out.mlir" >/dev/null 2>"$work/shown.replay"
replayed=$?
"$opt" --run-reproducer "$work/shown.out.mlir" >/dev/null 2>"$work/shown.plain"
[[ "$code" == 0 && "$replayed" == 1 ]] &&
  [[ "$(head -1 "$work/shown.out.mlir")" == "// passline-mlir-opt reproducer: --passes=buffer-results-to-out-params --opt-level=3" ]] &&
  [[ "$(grep -c 'func.func' "$work/shown.out.mlir")" == 2 ]] &&
  grep -q 'error: cannot create out param for dynamically shaped result' "$work/shown.replay" &&
  grep -q "^passline-mlir-opt: note: pass 'buffer-results-to-out-params' failed" "$work/shown.replay" &&
  grep -q 'error: cannot create out param' "$work/shown.plain" && ! grep -q 'note: pass' "$work/shown.plain" &&
  ok "a pass failing with MLIR's diagnostic: reduced to it alone on the caller and its callee, and it fails" ||
  { fail "a pass failing with MLIR's diagnostic: exit codes $code, $replayed"; cat "$work/shown.err" "$work/shown.out.mlir" "$work/shown.replay"; }

# mlir-opt's pass flags with options: the reproducer keeps the options, and fails.
"$opt" "$fails" -cse '-canonicalize=test-convergence=true max-iterations=1' -symbol-dce --reduce -o "$work/flags.mlir" \
  >"$work/flags.out" 2>"$work/flags.err"
code=$?
"$opt" --run-reproducer "$work/flags.mlir" >"$work/flags.replay" 2>&1
replayed=$?
[[ "$code" == 0 && "$replayed" == 1 ]] &&
  [[ "$(head -1 "$work/flags.mlir")" == "// passline-mlir-opt reproducer: '--passes=canonicalize{max-iterations=1 test-convergence=true}' --opt-level=3" ]] &&
  ok "pass flags with options: canonicalize with its options alone, and it fails" ||
  { fail "pass flags with options: exit codes $code, $replayed, $(head -1 "$work/flags.mlir")"; cat "$work/flags.err"; }

# A failing pass that MLIR nests is named by its nest, which still counts as
# the same pass with some of its passes gone: the other pass of the nest goes,
# with the symptom found by itself or said by --reduce-match.
for how in auto match; do
  flags=(--reduce)
  [[ $how == match ]] && flags+=(--reduce-match='failed without a diagnostic')
  "$opt" "$fails" --pass-pipeline='builtin.module(func.func(cse,canonicalize{test-convergence=true max-iterations=1}))' \
    "${flags[@]}" -o "$work/nest.mlir" >"$work/nest.out" 2>"$work/nest.err"
  code=$?
  [[ "$code" == 0 ]] && head -1 "$work/nest.mlir" | grep -q -- "--passes=builtin.module(func.func(canonicalize{.*test-convergence=true.*}))' " &&
    ok "a nested failing pass ($how): cse left the nest" ||
    { fail "a nested failing pass ($how): exit code $code, $(head -1 "$work/nest.mlir")"; cat "$work/nest.err"; }
  [[ $how == match ]] || grep -q "what still fails: pass 'func.func(cse,canonicalize{.*})' fails$" "$work/nest.err" ||
    fail "a nested failing pass: the symptom is not the nest: $(cat "$work/nest.err")"
done

# A test script as mlir-reduce takes one: the candidate's path first; a nonzero exit: still failing.
cat >"$work/aborts.sh" <<SCRIPT
#!/bin/sh
"$opt" --load-pass-plugin "$plugin" --passes=planted-crash "\$1" -o "\$1.out" 2>"\$1.err"
test \$? -ne 134
SCRIPT
chmod +x "$work/aborts.sh"
reduce command planted-crash --reduce=command --reduce-command="$work/aborts.sh"
[[ "$(cat "$work/command.code")" == 0 ]] && grep -q 'arith.remsi %arg[01], %c7919_i64' "$work/command.mlir" &&
  [[ "$(grep -c ' = \|return' "$work/command.mlir")" -le 3 ]] &&
  ok "command: $(grep 'reduce: done' "$work/command.err" | sed 's/; replay.*//')" ||
  { fail "command: exit code $(cat "$work/command.code")"; cat "$work/command.err" "$work/command.mlir"; }

finish

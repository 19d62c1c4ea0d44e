#!/usr/bin/env bash
# toy-opt, built from examples/your-own-mlir-opt against the installed
# package (by install.find_package): passline.mlir.opt's opt_main over MLIR's
# dialects and a pass of the example's own, run as a user runs it. Each
# check reads the output, not only the exit code.
#
#   your_own_mlir_opt.sh BUILD_DIR EXAMPLE_DIR
set -uo pipefail
build="$1" example="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

tool="$build/toy-opt"
[[ -x "$tool" ]] || { echo "FAIL: no toy-opt in $build"; exit 1; }
ok "examples/your-own-mlir-opt built against the installed package: $(sed -n '/^int main/,/^}/p' "$example/main.cpp" | wc -l) lines of main()"
cd "$work" || exit 1

# mlir-opt's command line: the example's pass as a pass flag, then MLIR's.
expected=$'module {\n  func.func @f(%arg0: i32) -> i32 {\n    return %arg0 : i32\n  }\n  func.func @g(%arg0: i32) -> i32 {\n    %0 = arith.muli %arg0, %arg0 : i32\n    return %0 : i32\n  }\n}'
"$tool" "$example/notes.mlir" -strip-notes -canonicalize >out.mlir 2>err.log; status=$?
if [[ $status == 0 && "$(cat out.mlir)" == "$expected" ]]; then
  ok "-strip-notes -canonicalize: the notes gone, @f folded"
else
  fail "-strip-notes -canonicalize (exit $status): $(cat out.mlir err.log)"
fi

# passline's flags over it: --passes, --print-changed, two threads, -o.
"$tool" "$example/notes.mlir" --passes=strip-notes,cse --print-changed --threads=2 -o out2.mlir 2>changed.log; status=$?
if [[ $status == 0 ]] && grep -q 'strip-notes' changed.log && ! grep -q 'toy.note' out2.mlir &&
   grep -q 'arith.addi' out2.mlir; then
  ok "--passes=strip-notes,cse --print-changed --threads=2 -o: printed what strip-notes changed"
else
  fail "--passes --print-changed (exit $status): $(head -c 600 changed.log)"
fi

# --help: the tool's name, passline's flags and the example's pass among MLIR's.
"$tool" --help >help.txt 2>&1; status=$?
if [[ $status == 0 && "$(head -1 help.txt)" == "toy-opt: mlir-opt's command line, run by passline's pass manager." ]] &&
   grep -q -- '--print-changed' help.txt && grep -q -- '--strip-notes .*Drop the attribute toy.note' help.txt; then
  ok "--help names toy-opt, passline's flags and -strip-notes"
else
  fail "--help (exit $status): $(head -c 600 help.txt)"
fi

# Malformed input: MLIR's error at its position with a caret; exit 1; no output.
printf 'func.func @f() {\n  %%x = arith.constant : i32\n}\n' >bad.mlir
"$tool" bad.mlir -o bad.out 2>bad.log; status=$?
if [[ $status == 1 && ! -e bad.out ]] && grep -q '^bad.mlir:2:[0-9]*: error: ' bad.log && grep -q '^ *\^' bad.log; then
  ok "malformed input: file:line:col, a caret, exit 1, no output"
else
  fail "malformed input (exit $status): $(cat bad.log)"
fi

# A pass that fails: no output, passline's reproducer, and its replay
# failing the same way.
sed 's/{toy.note = "square"}/{toy.fail}/' "$example/notes.mlir" >fails.mlir
"$tool" fails.mlir --passes=cse,strip-notes --reproducer=repro.mlir -o fails.out 2>fails.log; status=$?
if [[ $status == 1 && ! -e fails.out ]] && grep -q 'this operation is marked toy.fail' fails.log &&
   head -1 repro.mlir | grep -q '^// toy-opt reproducer: ' && grep -q 'toy.fail' repro.mlir; then
  ok "a failing pass: exit 1, no output, toy-opt's reproducer written"
else
  fail "a failing pass (exit $status): $(cat fails.log; head -3 repro.mlir 2>&1)"
fi
"$tool" --run-reproducer repro.mlir >replay.out 2>replay.log; status=$?
if [[ $status == 1 ]] && grep -q 'this operation is marked toy.fail' replay.log; then
  ok "--run-reproducer repro.mlir fails the same way"
else
  fail "--run-reproducer (exit $status): $(cat replay.log)"
fi

# --reduce: the failing run shrunk to the function that fails and the pass
# that fails on it.
"$tool" fails.mlir --passes=cse,strip-notes --reduce -o reduced.mlir >/dev/null 2>reduce.log; status=$?
if [[ $status == 0 && "$(head -1 reduced.mlir)" == "// toy-opt reproducer: --passes=strip-notes --opt-level=3" ]] &&
   [[ "$(grep -c 'func.func' reduced.mlir)" == 1 ]] && grep -q 'toy.fail' reduced.mlir; then
  ok "--reduce: strip-notes alone on the function marked toy.fail"
else
  fail "--reduce (exit $status): $(cat reduce.log reduced.mlir 2>&1)"
fi

if (( failures > 0 )); then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"

#!/usr/bin/env bash
# stack-opt, built from examples/your-own-tool against the installed package
# (by install.find_package), run as a user runs it. Each check reads the
# output, not only the exit code.
#
#   your_own_tool.sh BUILD_DIR EXAMPLE_DIR [BROWSER_TEST]
#
# BUILD_DIR holds stack-opt and stack_plugin.so. BROWSER_TEST:
# tests/report/browser_test.py, to open the --report page in Chromium (given
# where Chromium, chromedriver and Selenium are installed).
set -uo pipefail
build="$1" example="$2" browser_test="${3:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[[ -x "$build/stack-opt" ]] || { echo "FAIL: no stack-opt in $build"; exit 1; }
ok "examples/your-own-tool built against the installed package: $(wc -l <"$example/main.cpp") lines of main.cpp"
tool="$build/stack-opt"
cd "$work" || exit 1

# A pipeline from text, with --print-after-all.
"$tool" "$example/demo.stack" --passes='fold,peephole' --print-after-all >out.stack 2>after.log
expected=$'func @main 0 {\n  push 42\n  call @square\n  print\n  push 6\n  ret\n}\nfunc @square 1 {\n  dup\n  mul\n  ret\n}\nfunc @unused 0 {\n  push 1\n  ret\n}'
if [[ "$(cat out.stack)" == "$expected" ]]; then ok "--passes=fold,peephole folds and drops"; else fail "--passes=fold,peephole gives: $(cat out.stack)"; fi
if grep -q '^// \*\*\* IR Dump After canon (required by fold) \*\*\*$' after.log &&
   grep -q '^// \*\*\* IR Dump After peephole \*\*\*$' after.log && grep -q '^  push 42$' after.log; then
  ok "--print-after-all prints the program after canon (required by fold), fold and peephole"
else
  fail "--print-after-all: $(head -c 400 after.log)"
fi

# Malformed input: one error at its position, with a caret; exit 1; no output.
printf 'func @main 0 {\n  push 1\n  push x\n  ret\n}\n' >bad.stack
"$tool" bad.stack -o bad.out 2>bad.log; status=$?
if [[ $status == 1 && ! -e bad.out && "$(head -1 bad.log)" == "bad.stack:3:8: error: expected a number after 'push', found 'x'" &&
      "$(sed -n 3p bad.log)" == "       ^" ]]; then
  ok "malformed input: file:line:col, a caret, exit 1, no output"
else
  fail "malformed input (exit $status): $(cat bad.log)"
fi

# --report: the page, with the tool's passes on its timeline.
"$tool" "$example/demo.stack" --report=report.html >/dev/null 2>report.log
if grep -q 'dead-functions' report.html && grep -q 'canon' report.html; then ok "--report writes the run's page"; else fail "--report: $(cat report.log)"; fi
if [[ -n "$browser_test" ]]; then
  python3 "$browser_test" --page report.html --passes canon,fold,peephole,dead-functions ||
    fail "the --report page in Chromium"
else
  echo "skipped: the --report page in Chromium (./dev setup --browser installs it)"
fi

# --reduce: a failing pass (fold: a division by a constant zero) planted in
# one of 40 functions, shrunk to a reproducer of a few lines that
# --run-reproducer replays.
# program PLANTED: 40 functions and @main; with PLANTED, @f23 divides by zero.
program() {
  for f in $(seq 0 39); do
    echo "func @f$f 0 {"
    for i in $(seq 1 10); do printf '  push %d\n  push %d\n  add\n  pop\n' $((f + i)) $((i % 7 + 1)); done
    if [[ $f == 23 && $1 == 1 ]]; then printf '  push 5\n  push 0\n  div\n  pop\n'; fi
    printf '  push 0\n  ret\n}\n'
  done
  echo "func @main 0 {"
  for f in $(seq 0 39); do printf '  call @f%d\n  pop\n' "$f"; done
  printf '  push 0\n  ret\n}\n'
}
program 1 >big.stack
program 0 >clean.stack
"$tool" big.stack --passes=O2 2>run.log >/dev/null
"$tool" big.stack --passes=O2 --reduce -o repro.stack 2>reduce.log; status=$?
lines=$(wc -l <repro.stack 2>/dev/null || echo 0)
if [[ $status == 0 && $lines -le 10 ]] && grep -q '^func @f23 0 {$' repro.stack && grep -q '^  div$' repro.stack &&
   head -1 repro.stack | grep -q '^# stack-opt reproducer: --passes=fold '; then
  ok "--reduce: a reproducer of $lines lines ($(grep -o 'done: .*operations' reduce.log))"
else
  fail "--reduce (exit $status, $lines lines): $(tail -3 reduce.log) $(cat repro.stack 2>/dev/null)"
fi
"$tool" --run-reproducer repro.stack 2>replay.log >/dev/null; status=$?
if [[ $status == 1 && "$(cat replay.log)" == "stack-opt: error: pass 'fold' failed: @f23: division of 5 by zero" ]]; then
  ok "--run-reproducer replays the failure"
else
  fail "--run-reproducer (exit $status): $(cat replay.log); the run: $(cat run.log)"
fi

# --load-pass-plugin: a plugin built for the example's IR.
"$tool" "$example/demo.stack" --load-pass-plugin="$build/stack_plugin.so" --passes=strength >plugin.stack 2>plugin.log
if grep -Pzq '  push 3\n  dup\n  add\n' plugin.stack && ! grep -q 'push 2' plugin.stack; then
  ok "--load-pass-plugin: the plugin's pass 'strength' runs"
else
  fail "--load-pass-plugin: $(cat plugin.log) $(cat plugin.stack)"
fi

# --threads=2: the same bytes as one thread.
"$tool" clean.stack --passes='fold,peephole' --threads=1 >one.stack 2>&1
"$tool" clean.stack --passes='fold,peephole' --threads=2 >two.stack 2>&1
if [[ -s one.stack ]] && ! grep -q "add" one.stack && cmp -s one.stack two.stack; then
  ok "--threads=2 gives the bytes of one thread, every sum folded"
else
  fail "--threads=2 differs from one thread, or nothing changed"
fi

echo "$failures failures"
[[ $failures == 0 ]]

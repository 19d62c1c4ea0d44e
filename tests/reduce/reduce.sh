#!/usr/bin/env bash
# --reduce, as a user runs it: passes with planted bugs (planted_bugs.cpp, a
# plugin) that fail, crash, hang, break the IR or miscompile only on
# `mod(x, 7919)`, buried in a module of 10^4 to 10^5 expressions
# (generate.py) behind a long pipeline (O3, the pass, O2). Each reduction
# must end in a reproducer that still fails the same way when replayed,
# runs the planted pass alone (the plan adds its requirement, InferType),
# and keeps one function with the pattern and at most two lets; the same on
# 1 and 2 threads; an interrupted reduction keeps the best reproducer so far.
#   reduce.sh PASSLINE_OPT PLANTED_BUGS_PLUGIN GENERATE_PY
set -uo pipefail
opt="$1" plugin="$2" generate="$3"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

python3 "$generate" 200 100 7 >"$work/big.ir"     # 68,115 expressions
python3 "$generate" 30 50 11 >"$work/medium.ir"   # for the hangs: each try that hangs costs the time limit
big_size=$(grep -c 'let' "$work/big.ir")
[[ "$big_size" -ge 10000 ]] || fail "the generated module is too small: $big_size lets"

# reduce NAME BUG INPUT FLAGS...: reduces `O3,BUG,O2` on INPUT into $work/NAME.ir.
reduce() {
  local name="$1" bug="$2" input="$3"
  shift 3
  "$opt" "$input" --load-pass-plugin "$plugin" --passes="O3,$bug,O2" --reduce "$@" -o "$work/$name.ir" \
    >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.code"
}

# check_reduced NAME BUG: the reproducer runs BUG alone on one function with the pattern.
check_reduced() {
  local name="$1" bug="$2" file="$work/$1.ir"
  [[ "$(cat "$work/$name.code")" == 0 ]] || { fail "$name: exit code $(cat "$work/$name.code")"; cat "$work/$name.err"; return 1; }
  [[ ! -s "$work/$name.out" ]] || { fail "$name: wrote to stdout with -o"; return 1; }
  head -1 "$file" | grep -q "^// passline-opt reproducer: --passes=$bug --load-pass-plugin .* --opt-level=3\$" ||
    { fail "$name: the pipeline is not $bug alone: $(head -1 "$file")"; return 1; }
  "$opt" --run-reproducer "$file" --print-pipeline=expanded >"$work/$name.plan" 2>&1 &&
    [[ "$(cat "$work/$name.plan")" == "InferType  (required by $bug)"$'\n'"$bug" ]] ||
    { fail "$name: the plan is not InferType then $bug: $(cat "$work/$name.plan")"; return 1; }
  grep -q 'mod(.*, 7919)' "$file" || { fail "$name: the pattern is gone"; cat "$file"; return 1; }
  [[ "$(grep -c '^def\|^#\[export\] *def' "$file")" == 1 ]] || { fail "$name: not one function"; cat "$file"; return 1; }
  [[ "$(grep -c 'let ' "$file")" -le 2 ]] || { fail "$name: more than two lets"; cat "$file"; return 1; }
  ok "$name: $(tail -1 "$work/$name.err" | sed 's/; replay.*//')"
}

# replay NAME FLAGS...: replays the reproducer; its exit code in $work/NAME.replay.code.
replay() {
  local name="$1"
  shift
  timeout 5 "$opt" --run-reproducer "$work/$name.ir" "$@" >"$work/$name.replay.out" 2>"$work/$name.replay.err"
  echo $? >"$work/$name.replay.code"
}

# The hangs' time limit: five times what the whole pipeline without the
# hang takes here, in whole seconds, plus one (longer in a sanitizer's build
# or on a loaded machine), so that only the planted hang runs past it.
start=$EPOCHREALTIME
"$opt" "$work/medium.ir" --passes="O3,O2" -o "$work/medium.out.ir" 2>"$work/medium.err" ||
  fail "the pipeline without the hang: $(cat "$work/medium.err")"
elapsed_ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
limit=$(( elapsed_ms * 5 / 1000 + 1 ))

# The hangs mostly wait (each try that hangs costs the time limit): they run
# apart, beside the other cases.
hang_cases() {
  # A hang: each try that runs past the limit still hangs.
  reduce hang PlantedHang "$work/medium.ir" --reduce=hang --reduce-timeout=$limit
  check_reduced hang PlantedHang
  replay hang
  [[ "$(cat "$work/hang.replay.code")" == 124 ]] && ok "hang: the reproducer still hangs" ||
    fail "hang: replay exit code $(cat "$work/hang.replay.code")"
}
interrupt_case() {
  # Interrupted, it keeps the best reproducer so far, which still hangs.
  "$opt" "$work/medium.ir" --load-pass-plugin "$plugin" --passes="O3,PlantedHang,O2" --reduce=hang --reduce-timeout=$limit \
    -o "$work/interrupted.ir" >"$work/interrupted.out" 2>"$work/interrupted.err" &
  pid=$!
  # Interrupted once it has written a smaller reproducer than its input (however
  # long a loaded machine takes to get there), and long before it is done.
  medium_bytes=$(wc -c <"$work/medium.ir")
  for _ in $(seq 600); do
    [[ -s "$work/interrupted.ir" && "$(wc -c <"$work/interrupted.ir")" -lt "$medium_bytes" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT "$pid"
  wait "$pid"
  code=$?
  if [[ "$code" == 130 ]] && grep -q 'interrupted, the best so far' "$work/interrupted.err"; then
    replay interrupted
    [[ "$(cat "$work/interrupted.replay.code")" == 124 ]] &&
      [[ "$(wc -c <"$work/interrupted.ir")" -lt "$medium_bytes" ]] &&
      ok "interrupt: exit code 130, a smaller reproducer that still hangs" ||
      fail "interrupt: the reproducer left: replay exit code $(cat "$work/interrupted.replay.code"), $(wc -c <"$work/interrupted.ir") bytes"
  else
    fail "interrupt: exit code $code"; cat "$work/interrupted.err"
  fi
}
apart hang hang_cases
apart interrupt interrupt_case

# A crash, on 1 and on 2 threads: the same reproducer, which aborts on any number of threads.
reduce crash PlantedCrash "$work/big.ir" --threads=1
check_reduced crash PlantedCrash
grep -q 'what still fails: a crash by SIGABRT' "$work/crash.err" || fail "crash: the symptom is not named"
reduce crash2 PlantedCrash "$work/big.ir" --threads=2
cmp -s "$work/crash.ir" "$work/crash2.ir" && ok "crash: the same reproducer on 1 and 2 threads" ||
  fail "crash: 1 and 2 threads differ: $(diff "$work/crash.ir" "$work/crash2.ir")"
for threads in 1 4; do
  replay crash --threads=$threads
  [[ "$(cat "$work/crash.replay.code")" == 134 ]] && ok "crash: the reproducer aborts on $threads threads" ||
    fail "crash: replay on $threads threads: exit code $(cat "$work/crash.replay.code")"
done

# The report page shows the reduction: what still fails, the steps, the pipeline and reproducer left, the replay.
reduce reported PlantedCrash "$work/big.ir" --report="$work/reduction.html"
if grep -q '<section id="reduction">' "$work/reduction.html" &&
   grep -q '<pre id="reduced-pipeline">PlantedCrash</pre>' "$work/reduction.html" &&
   grep -q "<code id=\"replay\">passline-opt --run-reproducer $work/reported.ir</code>" "$work/reduction.html" &&
   grep -q '<strong id="symptom">a crash by SIGABRT</strong>' "$work/reduction.html" &&
   [[ "$(grep -c '<tr><td>' "$work/reduction.html")" -ge 5 ]]; then
  ok "--report: the page shows the reduction"
else
  fail "--report: the page does not show the reduction"
fi

# Functions alone (what a reducer outside the pass manager gets): the pipeline stays whole, the result is larger.
reduce functions PlantedCrash "$work/big.ir" --reduce-steps=functions
functions_left=$(grep -c 'let ' "$work/functions.ir")
head -1 "$work/functions.ir" | grep -q -- "--passes=InferType,Inline{max-size=32 max-growth=2},FoldConstant,.*,PlantedCrash,InferType," &&
  [[ "$functions_left" -gt "$(grep -c 'let ' "$work/crash.ir")" ]] &&
  ok "--reduce-steps=functions: the pipeline as it was, $functions_left lets left" ||
  fail "--reduce-steps=functions: $(head -1 "$work/functions.ir"), $functions_left lets"

# A pass that fails, with its message matched.
reduce error PlantedFail "$work/big.ir" --reduce-match='mod by 7919'
check_reduced error PlantedFail
replay error
[[ "$(cat "$work/error.replay.code")" == 1 ]] && grep -q "error: pass 'PlantedFail' failed: found mod by 7919" "$work/error.replay.err" &&
  ok "error: the reproducer fails the same way" || fail "error: replay: $(cat "$work/error.replay.err")"

# The IR broken after a pass, under --verify-each.
reduce verifier PlantedBreak "$work/big.ir" --reduce=verifier
check_reduced verifier PlantedBreak
replay verifier --verify-each
grep -q "the IR is broken after pass 'PlantedBreak'" "$work/verifier.replay.err" &&
  ok "verifier: the reproducer breaks the IR under --verify-each" || fail "verifier: replay: $(cat "$work/verifier.replay.err")"

# A miscompile: the output differs from that of the pipeline without the suspect.
reduce miscompile PlantedMiscompile "$work/big.ir" --reduce=miscompile --reduce-reference=O3,O2
check_reduced miscompile PlantedMiscompile
replay miscompile
grep -q 'mod(.*, 7920)' "$work/miscompile.replay.out" && ok "miscompile: the reproducer's output has the wrong constant" ||
  fail "miscompile: replay: $(cat "$work/miscompile.replay.out")"

# A command says what still fails, as mlir-reduce's test scripts do (a
# nonzero exit: still failing): here, that the replay aborts.
cat >"$work/aborts.sh" <<SCRIPT
#!/bin/sh
"$opt" --run-reproducer "\$1" >"\$1.out" 2>"\$1.err"
test \$? -ne 134
SCRIPT
chmod +x "$work/aborts.sh"
reduce command PlantedCrash "$work/big.ir" --reduce=command --reduce-command="$work/aborts.sh"
check_reduced command PlantedCrash

# The shipped failing example: InferType fails under -O2; of the passes that
# require it, none is needed, and InferType alone is what is left.
examples="$(dirname "$generate")/../../examples/ir/failing"
"$opt" "$examples/mixed_types.ir" -O2 --reduce -o "$work/mixed.ir" >"$work/mixed.out" 2>"$work/mixed.err"
code=$?
[[ "$code" == 0 ]] && [[ "$(head -1 "$work/mixed.ir")" == "// passline-opt reproducer: --passes=InferType --opt-level=2" ]] &&
  grep -q "what still fails: pass 'InferType' fails" "$work/mixed.err" &&
  ok "the shipped failing example: InferType alone" ||
  { fail "the shipped failing example: exit code $code, $(head -1 "$work/mixed.ir")"; cat "$work/mixed.err"; }

# A run that does not fail is one error, exit code 1, nothing written.
"$opt" "$work/medium.ir" --passes=O2 --reduce -o "$work/nothing.ir" >"$work/nothing.out" 2>"$work/nothing.err"
code=$?
[[ "$code" == 1 && ! -e "$work/nothing.ir" ]] && grep -q "^passline-opt: error: the run does not fail" "$work/nothing.err" &&
  ok "a run that does not fail: one error" || { fail "a run that does not fail: exit code $code"; cat "$work/nothing.err"; }
"$opt" "$work/medium.ir" --passes=O2 --reduce --reduce-reference=O2 >"$work/usage.out" 2>"$work/usage.err"
code=$?
[[ "$code" == 1 && "$(cat "$work/usage.err")" == "passline-opt: error: --reduce-reference is for --reduce=miscompile" ]] &&
  ok "--reduce-reference without miscompile: one error" || fail "--reduce-reference alone: $code $(cat "$work/usage.err")"
for seconds in 0 -1 nan 1e9; do
  "$opt" "$work/medium.ir" --passes=O2 --reduce --reduce-timeout="$seconds" -o "$work/usage.ir" >"$work/usage.out" 2>"$work/usage.err"
  code=$?
  [[ "$code" == 1 && ! -e "$work/usage.ir" && "$(head -1 "$work/usage.err")" == \
    "passline-opt: error: --reduce-timeout: a number of seconds above 0 and at most 86400 (a day), not '$seconds'" ]] &&
    ok "--reduce-timeout=$seconds: one error" || fail "--reduce-timeout=$seconds: $code $(cat "$work/usage.err")"
done

joined
finish

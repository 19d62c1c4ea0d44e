#!/usr/bin/env bash
# Pipelines --reduce prints, pasted into C++. A run of the planted
# PlantedFail inside a fixed point, with options, between O3 and O2, is
# reduced twice: whole (`reduced`: the pipeline comes down to the fixed
# point) and with its pipeline kept (`kept`, --reduce-steps=functions,inside:
# the fourteen passes of its plan). The `--passes=` text of each reproducer is
# written, as it is, into C++ (reduced_text.h, in PASTED_DIR) and made a
# static pipeline at compile time by reduced_pipeline.cpp, which is built
# then. The type is the text as one pipeline, `seq(TEXT)`: its plan must be
# the bytes `--print-pipeline=expanded` prints for that, and, one level down,
# the reproducer's own plan; and it must fail on the reproducer's module with
# the error that pipeline gives.
#   paste.sh PASSLINE_OPT PLANTED_BUGS_PLUGIN GENERATE_PY BUILD_DIR PASTED_DIR PROBE
set -uo pipefail
opt="$1" plugin="$2" generate="$3" build="$4" pasted="$5" probe="$6"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

python3 "$generate" 30 50 11 >"$work/medium.ir"
pipeline="O3,fixed_point<4>(seq(InferType,SimplifyExpr,Inline{max-size=40},PlantedFail)),O2"
fixed_point="fixed_point<4>(seq(InferType,SimplifyExpr,Inline{max-size=40 max-growth=2},PlantedFail))"

# reduce NAME FLAGS...: the reproducer $work/NAME.ir; its --passes= text in $work/NAME.text.
reduce() {
  local name="$1"
  shift
  "$opt" "$work/medium.ir" --load-pass-plugin "$plugin" --passes="$pipeline" --reduce "$@" -o "$work/$name.ir" \
    >"$work/$name.out" 2>"$work/$name.err" || { fail "--reduce for $name: exit code $?"; cat "$work/$name.err"; finish; }
  # The reproducer's first line holds its flags, quoted for the shell.
  head -1 "$work/$name.ir" | python3 -c '
import shlex, sys
words = shlex.split(sys.stdin.read().split("reproducer: ", 1)[1])
print(next(w[len("--passes="):] for w in words if w.startswith("--passes=")))' >"$work/$name.text"
}
reduce reduced
reduce kept --reduce-steps=functions,inside
[[ "$(cat "$work/reduced.text")" == "$fixed_point" ]] && ok "reduced: the fixed point alone" ||
  fail "reduced: the pipeline is $(cat "$work/reduced.text")"
[[ "$(cat "$work/kept.text")" == InferType,Inline{max-size=32\ max-growth=2},*",$fixed_point,InferType,"*DeadCodeElimination ]] &&
  ok "kept: O3, the fixed point and O2, opened" || fail "kept: the pipeline is $(cat "$work/kept.text")"

mkdir -p "$pasted"
python3 - "$work/reduced.text" "$work/kept.text" >"$pasted/reduced_text.h" <<'PYTHON'
import json, sys
print("// Written by tests/reduce/paste.sh: the pipelines two reductions printed.")
for name, path in zip(("reduced", "kept"), sys.argv[1:]):
    text = open(path).read().rstrip("\n")
    print(f"inline constexpr passline::fixed_string {name} = {json.dumps(text)};")
PYTHON
cmake --build "$build" --target reduced_pipeline >"$work/build.log" 2>&1 ||
  { fail "the pasted pipelines do not compile"; cat "$work/build.log"; finish; }
ok "the pasted pipelines compile"

# check NAME: the pasted pipeline NAME against the reproducer's.
check() {
  local name="$1" text
  text="$(cat "$work/$name.text")"
  "$probe" "$name" "$work/$name.ir" >"$work/$name.pasted" 2>&1 || fail "$name: reduced_pipeline: exit code $?"
  grep -v '^error: \|^the pipeline ran' "$work/$name.pasted" >"$work/$name.pasted_plan"
  # The reproducer's run, its pipeline as one: seq(TEXT).
  local as_one=("$opt" "$work/$name.ir" --load-pass-plugin "$plugin" --opt-level=3 --passes="seq($text)")
  "${as_one[@]}" --print-pipeline=expanded >"$work/$name.as_one_plan" 2>&1 ||
    fail "$name: --print-pipeline=expanded of seq(TEXT): exit code $?"
  cmp -s "$work/$name.pasted_plan" "$work/$name.as_one_plan" &&
    ok "$name: the plan of seq(TEXT), $(wc -l <"$work/$name.pasted_plan") lines" ||
    { fail "$name: the plans differ"; diff "$work/$name.pasted_plan" "$work/$name.as_one_plan"; }
  "$opt" --run-reproducer "$work/$name.ir" --print-pipeline=expanded >"$work/$name.replay_plan" 2>&1 ||
    fail "$name: --print-pipeline=expanded of the reproducer: exit code $?"
  [[ "$(head -1 "$work/$name.pasted_plan")" == Sequential ]] &&
    tail -n +2 "$work/$name.pasted_plan" | sed 's/^  //' | cmp -s - "$work/$name.replay_plan" &&
    ok "$name: one level down, the reproducer's plan" || { fail "$name: the reproducer's plan differs"; cat "$work/$name.replay_plan"; }
  "${as_one[@]}" -o "$work/$name.as_one.ir" >"$work/$name.as_one.out" 2>"$work/$name.as_one.err" &&
    fail "$name: seq(TEXT) does not fail"
  local expected actual
  expected="error: $(sed 's/^passline-opt: error: //' "$work/$name.as_one.err")"
  actual="$(grep '^error: \|^the pipeline ran' "$work/$name.pasted")"
  [[ "$actual" == "$expected" ]] && ok "$name: the same failure: $actual" ||
    fail "$name: the pasted pipeline gives '$actual', seq(TEXT) '$expected'"
}
check reduced
check kept
finish

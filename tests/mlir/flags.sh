#!/usr/bin/env bash
# mlir-opt's flags in passline-mlir-opt as mlir-opt-19 has them: the same
# bytes on stdout and the same exit code (and, where it says so, stderr).
#   flags.sh PASSLINE_MLIR_OPT MLIR_OPT_19 IRDL_DIR
set -uo pipefail
tool="$1" reference="$2" irdl="$3"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# same FLAG...: both print the same bytes and exit alike.
same() {
  "$reference" "$@" >"$work/want" 2>/dev/null
  local want_code=$?
  "$tool" "$@" >"$work/got" 2>/dev/null
  local code=$?
  [[ "$code" == "$want_code" ]] && cmp -s "$work/got" "$work/want" && ok "$*: as mlir-opt-19" ||
    { fail "$*: exit code $code (mlir-opt-19: $want_code)"; diff "$work/got" "$work/want" | head -5; }
}

same --show-dialects

# -irdl-file: the dialects an IRDL module defines, loaded before the input is
# read; an input that breaks their constraints gets MLIR's error.
same "$irdl/uses_shapes.mlir" --irdl-file="$irdl/shapes.irdl.mlir"
"$reference" "$irdl/misuses_shapes.mlir" --irdl-file="$irdl/shapes.irdl.mlir" >/dev/null 2>"$work/want.err"
"$tool" "$irdl/misuses_shapes.mlir" --irdl-file="$irdl/shapes.irdl.mlir" >"$work/got" 2>"$work/got.err"
code=$?
[[ "$code" == 1 && ! -s "$work/got" ]] && cmp -s "$work/got.err" "$work/want.err" &&
  ok "-irdl-file: a constraint broken, MLIR's error" || { fail "-irdl-file, constraint: exit $code"; cat "$work/got.err"; }
"$tool" "$irdl/uses_shapes.mlir" --irdl-file="$work/no-such.irdl.mlir" >"$work/got" 2>"$work/got.err"
code=$?
[[ "$code" == 1 && ! -s "$work/got" && "$(wc -l <"$work/got.err")" == 1 ]] &&
  grep -q "cannot open input file '$work/no-such.irdl.mlir': No such file or directory" "$work/got.err" &&
  ok "-irdl-file: a file that is not there, one error" || { fail "-irdl-file, no file: exit $code"; cat "$work/got.err"; }

# -mlir-debug-counter: MLIR's pass-execution actions counted, and skipped
# where it says; -mlir-print-debug-counter prints the counts as mlir-opt-19
# does (the counter the context holds prints when the context dies).
input="$(dirname "${BASH_SOURCE[0]}")/corpus/func_arith.mlir"
counting=(-cse -canonicalize -mlir-debug-counter=pass-execution-skip=1 -mlir-print-debug-counter)
"$reference" "$input" "${counting[@]}" >"$work/want" 2>"$work/want.err"
"$tool" "$input" "${counting[@]}" >"$work/got" 2>"$work/got.err"
code=$?
[[ "$code" == 0 ]] && cmp -s "$work/got" "$work/want" && cmp -s "$work/got.err" "$work/want.err" &&
  grep -q "pass-execution *: {2,1,-1}" "$work/got.err" && ok "-mlir-debug-counter: counted, skipped and printed as mlir-opt-19" ||
  { fail "-mlir-debug-counter: exit $code"; diff "$work/got.err" "$work/want.err" | head -5; }

# -mlir-pass-statistics and -mlir-timing: one report per chunk, printed when
# the chunk is done, before the output leaves (one stream: stderr and stdout
# together), as mlir-opt-19 prints them; the times masked.
masked() { "$@" 2>&1 | sed -E 's/[0-9]+\.[0-9]+/T/g; s/\( *T%\)/(T%)/g; s/-nan%/T%/g'; }
split_input="$work/split.mlir"
cat >"$split_input" <<'MLIR'
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
// -----
func.func @g(%b: i64) -> i64 {
  return %b : i64
}
MLIR
for flags in "-mlir-pass-statistics" "-mlir-timing" "-mlir-pass-statistics -mlir-timing -split-input-file" \
  "-mlir-timing -mlir-timing-display=tree -split-input-file"; do
  read -ra given <<<"$flags"
  masked "$reference" "$split_input" -cse "${given[@]}" >"$work/want"
  masked "$tool" "$split_input" -cse "${given[@]}" >"$work/got"
  cmp -s "$work/got" "$work/want" && grep -q "report \.\.\." "$work/got" &&
    ok "$flags: the reports and the output in mlir-opt-19's order" || { fail "$flags: the order"; diff "$work/got" "$work/want" | head -5; }
done

finish

#!/usr/bin/env bash
# passline-mlir-opt on several threads, many times over: no signal, no
# hang, and the output of every run the same as the first's.
#   1. the two-function module with func.func(convert-arith-to-llvm) on 2
#      threads, RUNS times, 50 to a process (two functions' runs once loaded
#      the LLVM dialect into the shared context at the same moment);
#   2. passes of MLIR's that load a dialect, run as passline function passes
#      (pass flags anchored on func.func) and through MLIR's nesting, on 2,
#      4 and 8 threads, 20 times each.
#   tests/mlir/stress.sh PASSLINE_MLIR_OPT RUNS
set -uo pipefail
tool=$1 runs=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 total=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cat >"$work/two.mlir" <<'MLIR'
func.func @f0(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
func.func @f1(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
MLIR
{
  for i in $(seq 0 15); do
    printf 'func.func @g%d(%%a: index, %%m: memref<64xf32>) {\n' "$i"
    printf '  affine.for %%i = 0 to 64 {\n    %%v = affine.load %%m[%%i] : memref<64xf32>\n'
    printf '    %%w = arith.addf %%v, %%v : f32\n    affine.store %%w, %%m[%%i] : memref<64xf32>\n  }\n  return\n}\n'
  done
} >"$work/loops.mlir"

# run NAME COPIES INPUT ARGS...: COPIES runs of INPUT in one process, as the
# chunks of -split-input-file, each of which passline-mlir-opt runs in an
# MLIR context of its own, as mlir-opt does (a fresh context, as a process of
# its own has, without the process's start-up): exit code 0 within 60 s, and
# every run's output the first's.
run() {
  local name=$1 copies=$2 input=$3
  shift 3
  local chunks="$work/$name.$copies.mlir" c
  [[ -e "$chunks" ]] || for ((c = 0; c < copies; c++)); do ((c)) && echo '// -----'; cat "$input"; done >"$chunks"
  timeout 60 "$tool" "$chunks" -split-input-file "$@" >"$work/out" 2>"$work/err"
  local code=$?
  total=$((total + copies))
  if [[ $code != 0 ]]; then
    fail "$name: exit code $code ($( ((code > 128 && code != 124)) && echo "signal $((code - 128))" || echo "$(head -c 200 "$work/err")"))"
    return
  fi
  rm -f "$work"/chunk.*
  awk -v out="$work/chunk." 'BEGIN { n = 0 } /^\/\/ -----$/ { close(out n); n++; next } { print > (out n) }' "$work/out"
  local outputs; outputs=$(find "$work" -name 'chunk.*' | wc -l)
  [[ "$outputs" == "$copies" ]] || { fail "$name: $outputs outputs for $copies runs"; return; }
  [[ -e "$work/$name.expected" ]] || cp "$work/chunk.0" "$work/$name.expected"
  for ((c = 0; c < copies; c++)); do
    cmp -s "$work/chunk.$c" "$work/$name.expected" || { fail "$name: the output of a run differs from the first run's"; return; }
  done
}

for i in $(seq 1 $((runs / 50))); do
  run two 50 "$work/two.mlir" --threads=2 --pass-pipeline='builtin.module(func.func(convert-arith-to-llvm))'
done
grep -q 'llvm.add' "$work/two.expected" || fail "convert-arith-to-llvm did not convert"

for threads in 2 4 8; do
  run "vectorize$threads" 20 "$work/loops.mlir" --threads="$threads" -affine-super-vectorize=virtual-vector-size=8
  run "nested$threads" 20 "$work/loops.mlir" --threads="$threads" \
    --pass-pipeline='builtin.module(func.func(lower-affine,convert-arith-to-llvm),convert-scf-to-cf,convert-to-llvm)'
done
grep -q 'vector' "$work/vectorize2.expected" || fail "affine-super-vectorize did not vectorize"
cmp -s "$work/vectorize2.expected" "$work/vectorize8.expected" || fail "the vectorized output differs between 2 and 8 threads"
cmp -s "$work/nested2.expected" "$work/nested8.expected" || fail "the converted output differs between 2 and 8 threads"

echo "$total runs, $failures failures"
[[ $failures == 0 ]]

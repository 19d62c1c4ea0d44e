#!/usr/bin/env bash
# passline-mlir-opt on several threads, many times over: no signal, no
# hang, and the output of every run the same as the first's.
#   1. the two-function module with func.func(convert-arith-to-llvm) on 2
#      threads, RUNS times (two functions' runs once loaded the LLVM dialect
#      into the shared context at the same moment);
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

# run NAME INPUT ARGS...: each run as the first, exit code 0, within 60 s.
run() {
  local name=$1 input=$2
  shift 2
  timeout 60 "$tool" "$input" "$@" >"$work/out" 2>"$work/err"
  local code=$?
  total=$((total + 1))
  if [[ $code != 0 ]]; then
    fail "$name: exit code $code ($( ((code > 128 && code != 124)) && echo "signal $((code - 128))" || echo "$(head -c 200 "$work/err")"))"
  elif [[ ! -e "$work/$name.expected" ]]; then
    cp "$work/out" "$work/$name.expected"
  elif ! cmp -s "$work/out" "$work/$name.expected"; then
    fail "$name: the output differs from the first run's"
  fi
}

for i in $(seq 1 "$runs"); do
  run two "$work/two.mlir" --threads=2 --pass-pipeline='builtin.module(func.func(convert-arith-to-llvm))'
done
grep -q 'llvm.add' "$work/two.expected" || fail "convert-arith-to-llvm did not convert"

for threads in 2 4 8; do
  for i in $(seq 1 20); do
    run "vectorize$threads" "$work/loops.mlir" --threads="$threads" -affine-super-vectorize=virtual-vector-size=8
    run "nested$threads" "$work/loops.mlir" --threads="$threads" \
      --pass-pipeline='builtin.module(func.func(lower-affine,convert-arith-to-llvm),convert-scf-to-cf,convert-to-llvm)'
  done
done
grep -q 'vector' "$work/vectorize2.expected" || fail "affine-super-vectorize did not vectorize"
cmp -s "$work/vectorize2.expected" "$work/vectorize8.expected" || fail "the vectorized output differs between 2 and 8 threads"
cmp -s "$work/nested2.expected" "$work/nested8.expected" || fail "the converted output differs between 2 and 8 threads"

echo "$total runs, $failures failures"
[[ $failures == 0 ]]

#!/usr/bin/env bash
# The whole run on one and on two threads, side by side with mlir-opt:
#   1. passline-opt -O2 on 10^6 operations in 1000 functions with --threads=1
#      and --threads=2 (best of 3 each, the two alternating), wall time and
#      peak memory, and the phases as --time-passes reports them; then
#      mlir-opt-19 --canonicalize --cse on the same program, its own default
#      threading.
#   2. One function of 10^5, 3x10^5 and 10^6 operations: the whole run, and
#      each pass alone, in ns per operation.
# Results go in docs/benchmarks.md.
#   benchmarks/parallel/run.sh BUILD_DIR [OPS] [FUNCTIONS]
set -euo pipefail
build="${1:?usage: benchmarks/parallel/run.sh BUILD_DIR [OPS] [FUNCTIONS]}"
ops="${2:-1000000}"
functions="${3:-1000}"
source "$(dirname "${BASH_SOURCE[0]}")/../measure.sh"  # generate, opt, pass_scaling, mlir_opt, work; measure, faster, best_of
# A phase's wall seconds in a --time-passes report.
# (top level: the name right after the count, not indented under a pipeline).
phase() { awk -v name="$2" '$0 ~ ("[0-9]  " name "$") { print $1; exit }' "$1"; }

"$generate" "$ops" 1 "$work/in.ir" "$work/in.mlir" "$functions"
echo "== passline-opt -O2 on $ops operations in $functions functions: 1 thread against 2 (best of 3)"
best1="" best2=""
for _ in 1 2 3; do
  r=$(measure "$work/out1.ir" "$opt" "$work/in.ir" -O2 --threads=1 --time-passes)
  if [[ -z "$best1" ]] || faster "$r" "$best1"; then best1="$r"; cp "$work/out1.ir.err" "$work/report1"; fi
  r=$(measure "$work/out2.ir" "$opt" "$work/in.ir" -O2 --threads=2 --time-passes)
  if [[ -z "$best2" ]] || faster "$r" "$best2"; then best2="$r"; cp "$work/out2.ir.err" "$work/report2"; fi
done
cmp -s "$work/out1.ir" "$work/out2.ir" && same="yes" || same="NO"
read -r t1 m1 <<<"$best1"
read -r t2 m2 <<<"$best2"
printf '%-22s | %10s | %10s\n' "" "1 thread" "2 threads"
printf '%-22s | %10s | %10s\n' "wall s (time(1))" "$t1" "$t2"
printf '%-22s | %10s | %10s\n' "peak MB" "$m1" "$m2"
for p in "Parse input" "Verify input" "O2" "Verify output" "Print output"; do
  printf '%-22s | %10s | %10s\n' "$p s" "$(phase "$work/report1" "$p")" "$(phase "$work/report2" "$p")"
done
printf '%-22s | %10s\n' "1 thread / 2 threads" "$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a / b }')"
echo "same output on 1 and 2 threads: $same"
if [[ -n "$mlir_opt" ]]; then
  read -r tm mm < <(best_of 3 "$work/out.mlir" "$mlir_opt" --canonicalize --cse "$work/in.mlir")
  echo "mlir-opt-19 --canonicalize --cse (its default threading): $tm s, $mm MB;" \
    "passline on 2 threads is $(awk -v a="$tm" -v b="$t2" 'BEGIN { printf "%.1f", a / b }')x faster," \
    "at $(awk -v a="$m2" -v b="$mm" 'BEGIN { printf "%.2f", a / b }') of its peak memory"
else
  echo "mlir-opt-19 missing: ./dev setup --peers"
fi

echo; echo "== one function: ns per operation, the whole run (1 thread) and each pass alone"
passes=(InferType FoldConstant SimplifyExpr EliminateCommonSubexpr DeadCodeElimination)
printf '%-8s %10s' ops "whole run"; printf ' %12s' "${passes[@]}"; echo
for n in 100000 300000 1000000; do
  "$generate" "$n" 2 "$work/one.ir" "$work/one.mlir"
  best=$(best_of 5 "$work/one.out" "$opt" "$work/one.ir" -O2 --threads=1)
  printf '%-8s %10.1f' "$n" "$(awk -v t="${best%% *}" -v n="$n" 'BEGIN { print t * 1e9 / n }')"
  "$opt" "$work/one.ir" --passes=InferType -o "$work/typed.ir"
  for p in "${passes[@]}"; do
    printf ' %12s' "$("$pass_scaling" "$work/typed.ir" "$p" 5)"
  done
  echo
done
echo "(each pass alone: ns per node of its input; a node is about one operation's worth)"

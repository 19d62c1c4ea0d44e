#!/usr/bin/env bash
# passline-opt -O2 against mlir-opt-19 --canonicalize --cse on the same programs,
# side by side: wall time, peak memory (max RSS) and operations left, at 10^4,
# 10^5 and 10^6 operations; then each pass alone, time per node from 10^3 to
# 10^6. Results and the plot go in docs/benchmarks.md.
#   benchmarks/vs_mlir/run.sh BUILD_DIR [PLOT.png]
set -euo pipefail
build="${1:?usage: benchmarks/vs_mlir/run.sh BUILD_DIR [PLOT.png]}"
plot="${2:-}"
source "$(dirname "${BASH_SOURCE[0]}")/../measure.sh"  # generate, opt, pass_scaling, mlir_opt, work; best_of
ops_passline() { grep -cE '(add|sub|mul)\(' "$1" || true; }
ops_mlir() { grep -cE 'arith\.(addi|subi|muli)' "$1" || true; }

echo "== end to end: passline-opt -O2 vs mlir-opt-19 --canonicalize --cse (best of 3)"
printf '%-8s | %9s %9s | %9s %9s | %10s %10s | %9s %9s\n' ops "passline s" "mlir s" "pl MB" "mlir MB" "pl ops" "mlir ops" "time x" "memory x"
for n in 10000 100000 1000000; do
  "$generate" "$n" 1 "$work/in.ir" "$work/in.mlir"
  read -r pt pm < <(best_of 3 "$work/out.ir" "$opt" "$work/in.ir" -O2)
  po=$(ops_passline "$work/out.ir")
  if [[ -n "$mlir_opt" ]]; then
    read -r mt mm < <(best_of 3 "$work/out.mlir" "$mlir_opt" --canonicalize --cse "$work/in.mlir")
    mo=$(ops_mlir "$work/out.mlir")
    printf '%-8s | %9s %9s | %9s %9s | %10s %10s | %9.2f %9.2f\n' "$n" "$pt" "$mt" "$pm" "$mm" "$po" "$mo" \
      "$(awk -v a="$mt" -v b="$pt" 'BEGIN { print a / b }')" "$(awk -v a="$pm" -v b="$mm" 'BEGIN { print a / b }')"
  else
    printf '%-8s | %9s %9s | %9s %9s | %10s %10s |  (mlir-opt-19 missing: ./dev setup --peers)\n' "$n" "$pt" - "$pm" - "$po" -
  fi
done
echo "(time x: how many times faster passline is; memory x: passline's peak over MLIR's)"

echo; echo "== each pass alone: ns per node of its input (best of several runs; parsing and printing not timed)"
passes=(InferType FoldConstant SimplifyExpr EliminateCommonSubexpr DeadCodeElimination ToANormalForm)
printf '%-8s' ops; printf ' %12s' "${passes[@]}"; echo
: >"$work/scaling.dat"
for n in 1000 10000 100000 1000000; do
  "$generate" "$n" 2 "$work/in.ir" "$work/in.mlir"
  "$opt" "$work/in.ir" --passes=InferType -o "$work/typed.ir"
  printf '%-8s' "$n"; printf '%s' "$n" >>"$work/scaling.dat"
  for p in "${passes[@]}"; do
    ns=$("$pass_scaling" "$work/typed.ir" "$p")
    printf ' %12s' "$ns"; printf ' %s' "$ns" >>"$work/scaling.dat"
  done
  echo; echo >>"$work/scaling.dat"
done

if [[ -n "$plot" ]] && command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 800,480 font ",10"
set output "$plot"
set title "Each pass alone: time per node as the program grows"
set logscale x 10
set xlabel "operations in the program"
set ylabel "ns per node of the input"
set key outside right
set grid
plot for [i=2:$((${#passes[@]} + 1))] "$work/scaling.dat" using 1:i with linespoints title word("${passes[*]}", i - 1)
GP
  echo "plot: $plot"
fi

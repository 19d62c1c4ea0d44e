#!/usr/bin/env bash
# The whole run on one and on two threads, side by side with mlir-opt:
#   1. passline-opt -O2 on 10^6 operations in 1000 functions with --threads=1
#      and --threads=2 (best of 5 each, the two alternating), wall time and
#      peak memory, and the phases as --time-passes reports them; then
#      mlir-opt-19 --canonicalize --cse on the same program, its own default
#      threading.
#   2. One function of 10^5, 3x10^5 and 10^6 operations: the whole run, and
#      each phase and pass of it, in ns per operation, and how far apart the
#      three sizes are (the largest over the smallest).
# Results go in docs/benchmarks.md.
#   benchmarks/parallel/run.sh BUILD_DIR [OPS] [FUNCTIONS]
# RUNS=N sets the runs of each size in part 2 (12).
set -euo pipefail
build="${1:?usage: benchmarks/parallel/run.sh BUILD_DIR [OPS] [FUNCTIONS]}"
ops="${2:-1000000}"
functions="${3:-1000}"
source "$(dirname "${BASH_SOURCE[0]}")/../measure.sh"  # generate, opt, pass_scaling, mlir_opt, work; measure, faster, best_of
# A phase's wall seconds in a --time-passes report.
# (top level: the name right after the count, not indented under a pipeline).
phase() { awk -v name="$2" '$0 ~ ("[0-9]  " name "$") { print $1; exit }' "$1"; }

"$generate" "$ops" 1 "$work/in.ir" "$work/in.mlir" "$functions"
echo "== passline-opt -O2 on $ops operations in $functions functions: 1 thread against 2 (best of 5)"
best1="" best2=""
for _ in 1 2 3 4 5; do
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

echo; echo "== one function: ns per operation, the whole run and each phase and pass of it (1 thread)"
# Each size runs RUNS times, the sizes taking turns, so that a busy spell of
# the host falls on all of them. Every size gets the same number of runs:
# the best of more runs is lower by chance alone. Each figure is the best of
# a size's runs, then their median. Rows are --time-passes' (a pass run twice
# in -O2, SimplifyExpr, counts both runs). Each size writes its own output
# file, replaced run after run: replacing a file frees the old one, and a
# size writing over another's output would pay for freeing that.
sizes=(100000 300000 1000000)
rows=("Parse input" "Verify input" InferType FoldConstant SimplifyExpr EliminateCommonSubexpr DeadCodeElimination
      "Verify output" "Print output")
runs="${RUNS:-12}"
for n in "${sizes[@]}"; do "$generate" "$n" 2 "$work/$n.ir" "$work/$n.mlir"; done
for ((run = 0; run < runs; ++run)); do
  for n in "${sizes[@]}"; do
    start=$EPOCHREALTIME
    "$opt" "$work/$n.ir" -O2 --threads=1 --time-passes -o "$work/one.$n.out" 2>"$work/report"
    end=$EPOCHREALTIME
    { echo "whole run $start $end"; cat "$work/report"; } >>"$work/reports.$n"
  done
done
# A row's best (or median) over a size's reports, in ns per operation:
#   figure REPORTS ROW OPS best|median
figure() {
  awk -v row="$2" -v n="$3" '
    row == "whole run" && /^whole run / { printf "%.0f\n", ($4 - $3) * 1e9 / n }
    row != "whole run" && $0 ~ ("[0-9]  +" row "$") { printf "%.0f\n", $1 * 1e9 / n }' "$1" |
    sort -n | awk -v which="$4" '{ v[NR] = $1 } END { print which == "best" ? v[1] : v[int((NR + 1) / 2)] }'
}
for which in best median; do
  echo "-- the $which of $runs runs"
  printf '%-8s %9s' ops "whole run"; printf ' %13s' "${rows[@]}"; echo
  unset low high; declare -A low high
  for n in "${sizes[@]}"; do
    printf '%-8s' "$n"
    for row in "whole run" "${rows[@]}"; do
      ns=$(figure "$work/reports.$n" "$row" "$n" "$which")
      [[ "$row" == "whole run" ]] && printf ' %9s' "$ns" || printf ' %13s' "$ns"
      if [[ -z "${low[$row]:-}" ]] || ((ns < low[$row])); then low[$row]=$ns; fi
      if [[ -z "${high[$row]:-}" ]] || ((ns > high[$row])); then high[$row]=$ns; fi
    done
    echo
  done
  printf '%-8s' "max/min"
  for row in "whole run" "${rows[@]}"; do
    r=$(awk -v a="${high[$row]}" -v b="${low[$row]}" 'BEGIN { printf "%.2f", b ? a / b : 0 }')
    [[ "$row" == "whole run" ]] && printf ' %9s' "$r" || printf ' %13s' "$r"
  done
  echo
done
echo "(ns per operation of the input program; $runs runs of each size)"

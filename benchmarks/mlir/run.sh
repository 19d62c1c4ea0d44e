#!/usr/bin/env bash
# passline-mlir-opt against mlir-opt-19 on the same MLIR and the same passes,
# side by side in one run: the two pass managers, where the passes are
# MLIR's in both.
#   1. canonicalize,cse on 1,000 functions of 1,000 operations, on each
#      number of THREADS (1 and 2 by default; "1 2 16" on a machine of 16
#      cores): wall time end to end, best of RUNS, the median of the rounds'
#      ratios (a round runs the two back to back), and whether the outputs
#      are byte-identical, also with -mlir-print-debuginfo (whose locations
#      print as aliases); then where the time goes, reading, passes and
#      writing apart (each tool's own timing: --time-passes, -mlir-timing);
#   2. the instructions each executes for the same run on one thread, on
#      100 of those functions, under callgrind: a count this machine's
#      noise does not move (wall times here vary by up to 10% run to run);
#   3. what watching costs: --time-passes against -mlir-timing, and
#      --print-changed against --mlir-print-ir-after-change, both printing
#      to a file; overhead over each tool's own uninstrumented run.
# The cost per pass of the managers themselves is benchmarks/mlir_noop.
#   benchmarks/mlir/run.sh BUILD_DIR [OPS] [RUNS] [THREADS]
set -euo pipefail
build="${1:?usage: benchmarks/mlir/run.sh BUILD_DIR [OPS] [RUNS] [THREADS]}"
ops="${2:-1000000}"
runs="${3:-7}"
thread_counts="${4:-1 2}"
source "$(dirname "${BASH_SOURCE[0]}")/../measure.sh"  # generate, mlir_opt, work; measure
passline_mlir_opt="$build/tools/passline-mlir-opt/passline-mlir-opt"
if [[ -z "$mlir_opt" || ! -x "$passline_mlir_opt" ]]; then
  echo "(mlir-opt-19 or passline-mlir-opt missing: ./dev setup --peers, then build)"
  exit 0
fi
functions=1000
"$generate" "$ops" 11 "$work/in.ir" "$work/in.mlir" "$functions"
nested='builtin.module(func.func(canonicalize,cse))'

# Each tool's fastest of $runs runs (noise only ever adds), and the median of
# the rounds' ratios: a round runs the two tools back to back, in turns
# first, so that a slow spell of the machine (this VM's second core is at
# times much slower than its first) hits both runs of a round.
declare -A best ratios
run_both() {  # run_both KEY_PASSLINE KEY_MLIR THREADS PASSLINE_ARGS... -- MLIR_ARGS...
  local kp="$1" km="$2" threads="$3"; shift 3
  local pargs=() margs=() side=p
  for a in "$@"; do
    if [[ "$a" == "--" ]]; then side=m; continue; fi
    if [[ $side == p ]]; then pargs+=("$a"); else margs+=("$a"); fi
  done
  local mthreads=()
  [[ "$threads" == 1 ]] && mthreads=(--mlir-disable-threading)
  local tp tm
  run_passline() { tp=$(measure "$work/$kp.out" "$passline_mlir_opt" "$work/in.mlir" --threads="$threads" "${pargs[@]}" | cut -d' ' -f1); }
  run_mlir() { tm=$(measure "$work/$km.out" "$mlir_opt" "$work/in.mlir" "${mthreads[@]}" "${margs[@]}" | cut -d' ' -f1); }
  for ((r = 0; r < runs; ++r)); do
    if ((r % 2 == 0)); then run_passline; run_mlir; else run_mlir; run_passline; fi
    keep_best "$kp" "$tp"
    keep_best "$km" "$tm"
    ratios[$kp]+="$(ratio "$tp" "$tm") "
  done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : sprintf("%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
same() { if cmp -s "$1" "$2"; then echo yes; else echo NO; fi; }

echo "== canonicalize,cse on $functions functions of $((ops / functions)) operations (best of $runs)"
row() { printf '%-65s %-7s | %10s %10s | %8s %8s | %s\n' "$@"; }
row pipeline threads "passline s" "mlir s" "ratio" "rounds" "same output"
for threads in $thread_counts; do
  run_both "p$threads" "m$threads" "$threads" --passes="$nested" -o "$work/p$threads.mlir" -- \
    --pass-pipeline="$nested" -o "$work/m$threads.mlir"
  row "$nested" "$threads" "${best[p$threads]}" "${best[m$threads]}" "$(ratio "${best[p$threads]}" "${best[m$threads]}")" \
    "$(median <<<"${ratios[p$threads]}")" "$(same "$work/p$threads.mlir" "$work/m$threads.mlir")"
done
for threads in $thread_counts; do  # the output with its locations: an alias for each
  run_both "pd$threads" "md$threads" "$threads" --passes="$nested" -mlir-print-debuginfo -o "$work/pd$threads.mlir" -- \
    --pass-pipeline="$nested" -mlir-print-debuginfo -o "$work/md$threads.mlir"
  row "$nested -mlir-print-debuginfo" "$threads" "${best[pd$threads]}" "${best[md$threads]}" \
    "$(ratio "${best[pd$threads]}" "${best[md$threads]}")" "$(median <<<"${ratios[pd$threads]}")" \
    "$(same "$work/pd$threads.mlir" "$work/md$threads.mlir")"
done
run_both pl ml 1 --passes=canonicalize,cse -o "$work/pl.mlir" -- --canonicalize --cse -o "$work/ml.mlir"
row "canonicalize,cse (on the module)" 1 "${best[pl]}" "${best[ml]}" "$(ratio "${best[pl]}" "${best[ml]}")" \
  "$(median <<<"${ratios[pl]}")" "$(same "$work/pl.mlir" "$work/ml.mlir")"
echo "(ratio: passline's best time over mlir-opt's; rounds: the median of the $runs rounds' ratios, each of two runs back"
echo " to back; N threads: passline's --threads=N, and mlir-opt's own pool on this machine's $(nproc) cores)"

# Where the time goes: each tool's own report of a run, reading the input,
# the passes, writing the output (wall seconds; the best of 3 for each).
timed=3
phase() {  # phase REPORT NAME first|last: the report's row NAME, its first or last time (the wall time in
           # passline's report; in mlir-opt's, after the user time when it has threads)
  awk -v name="$2" -v which="$3" '$0 ~ "  " name "$" {
      n = 0; for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+\.[0-9]+$/) t[++n] = $i
      print (which == "first" ? t[1] : t[n]); exit }' "$1"
}
echo
echo "== where the time goes: $nested, reading, passes and writing (best of $timed timed runs)"
printf '%-7s | %7s %7s %7s %7s | %7s %7s %7s %7s | %s\n' threads "read" passes write total "read" passes write total \
  "(passline | mlir-opt-19, seconds)"
for threads in $thread_counts; do
  mthreads=()
  [[ "$threads" == 1 ]] && mthreads=(--mlir-disable-threading)
  declare -A low=()
  for ((r = 0; r < timed; ++r)); do
    "$passline_mlir_opt" "$work/in.mlir" --threads="$threads" --passes="$nested" -o "$work/tp.mlir" --time-passes \
      2>"$work/tp.txt"
    "$mlir_opt" "$work/in.mlir" "${mthreads[@]}" --pass-pipeline="$nested" -o "$work/tm.mlir" -mlir-timing 2>"$work/tm.txt"
    for key in "pr:tp:Parse input:first" "pw:tp:Print output:first" "pt:tp:Total:first" \
               "mr:tm:Parser:last" "mw:tm:Output:last" "mt:tm:Total:last"; do
      IFS=: read -r k file name which <<<"$key"
      v=$(phase "$work/$file.txt" "$name" "$which")
      if [[ -z "${low[$k]:-}" ]] || awk -v a="$v" -v b="${low[$k]}" 'BEGIN { exit !(a < b) }'; then low[$k]=$v; fi
    done
  done
  minus() { awk -v t="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", t - a - b }'; }
  two() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }
  printf '%-7s | %7s %7s %7s %7s | %7s %7s %7s %7s |\n' "$threads" \
    "$(two "${low[pr]}")" "$(minus "${low[pt]}" "${low[pr]}" "${low[pw]}")" "$(two "${low[pw]}")" "$(two "${low[pt]}")" \
    "$(two "${low[mr]}")" "$(minus "${low[mt]}" "${low[mr]}" "${low[mw]}")" "$(two "${low[mw]}")" "$(two "${low[mt]}")"
done
echo "(read: passline's 'Parse input', mlir-opt's 'Parser'; write: 'Print output', 'Output'; passes: the rest of the"
echo " report's total; each column's best of its own, so a row need not add up to its total)"

echo
small=100
echo "== instructions for the same run on $small functions of $((ops / functions)) operations, one thread (callgrind)"
"$generate" "$((ops / functions * small))" 11 "$work/small.ir" "$work/small.mlir" "$small"
strip -o "$work/passline-mlir-opt" "$passline_mlir_opt"  # valgrind 3.19 cannot read clang 19's debug info
instructions() {  # instructions OUT COMMAND...: the instructions COMMAND executed
  local out="$1"; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$@" >/dev/null 2>"$out.err"
  sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$out.err"
}
ip=$(instructions "$work/ip" "$work/passline-mlir-opt" "$work/small.mlir" --threads=1 --passes="$nested" -o "$work/ip.mlir")
im=$(instructions "$work/im" "$mlir_opt" "$work/small.mlir" --mlir-disable-threading --pass-pipeline="$nested" -o "$work/im.mlir")
printf '%-48s | %14s %14s | %8s | %s\n' pipeline "passline" "mlir" "ratio" "same output"
printf '%-48s | %14s %14s | %8s | %s\n' "$nested" "$ip" "$im" "$(ratio "$ip" "$im")" "$(same "$work/ip.mlir" "$work/im.mlir")"

echo
echo "== what watching costs, one thread: each tool's instrumented run over its own plain run (best of $runs;"
echo "   the plain and the instrumented runs of both tools alternate round by round)"
every="$runs"; runs=1
for ((round = 0; round < every; ++round)); do
  run_both pp mp 1 --passes="$nested" -o "$work/pp.mlir" -- --pass-pipeline="$nested" -o "$work/mp.mlir"
  run_both pt mt 1 --passes="$nested" -o "$work/pt.mlir" --time-passes -- \
    --pass-pipeline="$nested" -o "$work/mt.mlir" --mlir-timing
  run_both pc mc 1 --passes="$nested" -o "$work/pc.mlir" --print-changed -- \
    --pass-pipeline="$nested" -o "$work/mc.mlir" --mlir-print-ir-after-all --mlir-print-ir-after-change
done
runs="$every"
printf '%-58s | %10s %10s | %9s %9s\n' instrument "passline s" "mlir s" "passline x" "mlir x"
printf '%-58s | %10s %10s | %9s %9s\n' "(none)" "${best[pp]}" "${best[mp]}" 1 1
printf '%-58s | %10s %10s | %9s %9s\n' "--time-passes / -mlir-timing" "${best[pt]}" "${best[mt]}" \
  "$(ratio "${best[pt]}" "${best[pp]}")" "$(ratio "${best[mt]}" "${best[mp]}")"
printf '%-58s | %10s %10s | %9s %9s\n' "--print-changed / --mlir-print-ir-after-change (to a file)" \
  "${best[pc]}" "${best[mc]}" "$(ratio "${best[pc]}" "${best[pp]}")" "$(ratio "${best[mc]}" "${best[mp]}")"
echo "(x: the instrumented run's time over the same tool's plain run; printed: passline $(wc -c <"$work/pc.out.err") bytes, mlir-opt $(wc -c <"$work/mc.out.err") bytes)"
it=$(instructions "$work/it" "$work/passline-mlir-opt" "$work/small.mlir" --threads=1 --passes="$nested" -o "$work/it.mlir" --time-passes)
imt=$(instructions "$work/imt" "$mlir_opt" "$work/small.mlir" --mlir-disable-threading --pass-pipeline="$nested" -o "$work/imt.mlir" --mlir-timing)
echo "(timing in instructions, callgrind, on the $small functions above: passline x $(ratio "$it" "$ip"), mlir x $(ratio "$imt" "$im"))"

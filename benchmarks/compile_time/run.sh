#!/usr/bin/env bash
# Compile-time cost of the ordering check, of resolution, and of the same
# pipeline read from text at compile time, against a baseline pipeline without
# the check, for pipelines of N = 10, 100, 300, 1000 passes. Front-end CPU
# time only (clang -fsyntax-only, which instantiates every template), best of
# REPEAT runs (default 5), and peak memory. Writes a markdown table to stdout
# and, with gnuplot, a plot to PLOT.
#   benchmarks/compile_time/run.sh BUILD_DIR [PLOT.png]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:?usage: run.sh BUILD_DIR [PLOT.png]}" && pwd)"
plot="${2:-}"
repeat="${REPEAT:-5}"
sizes=(${SIZES:-10 100 300 1000})
bmi="$build/modules/passline/CMakeFiles/passline.dir"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

compile() { clang++-19 -std=c++20 -fsyntax-only -fprebuilt-module-path="$bmi" "$1"; }

# measure FILE: "SECONDS MEGABYTES", the best CPU time (user + system) of REPEAT
# front-end runs and the peak memory of the first; "limit" when clang stops at
# its constexpr step limit. Any other error stops the run: the figures would
# time an error.
measure() {
  local err="$work/err"
  if ! /usr/bin/time -f '%M' -o "$work/rss" clang++-19 -std=c++20 -fsyntax-only -fprebuilt-module-path="$bmi" "$1" 2>"$err"; then
    if grep -q 'constexpr evaluation hit maximum step limit' "$err"; then echo limit; return; fi
    cat "$err" >&2; echo "$1 does not compile: the figures would time an error" >&2; exit 1
  fi
  local megabytes best="" t
  megabytes=$(awk 'END { printf "%d", $1 / 1024 }' "$work/rss")
  for ((r = 0; r < repeat; ++r)); do
    t=$( { TIMEFORMAT='%U %S'; time compile "$1"; } 2>&1 | awk 'END { print $1 + $2 }')
    best=$(awk -v b="$best" -v t="$t" 'BEGIN { print (b == "" || t < b) ? t : b }')
  done
  printf '%.3f %s' "$best" "$megabytes"
}

# cell SECONDS BASELINE: "time (extra)" for the table.
cell() {
  if [[ "$1" == limit ]]; then echo "over clang's constexpr step limit"; return; fi
  awk -v t="$1" -v b="$2" 'BEGIN { printf "%.3f (%+.3f)", t, t - b }'
}

echo "| N | baseline (s) | with ordering check (s, extra) | with resolution (s, extra) | from text (s, extra) | peak memory: check, text (MB) |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  for v in baseline check resolve text; do "$here/generate.sh" "$n" "$v" > "$work/$v-$n.cpp"; done
  read -r b _ <<<"$(measure "$work/baseline-$n.cpp")"
  read -r c cm <<<"$(measure "$work/check-$n.cpp")"
  read -r r _ <<<"$(measure "$work/resolve-$n.cpp")"
  read -r t tm <<<"$(measure "$work/text-$n.cpp")"
  echo "$n $b $c ${r/limit/NaN} $t" >> "$work/data"
  echo "| $n | $b | $(cell "$c" "$b") | $(cell "$r" "$b") | $(cell "$t" "$b") | $cm, $tm |"
done

if [[ -n "$plot" ]] && command -v gnuplot >/dev/null; then
  gnuplot <<GNUPLOT
set terminal pngcairo size 800,500 noenhanced
set output "$plot"
set title "passline: compile time of a static pipeline (clang 19, -fsyntax-only)"
set xlabel "passes in the pipeline (each requires 2 earlier ones)"
set ylabel "seconds of CPU time"
set key left top
set grid
plot "$work/data" using 1:2 with linespoints title "baseline (no check)", \
     "$work/data" using 1:3 with linespoints title "with ordering check", \
     "$work/data" using 1:4 with linespoints title "with resolution", \
     "$work/data" using 1:5 with linespoints title "from text"
GNUPLOT
fi

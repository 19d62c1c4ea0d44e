#!/usr/bin/env bash
# Compile-time cost of the ordering check and of resolution, against a baseline
# pipeline without the check, for pipelines of N = 10, 100, 300, 1000 passes.
# Front-end CPU time only (clang -fsyntax-only, which instantiates every
# template), best of REPEAT runs (default 5). Writes a markdown table to stdout and, with gnuplot, a
# plot to PLOT.
#   benchmarks/compile_time/run.sh BUILD_DIR [PLOT.png]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:?usage: run.sh BUILD_DIR [PLOT.png]}" && pwd)"
plot="${2:-}"
repeat="${REPEAT:-5}"
sizes=(${SIZES:-10 100 300 1000})
bmi="$build/modules/passline/CMakeFiles/passline.dir"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

seconds() {  # best CPU time (user + system) of REPEAT front-end runs; a file that does not compile stops the run
  clang++-19 -std=c++20 -fsyntax-only -fprebuilt-module-path="$bmi" "$1" >&2 ||
    { echo "$1 does not compile: the figures would time an error" >&2; exit 1; }
  local best="" t
  for ((r = 0; r < repeat; ++r)); do
    t=$( { TIMEFORMAT='%U %S'; time clang++-19 -std=c++20 -fsyntax-only -fprebuilt-module-path="$bmi" "$1"; } 2>&1 |
         awk 'END { print $1 + $2 }')
    best=$(awk -v b="$best" -v t="$t" 'BEGIN { print (b == "" || t < b) ? t : b }')
  done
  printf '%.3f' "$best"
}

echo "| N | baseline (s) | with ordering check (s) | check extra (s) | with resolution (s) | resolution extra (s) |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  for v in baseline check resolve; do "$here/generate.sh" "$n" "$v" > "$work/$v-$n.cpp"; done
  b=$(seconds "$work/baseline-$n.cpp"); c=$(seconds "$work/check-$n.cpp"); r=$(seconds "$work/resolve-$n.cpp")
  echo "$n $b $c $r" >> "$work/data"
  awk -v n="$n" -v b="$b" -v c="$c" -v r="$r" \
    'BEGIN { printf "| %d | %.3f | %.3f | %+.3f | %.3f | %+.3f |\n", n, b, c, c - b, r, r - b }'
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
     "$work/data" using 1:4 with linespoints title "with resolution"
GNUPLOT
fi

# Shared by the benchmark scripts, sourced once `build` names the build
# directory: the tools, a temporary work directory (gone on exit), and how
# a run is measured.
generate="$build/benchmarks/vs_mlir_generate"
opt="$build/tools/passline-opt/passline-opt"
pass_scaling="$build/benchmarks/pass_scaling"
mlir_opt="$(command -v mlir-opt-19 || true)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# "seconds max-rss-MB" of a command; its stdout goes to $1, its stderr to $1.err.
measure() {
  local out="$1"; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$out" 2>"$out.err"
  awk '{ printf "%s %.0f\n", $1, $2 / 1024 }' "$work/time"
}
# Whether the "seconds MB" line $1 is faster than $2.
faster() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; }
# keep_best KEY TIME: best[KEY] becomes TIME ("seconds", or "seconds MB") if
# it is faster than what best[KEY] holds (the caller's `declare -A best`).
keep_best() { if [[ -z "${best[$1]:-}" ]] || faster "$2" "${best[$1]}"; then best[$1]="$2"; fi; }
# The fastest of RUNS measured runs (noise only ever adds), with its memory:
#   best_of RUNS OUT COMMAND...
best_of() {
  local runs="$1" best="" line; shift
  for ((run = 0; run < runs; ++run)); do
    line=$(measure "$@")
    if [[ -z "$best" ]] || faster "$line" "$best"; then best="$line"; fi
  done
  echo "$best"
}

# Shared by the benchmark scripts (sourced; they set $work to a temporary directory).

# "seconds max-rss-MB" of a command; its stdout goes to $1, its stderr to $1.err.
measure() {
  local out="$1"; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$out" 2>"$out.err"
  awk '{ printf "%s %.0f\n", $1, $2 / 1024 }' "$work/time"
}
# Whether the "seconds MB" line $1 is faster than $2.
faster() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; }

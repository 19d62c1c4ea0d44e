# What the shell tests share (tests/reduce, tests/mlir): a work directory of
# their own, removed at exit, and how they count and say what passed and failed.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
# finish: the exit code, after saying how many failed.
finish() { [[ "$failures" == 0 ]] || { echo "$failures failure(s)"; exit 1; }; }
# apart NAME COMMAND...: runs COMMAND in the background, its output kept for
# `joined`, which waits for every such run and prints their output in the
# order they were started, counting their failures. Cases that mostly wait
# (a hang costs each try its time limit) run apart, beside the others.
apart_names=()
apart() {
  local name="$1"
  shift
  apart_names+=("$name")
  ( failures=0; "$@"; exit "$failures" ) >"$work/apart.$name.log" 2>&1 &
}
joined() {
  wait
  local name
  for name in "${apart_names[@]}"; do
    cat "$work/apart.$name.log"
    failures=$((failures + $(grep -c '^FAIL: ' "$work/apart.$name.log")))
  done
  apart_names=()
}

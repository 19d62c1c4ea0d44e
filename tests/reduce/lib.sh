# What reduce.sh and reduce_mlir.sh share: a work directory of their own,
# removed at exit, and how they count and say what passed and failed.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
# finish: the exit code, after saying how many failed.
finish() { [[ "$failures" == 0 ]] || { echo "$failures failure(s)"; exit 1; }; }

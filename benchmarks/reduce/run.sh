#!/usr/bin/env bash
# --reduce against what a reducer outside the pass manager gets, on the
# planted bugs of tests/reduce (a crash only on a remainder by 7919):
#  - MLIR: passline-mlir-opt --reduce=command against mlir-reduce-19's
#    reduction tree, on the same module and with the same test script (the
#    candidate's path first; a nonzero exit: it still crashes);
#  - reference IR: passline-opt --reduce against the same reduction with
#    its functions step alone (--reduce-steps=functions: functions emptied
#    and dropped, as a tool that sees only the input's functions does).
# Prints the tables; each row one run, its result's size and time.
#   benchmarks/reduce/run.sh BUILD_DIR
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:?usage: benchmarks/reduce/run.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
opt="$build/tools/passline-opt/passline-opt"
mlir_opt="$build/tools/passline-mlir-opt/passline-mlir-opt"
planted="$build/tests/reduce/planted_bugs.so"
planted_mlir="$build/tests/reduce/planted_mlir.so"
mlir_reduce=/usr/lib/llvm-19/bin/mlir-reduce

# seconds COMMAND...: runs it, its wall time in seconds on stdout (its own output to $work/last.*).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/last.out" 2>"$work/last.err"
  echo $? >"$work/last.code"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}
# mlir_ops FILE: its operations (MLIR's generic form: one op per line that starts with its name).
mlir_ops() { /usr/lib/llvm-19/bin/mlir-opt "$1" --mlir-print-op-generic 2>/dev/null | grep -cE '^ *(%[^=]*= )?"'; }

if [[ -x "$mlir_opt" && -x "$mlir_reduce" && -f "$planted_mlir" ]]; then
  echo "MLIR: a crash on arith.remsi by 7919 in one function; the same test script for both tools"
  cat >"$work/still-crashes.sh" <<SCRIPT
#!/bin/sh
"$mlir_opt" --load-pass-plugin "$planted_mlir" --passes=planted-crash "\$1" -o "\$1.out" 2>"\$1.err"
test \$? -ne 134
SCRIPT
  chmod +x "$work/still-crashes.sh"
  printf '%-12s %-44s %10s %10s %8s %6s\n' input tool "ops in" "ops out" seconds exit
  for shape in "10 30" "30 30" "100 100"; do
    read -r functions ops <<<"$shape"
    python3 "$root/tests/reduce/generate_mlir.py" "$functions" "$ops" 1 >"$work/in.mlir"
    in_ops=$(mlir_ops "$work/in.mlir")
    t=$(seconds "$mlir_reduce" "$work/in.mlir" "-reduction-tree=traversal-mode=0 test=$work/still-crashes.sh" -o "$work/mlir-reduce.mlir")
    code=$(cat "$work/last.code")
    out=$([[ -s "$work/mlir-reduce.mlir" ]] && mlir_ops "$work/mlir-reduce.mlir" || echo "-")
    printf '%-12s %-44s %10s %10s %8s %6s\n' "${functions}x${ops}" "mlir-reduce-19 -reduction-tree" "$in_ops" "$out" "$t" "$code"
    t=$(seconds "$mlir_opt" "$work/in.mlir" --passes=canonicalize,cse,symbol-dce --reduce=command \
      --reduce-command="$work/still-crashes.sh" -o "$work/passline.mlir")
    code=$(cat "$work/last.code")
    out=$([[ -s "$work/passline.mlir" ]] && mlir_ops "$work/passline.mlir" || echo "-")
    printf '%-12s %-44s %10s %10s %8s %6s\n' "${functions}x${ops}" "passline-mlir-opt --reduce=command" "$in_ops" "$out" "$t" "$code"
    rm -f "$work/mlir-reduce.mlir" "$work/passline.mlir"
  done
  echo "(ops: operations in MLIR's generic form, the module and functions included; exit 139: a crash by SIGSEGV)"
  echo
fi

echo "Reference IR: a crash in PlantedCrash on mod(x, 7919), behind O3,PlantedCrash,O2"
printf '%-12s %-44s %10s %10s %10s %8s\n' input reduction "exprs in" "exprs out" passes seconds
for shape in "100 100" "200 100"; do
  read -r functions lets <<<"$shape"
  python3 "$root/tests/reduce/generate.py" "$functions" "$lets" 7 >"$work/in.ir"
  for steps in functions pipeline,functions,inside; do
    t=$(seconds "$opt" "$work/in.ir" --load-pass-plugin "$planted" --passes=O3,PlantedCrash,O2 --reduce \
      --reduce-steps="$steps" -o "$work/out.ir")
    summary=$(grep 'reduce: done' "$work/last.err")
    exprs_in=$(sed -E 's/.* ([0-9]+) -> ([0-9]+) operations.*/\1/' <<<"$summary")
    exprs_out=$(sed -E 's/.* ([0-9]+) -> ([0-9]+) operations.*/\2/' <<<"$summary")
    passes=$(sed -E 's/.* -> ([0-9]+) passes.*/\1/' <<<"$summary")
    label=$([[ "$steps" == functions ]] && echo "functions alone (--reduce-steps=functions)" || echo "passline-opt --reduce (every step)")
    printf '%-12s %-44s %10s %10s %10s %8s\n' "${functions}x${lets}" "$label" "$exprs_in" "$exprs_out" "$passes" "$t"
  done
done
echo "(exprs: expressions of the reference IR, every node of every body)"

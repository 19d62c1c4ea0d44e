#!/usr/bin/env bash
# Compares the compiled form of a static pipeline with hand-written calls:
# the same result, the same machine instructions in the two loops, and the same
# instruction count under callgrind (within 0.5%).
#   benchmarks/zero_overhead.sh PROBE [ITERATIONS]
set -euo pipefail
probe="${1:?usage: zero_overhead.sh PROBE [ITERATIONS]}"
iterations="${2:-1000000}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT

count() {  # instructions executed by one mode, whole program
  valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" "$probe" "$1" "$iterations" \
    >"$work/$1.result" 2>"$work/$1.log"
  callgrind_annotate "$work/$1.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}

size_of() {  # machine instructions in the loop function of one mode
  objdump -d --no-show-raw-insn -C "$probe" |
    awk -v fn="$1" '/^[0-9a-f]+ <.*>:$/ { inside = index($0, fn "(") > 0; next }
                    inside && /^ +[0-9a-f]+:\t/ && !/\tdata16|\tnop|\tcs nop/ { n++ }
                    END { print n }'
}

hand=$(count handwritten)
compiled=$(count compiled)
if ! cmp -s "$work/handwritten.result" "$work/compiled.result"; then
  echo "results differ: $(cat "$work/handwritten.result") vs $(cat "$work/compiled.result")"; exit 1
fi
hand_size=$(size_of run_handwritten)
compiled_size=$(size_of run_compiled)
ratio=$(awk -v a="$compiled" -v b="$hand" 'BEGIN { printf "%.5f", a / b }')
echo "iterations:            $iterations"
echo "result:                $(cat "$work/compiled.result") (both modes)"
echo "instructions executed: handwritten $hand, compiled $compiled, ratio $ratio"
echo "loop function size:    handwritten $hand_size, compiled $compiled_size instructions"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.995 && r <= 1.005) }' || { echo "FAIL: more than 0.5% apart"; exit 1; }
echo "PASS: within 0.5%"

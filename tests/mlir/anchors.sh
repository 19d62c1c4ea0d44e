#!/usr/bin/env bash
# A pass given as mlir-opt's pass flag runs where mlir-opt-19 runs it, for
# every kind of operation MLIR 19's registered passes anchor on: none (any
# operation), builtin.module, func.func, spirv.module (anonymous and named),
# gpu.module, and FunctionOpInterface (which mlir-opt cannot schedule on a
# module). Each case gives the same output bytes and exit code as mlir-opt-19,
# on one thread and on two.
#   anchors.sh PASSLINE_MLIR_OPT MLIR_OPT_19 INPUTS_DIR
set -uo pipefail
tool="$1" reference="$2" inputs="$3"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# same ANCHOR INPUT FLAG: the tool and mlir-opt-19 agree, and the pass changed the input (or both refuse it).
same() {
  local anchor="$1" input="$inputs/$2" flag="$3" threads
  "$reference" "$input" "$flag" >"$work/want" 2>"$work/want.err"
  local want_code=$?
  for threads in 1 2; do
    "$tool" "$input" "$flag" --threads="$threads" >"$work/got" 2>"$work/got.err"
    local code=$?
    if [[ "$code" != "$want_code" ]]; then
      fail "$anchor: $flag exits $code, mlir-opt-19 $want_code (--threads=$threads)"; cat "$work/got.err"
    elif ! cmp -s "$work/got" "$work/want"; then
      fail "$anchor: $flag writes other bytes than mlir-opt-19 (--threads=$threads)"; diff "$work/got" "$work/want" | head -20
    else
      continue
    fi
    return
  done
  if [[ "$want_code" == 0 ]]; then
    "$reference" "$input" >"$work/unchanged"
    cmp -s "$work/want" "$work/unchanged" && { fail "$anchor: $flag changes nothing: the case shows nothing"; return; }
    ok "$anchor: $flag, as mlir-opt-19"
  else
    [[ ! -s "$work/got" ]] && ok "$anchor: $flag refused, as mlir-opt-19 refuses it" ||
      fail "$anchor: $flag refused after writing output"
  fi
}

same "any operation" functions.mlir -canonicalize
same builtin.module functions.mlir -convert-func-to-llvm
same func.func functions.mlir -affine-loop-unroll=unroll-full
same "spirv.module" spirv_modules.mlir -spirv-rewrite-inserts
same gpu.module gpu_module.mlir -convert-gpu-to-nvvm
same FunctionOpInterface functions.mlir -linalg-detensorize

finish

#!/usr/bin/env bash
# Plugins in the drivers, as a user loads them:
#   cli.sh PASSLINE_OPT EXAMPLE_PLUGIN TWIN_PLUGIN EXAMPLES_DIR
# (TWIN_PLUGIN's directory holds the other test plugins) [PASSLINE_MLIR_OPT MLIR_PLUGIN MLIR_PASS_PLUGIN CORPUS]
# The example plugin's passes run, list and gate as built-in ones; a plugin
# that cannot be loaded is one line and exit code 1 with nothing on stdout;
# a reproducer of a plugin's failing pass names the plugin and replays with
# it. With the MLIR arguments: passline-mlir-opt runs a passline plugin over
# MLIR, and MLIR's own pass plugins as mlir-opt loads them.
set -uo pipefail
opt="$1" plugin="$2" twin="$3" examples="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$@" >"$work/out" 2>"$work/err"; echo $? >"$work/code"; }
expect() {  # CODE STDOUT_REGEX STDERR_REGEX NAME
  local code
  code="$(cat "$work/code")"
  [[ "$code" == "$1" ]] || { fail "$4: exit code $code, expected $1"; cat "$work/err"; return; }
  perl -0777 -e 'exit(<STDIN> =~ /\A(?:$ARGV[0])\z/s ? 0 : 1)' -- "$2" <"$work/out" || { fail "$4: stdout"; cat "$work/out"; return; }
  perl -0777 -e 'exit(<STDIN> =~ /\A(?:$ARGV[0])\z/s ? 0 : 1)' -- "$3" <"$work/err" || { fail "$4: stderr"; cat "$work/err"; return; }
  echo "ok: $4"
}

cat >"$work/two.ir" <<'IR'
def @f(%x: i64) -> i64 { add(%x, mul(2, 3)) }
def @g(%y: i64) -> i64 { @f(%y) }
IR

run "$opt" "$work/two.ir" --load-pass-plugin="$plugin" --passes=ExportAll,CountFunctions --stats
expect 0 '#\[export\]\ndef @f.*#\[export\]\ndef @g.*' '.*\n +2 CountFunctions +- functions\n' "passes of a plugin run"

run "$opt" --load-pass-plugin "$plugin" --list-passes
expect 0 '.*\nExportAll +pass +level 0  marks every function exported \(plugin [^\n]*example_plugin\.so\)\n.*' '' \
  "--list-passes names the plugin"

# Gated as built-in passes are: at opt level 0 only what is named runs; a
# disabled plugin pass is a note.
run "$opt" "$work/two.ir" --load-pass-plugin "$plugin" --passes=ExportAll --disable-pass=ExportAll
expect 0 'def @f.*' "passline-opt: note: pass 'ExportAll' does not run: --disable-pass names it\n" \
  "a plugin pass is gated"

# Instruments watch them, and opt-bisect counts them, as built-in passes.
run "$opt" "$work/two.ir" --load-pass-plugin "$plugin" --passes=ExportAll,CountFunctions --print-after=ExportAll \
  --opt-bisect-limit=1
expect 0 '#\[export\]\ndef @f.*' \
  'BISECT: running pass \(1\) ExportAll\n// \*\*\* IR Dump After ExportAll \*\*\*\n#\[export\]\ndef @f.*BISECT: NOT running pass \(2\) CountFunctions\n' \
  "instruments and opt-bisect see plugin passes"

# A plugin's instrument watches every run of the driver that loads it.
run "$opt" "$work/two.ir" --load-pass-plugin "$(dirname "$twin")/test_plugin_instrument.so" --passes=InferType
expect 0 'def @f.*' 'plugin instrument: after InferType\n' "a plugin's instrument"

run "$opt" "$work/two.ir" --load-pass-plugin "$plugin" --passes=ExportAll --load-pass-plugin "$twin"
expect 1 '' "passline-opt: error: cannot load plugin '[^']*test_plugin_twin\.so': it registers pass 'ExportAll', which plugin '[^']*example_plugin\.so' registered\n" \
  "two plugins with one name"

run "$opt" "$work/two.ir" --load-pass-plugin "$work/two.ir" --passes=ExportAll
expect 1 '' "passline-opt: error: cannot load plugin '[^']*two\.ir': not a shared library \([^\n]*\)\n" \
  "a file that is no shared library"

# A reproducer of a plugin's failing pass loads the plugin when replayed, from anywhere.
run "$opt" "$work/two.ir" --load-pass-plugin "$plugin" --passes='CountFunctions{at-most=1}' --reproducer "$work/crash.ir"
expect 1 '' "passline-opt: error: pass 'CountFunctions' failed: the module has 2 functions, more than 1\n" \
  "a plugin's pass fails"
head -1 "$work/crash.ir" | grep -q -F -- "--load-pass-plugin $(realpath "$plugin") " || fail "the reproducer does not load the plugin: $(head -1 "$work/crash.ir")"
(cd "$work" && run "$opt" --run-reproducer crash.ir)
expect 1 '' "passline-opt: error: pass 'CountFunctions' failed: the module has 2 functions, more than 1\n" \
  "the reproducer replays with its plugin"

if [[ $# -gt 4 ]]; then
  mlir_opt="$5" mlir_plugin="$6" mlir_pass_plugin="$7" corpus="$8"
  run "$mlir_opt" "$corpus/func_arith.mlir" --passes=canonicalize,cse
  cp "$work/out" "$work/expected"
  run "$mlir_opt" "$corpus/func_arith.mlir" --load-pass-plugin="$mlir_plugin" --passes=count-and-clean -mlir-pass-statistics
  expect 0 '.*' '===-+===\n +\.\.\. Pass statistics report \.\.\.\n===-+===\ncount-ops\n  \(S\) [0-9]+ operations\n\n' "a passline plugin over MLIR, its counts in MLIR's statistics report"
  cmp -s "$work/out" "$work/expected" || fail "count-and-clean does not print what canonicalize,cse prints"
  # MLIR's own pass plugin, with mlir-opt's spelling of the flag.
  run "$mlir_opt" "$corpus/func_arith.mlir" -load-pass-plugin="$mlir_pass_plugin" --pass-pipeline='builtin.module(test-plugin-rename)'
  expect 0 '.*func\.func @renamed_fold.*func\.func @renamed_select.*' '' "MLIR's pass plugin, as mlir-opt loads it"
  run "$mlir_opt" "$corpus/func_arith.mlir" --load-pass-plugin="$plugin" --passes=cse
  expect 1 '' "passline-mlir-opt: error: cannot load plugin '[^']*example_plugin\.so': [^\n]*\n" \
    "a plugin for another IR"
fi
exit $((failures > 0))

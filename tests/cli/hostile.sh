#!/usr/bin/env bash
# Hostile input: each case feeds the driver something a careless user or an
# attacker would, and checks the exit code, the first line of stderr, and
# that the output file (-o, holding "old content" before) is untouched when
# the run fails: never a crash, never a partial write.
#   hostile.sh PASSLINE-OPT CASE
set -uo pipefail
opt="$1" case="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
out="$dir/out.ir"
printf 'old content\n' >"$dir/old"
cp "$dir/old" "$out"

fail() { echo "FAIL ($case): $*"; echo "--- stderr (first 5 lines, cut)"; head -n 5 "$dir/err" | cut -c1-300; exit 1; }
# rep TEXT N: TEXT N times.
rep() { awk -v s="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'; }
# run EXIT FIRST-LINE-REGEX ARGS...: the driver, writing to $out; stderr in $dir/err.
run() {
  local want_exit="$1" want_first="$2"; shift 2
  "$opt" "$@" -o "$out" 2>"$dir/err"
  local code=$?
  (( code < 128 )) || fail "killed by signal $((code - 128))"
  [[ "$code" == "$want_exit" ]] || fail "exit code $code, expected $want_exit"
  local first; first="$(head -n 1 "$dir/err")"
  if [[ -n "$want_first" ]]; then
    [[ "$first" =~ $want_first ]] || fail "first line of stderr does not match '$want_first'"
  fi
  (( ${#first} <= 400 )) || fail "the first line of stderr is ${#first} characters long"
  if (( code != 0 )); then
    cmp -s "$out" "$dir/old" || fail "a failing run changed its output file"
  fi
}
# ir TEXT: an input file holding TEXT (printf format).
ir() { printf "$@" >"$dir/in.ir"; }
replay() { printf '// passline-opt reproducer: %s\ndef @f(%%x: i64) -> i64 {\n  %%x\n}\n' "$1" >"$dir/repro.ir"; }

case "$case" in
  # -- Nesting: every recursive parser stops at its limit with a positioned error.
  tuple_type_1e5) ir 'def @f(%%x: %s) -> i64 {\n  1\n}\n' "$(rep '(' 100000)i64$(rep ',)' 100000)"
    run 1 "^.*in.ir:1:[0-9]+: error: type nested more than 256 deep$" "$dir/in.ir" ;;
  fn_type_1e5) ir 'def @f(%%x: %si64) -> i64 {\n  1\n}\n' "$(rep 'fn() -> ' 100000)"
    run 1 "^.*in.ir:1:[0-9]+: error: type nested more than 256 deep$" "$dir/in.ir" ;;
  parentheses_1e5) ir 'def @f() -> i64 {\n  %s1%s\n}\n' "$(rep '(' 100000)" "$(rep ')' 100000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  operators_1e5) ir 'def @f() -> i64 {\n  %s1%s\n}\n' "$(rep 'neg(' 100000)" "$(rep ')' 100000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  ifs_1e4) ir 'def @f(%%c: bool) -> i64 {\n  %s1%s\n}\n' "$(rep 'if %c { ' 10000)" "$(rep ' } else { 0 }' 10000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  projections_1e5) ir 'def @f(%%t: (i64,)) -> i64 {\n  %%t%s\n}\n' "$(rep '.0' 100000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  calls_1e5) ir 'def @f(%%x: i64) -> i64 {\n  @f%s\n}\n' "$(rep '(1)' 100000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  let_values_1e4) ir 'def @f() -> i64 {\n  %s1%s\n}\n' "$(rep 'let %a = (' 10000)" "$(rep '); %a' 10000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  closures_1e4) ir 'def @f() -> i64 {\n  %s1%s\n}\n' "$(rep 'fn() { ' 10000)" "$(rep ' }' 10000)"
    run 1 "^.*in.ir:2:[0-9]+: error: expression nested more than 256 deep$" "$dir/in.ir" ;;
  types_grown_by_lets) # a let chain nests no expression, but InferType's types would grow past the limit
    { echo 'def @f(%x: i64) -> i64 {'; echo '  let %a0 = %x;'
      for i in $(seq 1 300); do echo "  let %a$i = (%a$((i - 1)),);"; done; echo '  1'; echo '}'; } >"$dir/in.ir"
    run 1 "^.*in.ir:[0-9]+:[0-9]+: error: its type nests more than 256 deep$" "$dir/in.ir" -O2 ;;
  seq_1e4) run 1 "^pipeline:1:[0-9]+: error: 'seq\\(' nested more than 64 deep$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" "--passes=$(rep 'seq(' 10000)InferType$(rep ')' 10000)" ;;

  # -- Bytes and sizes: messages quote little, escaped.
  nul_byte) ir 'def @f() -> i64 {\n  1\x00\n}\n'
    run 1 "^.*in.ir:2:4: error: unexpected character '\\\\x00'$" "$dir/in.ir" ;;
  invalid_utf8) ir 'def @f() -> i64 {\n  \xff\n}\n'
    run 1 "^.*in.ir:2:3: error: unexpected character '\\\\xFF'$" "$dir/in.ir" ;;
  utf8_character) ir 'def @f() -> i64 {\n  \xc3\xa9\n}\n'
    run 1 "^.*in.ir:2:3: error: unexpected character 'é'$" "$dir/in.ir" ;;
  huge_integer) ir 'def @f() -> i64 {\n  %s\n}\n' "$(rep 9 100000)"
    run 1 "^.*in.ir:2:3: error: integer '9{40}\\.\\.\\.' does not fit in i64$" "$dir/in.ir" ;;
  huge_float) ir 'def @f() -> f64 {\n  1e%s\n}\n' "$(rep 9 100000)"
    run 1 "^.*in.ir:2:3: error: float '1e9{38}\\.\\.\\.' is out of range$" "$dir/in.ir" ;;
  huge_name) ir 'def @f() -> i64 {\n  %%%s\n}\n' "$(rep x 100000)"
    run 1 "^.*in.ir:2:3: error: unknown variable '%x{40}\\.\\.\\.'$" "$dir/in.ir"
    (( $(wc -L <"$dir/err") <= 200 )) || fail "a line of the message is longer than 200 characters" ;;
  huge_tuple_index) ir 'def @f(%%t: (i64,)) -> i64 {\n  %%t.%s\n}\n' "$(rep 9 1000)"
    run 1 "^.*in.ir:2:[0-9]+: error: tuple index '9{40}\\.\\.\\.' is too large$" "$dir/in.ir" ;;
  long_line_snippet) ir 'def @f() -> (i64, i64) {\n  (%s%%nope)\n}\n' "$(rep '1, ' 20000)"
    run 1 "^.*in.ir:2:[0-9]+: error: unknown variable '%nope'$" "$dir/in.ir"
    (( $(wc -L <"$dir/err") <= 200 )) || fail "the snippet is not cut to a window" ;;
  byte_order_mark) ir '\xef\xbb\xbfdef @f() -> i64 {\n  1\n}\n'
    run 0 "" "$dir/in.ir"; grep -q '^def @f() -> i64 {$' "$out" || fail "the output is not the program" ;;
  byte_order_mark_inside) ir 'def @f() -> i64 {\n  \xef\xbb\xbf1\n}\n'
    run 1 "^.*in.ir:2:3: error: unexpected character '\\\\u\\{FEFF\\}'$" "$dir/in.ir" ;;
  empty_file) : >"$dir/in.ir"
    run 0 "" "$dir/in.ir"; [[ ! -s "$out" ]] || fail "an empty module printed something" ;;
  input_is_a_directory) mkdir "$dir/in.ir"
    run 1 "^passline-opt: error: cannot read '.*in.ir': Is a directory$" "$dir/in.ir" ;;
  input_missing) run 1 "^passline-opt: error: cannot open '.*nothing.ir': No such file or directory$" "$dir/nothing.ir" ;;
  input_fifo) mkfifo "$dir/in.ir"; printf 'def @f() -> i64 {\n  1\n}\n' >"$dir/in.ir" &
    run 0 "" "$dir/in.ir"; wait; grep -q '^def @f' "$out" || fail "the FIFO's program was not read" ;;

  # -- Flags: ranges in plain numbers, every argument quoted short.
  threads_negative) run 1 "^passline-opt: error: --threads: config key 'threads' takes an integer from 0 to 1024, not -1$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --threads=-1 ;;
  threads_huge) run 1 "^passline-opt: error: --threads: config key 'threads' takes an integer from 0 to 1024, not 100000$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --threads=100000 ;;
  threads_key_negative) run 1 "^passline-opt: error: config key 'threads' takes an integer from 0 to 1024, not -1$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --config threads=-1 ;;
  threads_not_a_number) run 1 "^passline-opt: error: --threads: config key 'threads' takes an int, not 'many'$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --threads=many ;;
  threads_huge_number) run 1 "^passline-opt: error: --threads: config key 'threads' takes an int, not '9{40}\\.\\.\\.'$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" "--threads=$(rep 9 100000)" ;;
  config_unknown) run 1 "^passline-opt: error: unknown config key 'thread' \\(did you mean 'threads'\\?\\)$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --config thread=2 ;;
  config_without_value) run 1 "^passline-opt: error: --config takes KEY=VALUE, not 'threads'$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --config threads ;;
  level_huge) run 1 "^passline-opt: error: -O: Value 9{150}" "$(dirname "$0")/../../examples/ir/arith.ir" "-O$(rep 9 100000)" ;;
  bisect_not_a_number) run 1 "^passline-opt: error: Could not convert: --opt-bisect-limit = many$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --opt-bisect-limit=many ;;
  pass_name_huge) run 1 "^pipeline:1:1: error: unknown pass 'F{40}\\.\\.\\.'" \
    "$(dirname "$0")/../../examples/ir/arith.ir" "--passes=$(rep F 100000)"
    (( $(wc -L <"$dir/err") <= 200 )) || fail "the caret line is not cut to a window" ;;
  pipeline_control_byte) run 1 "^pipeline:1:10: error: expected ',' between passes, found '\\\\x01'$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" "--passes=InferType$(printf '\001')" ;;
  pipeline_unterminated_string) run 1 "^pipeline:1:16: error: unterminated string$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" '--passes=PrintIR{header="abc}' ;;
  pipeline_unknown_option) run 1 "^pipeline:1:8: error: pass 'Inline' has no option 'max-sise' \\(did you mean 'max-size'\\?\\)$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" '--passes=Inline{max-sise=3}' ;;

  # -- Passes: bounded work, output that reads back, nothing skipped without a word.
  inline_doubling) # each function calls the one before twice: inlining is bounded by its budget
    { echo 'def @f0(%x: i64) -> i64 {'; echo '  add(%x, 1)'; echo '}'
      for i in $(seq 1 24); do printf 'def @f%d(%%x: i64) -> i64 {\n  let %%a = @f%d(%%x);\n  @f%d(%%a)\n}\n' "$i" $((i - 1)) $((i - 1)); done
      printf '#[export]\ndef @main(%%x: i64) -> i64 {\n  @f24(%%x)\n}\n'; } >"$dir/in.ir"
    timeout 60 "$opt" "$dir/in.ir" '--passes=Inline{max-size=1000000}' -o "$out" 2>"$dir/err" || fail "the run failed or took over 60 s"
    (( $(wc -c <"$out") < 100000 )) || fail "the output grew to $(wc -c <"$out") bytes" ;;
  inline_keeps_nesting_readable) # inlining a 200-deep body into a 200-deep call site would nest 400 deep
    printf 'def @deep(%%x: i64) -> i64 {\n  %s%%x%s\n}\n#[export]\ndef @main(%%x: i64) -> i64 {\n  %s@deep(%%x)%s\n}\n' \
      "$(rep 'neg(' 200)" "$(rep ')' 200)" "$(rep 'neg(' 200)" "$(rep ')' 200)" >"$dir/in.ir"
    run 0 "" "$dir/in.ir" -O3
    "$opt" "$out" --passes=InferType >/dev/null 2>"$dir/err" || fail "the output does not read back" ;;
  projection_of_a_number) # (7).1 must not print as the float 7.1
    ir 'def @f() -> i64 {\n  (7).1\n}\n'
    run 0 "" "$dir/in.ir" --passes=ToANormalForm --no-verify
    grep -q '(7)\.1' "$out" || fail "printed as: $(cat "$out")"
    "$opt" "$out" --passes=InferType 2>"$dir/err" >/dev/null; code=$?
    [[ "$code" == 1 ]] || fail "exit code $code: the type error went away"
    grep -q "'.1' needs a tuple, not i64" "$dir/err" || fail "not the same program read back" ;;
  named_pass_runs) printf 'def @sq(%%n: i64) -> i64 {\n  mul(%%n, %%n)\n}\n#[export]\ndef @f(%%x: i64) -> i64 {\n  @sq(%%x)\n}\n' >"$dir/in.ir"
    run 0 "" "$dir/in.ir" --passes=Inline
    grep -q 'mul(%n, %n)' <(sed -n '/def @f/,$p' "$out") || fail "Inline did not run: $(cat "$out")" ;;
  named_pass_skipped_says_so) run 0 "^passline-opt: note: pass 'Inline' does not run: its level, 3, is above --opt-level=2 \\(--require-pass=Inline runs it\\)$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --passes=Inline --opt-level=2 ;;
  named_pass_disabled_says_so) run 0 "^passline-opt: note: pass 'FoldConstant' does not run: --disable-pass names it$" \
    "$(dirname "$0")/../../examples/ir/arith.ir" --passes=FoldConstant --disable-pass=FoldConstant ;;

  # -- Reproducers from someone else: no expansion, no files written.
  replay_variable) replay '--passes=InferType $HOME'
    run 1 "^passline-opt: error: '.*repro.ir': its replay line does not read as shell words \\(column 20: '\\\$' outside quotes" --run-reproducer "$dir/repro.ir" ;;
  replay_command) replay '--passes=InferType `touch x`'
    run 1 "^passline-opt: error: '.*repro.ir': its replay line does not read as shell words \\(column 20: '\`' outside quotes" --run-reproducer "$dir/repro.ir" ;;
  replay_command_in_double_quotes) replay '"--passes=$(touch x)"'
    run 1 "^passline-opt: error: '.*repro.ir': its replay line does not read as shell words \\(column 11: '\\\$' inside double quotes" --run-reproducer "$dir/repro.ir" ;;
  replay_glob) replay '--passes=InferType *.ir'
    run 1 "^passline-opt: error: '.*repro.ir': its replay line does not read as shell words \\(column 20: '\\*' outside quotes" --run-reproducer "$dir/repro.ir" ;;
  replay_trace) replay "--passes=InferType --trace=$dir/written.json"
    run 1 "^passline-opt: error: '.*repro.ir': its replay line may give only pipeline flags: The following argument was not expected: --trace=" --run-reproducer "$dir/repro.ir"
    [[ ! -e "$dir/written.json" ]] || fail "the reproducer wrote a file" ;;
  replay_output) replay "--passes=InferType -o $dir/written.ir"
    run 1 "^passline-opt: error: '.*repro.ir': its replay line may give only pipeline flags" --run-reproducer "$dir/repro.ir"
    [[ ! -e "$dir/written.ir" ]] || fail "the reproducer wrote a file" ;;
  replay_dump_dir) replay "--passes=InferType --dump-dir=$dir/dumps"
    run 1 "^passline-opt: error: '.*repro.ir': its replay line may give only pipeline flags" --run-reproducer "$dir/repro.ir"
    [[ ! -e "$dir/dumps" ]] || fail "the reproducer made a directory" ;;
  replay_reproducer) replay "--passes=InferType --reproducer=$dir/again.ir"
    run 1 "^passline-opt: error: '.*repro.ir': its replay line may give only pipeline flags" --run-reproducer "$dir/repro.ir" ;;
  replay_input) replay "--passes=InferType /etc/hostname"
    run 1 "^passline-opt: error: '.*repro.ir': its replay line may give only pipeline flags" --run-reproducer "$dir/repro.ir" ;;
  replay_pipeline_flags) replay "'--passes=InferType,PrintIR{header=\"a \$b\"}' --opt-level=1 --config threads=1"
    run 0 "^// \\*\\*\\* PrintIR: a \\\$b \\*\\*\\*$" --run-reproducer "$dir/repro.ir" ;;
  replay_from_a_pipe) # the file is read once: its replay line and its IR come from the same read
    printf '// passline-opt reproducer: --passes=InferType\ndef @f(%%x: i64) -> i64 {\n  add(%%x, true)\n}\n' >"$dir/repro.ir"
    "$opt" --run-reproducer /dev/stdin <"$dir/repro.ir" -o "$out" 2>"$dir/err"; code=$?
    [[ "$code" == 1 ]] || fail "exit code $code: the recorded failure did not come back"
    grep -q "^/dev/stdin:3:3: error: 'add' needs operands of one type" "$dir/err" || fail "not the recorded error"
    "$opt" --run-reproducer <(cat "$dir/repro.ir") 2>"$dir/err" >/dev/null; code=$?
    [[ "$code" == 1 ]] || fail "exit code $code: the failure went away through <(...)"
    mkfifo "$dir/fifo.ir"; cat "$dir/repro.ir" >"$dir/fifo.ir" &
    "$opt" --run-reproducer "$dir/fifo.ir" 2>"$dir/err" >/dev/null; code=$?
    [[ "$code" == 1 ]] || fail "exit code $code: the failure went away through a FIFO"
    wait; grep -q "fifo.ir:3:3: error: 'add' needs operands of one type" "$dir/err" || fail "not the recorded error" ;;
  replay_crlf) printf '// passline-opt reproducer: --passes=InferType --opt-level=1\r\ndef @f(%%x: i64) -> i64 {\r\n  %%x\r\n}\r\n' >"$dir/repro.ir"
    run 0 "" --run-reproducer "$dir/repro.ir"; grep -q '^def @f(%x: i64) -> i64 {$' "$out" || fail "the module was not replayed" ;;

  # -- Files the driver names itself: never written through a planted link, never blocked on a FIFO.
  dump_dir_planted_link) mkdir "$dir/dumps"; printf 'precious\n' >"$dir/precious"
    ln -s "$dir/precious" "$dir/dumps/000-input.ir"; ln -s "$dir/precious" "$dir/dumps/001-InferType.ir"
    run 0 "" "$(dirname "$0")/../../examples/ir/arith.ir" --passes=InferType --dump-dir="$dir/dumps"
    [[ "$(cat "$dir/precious")" == precious ]] || fail "the dump wrote through a planted link"
    [[ -f "$dir/dumps/000-input.ir" && ! -L "$dir/dumps/000-input.ir" ]] || fail "the entry is not a file of its own"
    grep -q '^def @main' "$dir/dumps/001-InferType.ir" || fail "the entry does not hold the IR" ;;
  dump_dir_planted_fifo) mkdir "$dir/dumps"; mkfifo "$dir/dumps/000-input.ir"
    timeout 20 "$opt" "$(dirname "$0")/../../examples/ir/arith.ir" --passes=InferType --dump-dir="$dir/dumps" -o "$out" 2>"$dir/err"
    code=$?; [[ "$code" == 0 ]] || fail "exit code $code (124: blocked on the FIFO)"
    [[ -f "$dir/dumps/000-input.ir" && ! -p "$dir/dumps/000-input.ir" ]] || fail "the FIFO is still there" ;;
  stale_temporary) # a run killed with SIGKILL leaves its temporary; the next write beside it removes it
    sleep 0 & dead=$!; wait "$dead"
    : >"$dir/.out.ir.passline-$dead-AbC123"; : >"$dir/.out.ir.passline-$$-XyZ789"
    run 0 "" "$(dirname "$0")/../../examples/ir/arith.ir"
    [[ ! -e "$dir/.out.ir.passline-$dead-AbC123" ]] || fail "a dead process's temporary is still there"
    [[ -e "$dir/.out.ir.passline-$$-XyZ789" ]] || fail "a live process's temporary was removed" ;;
  threads_above_cores) # stderr does not depend on the number of threads
    "$opt" "$(dirname "$0")/../../examples/ir/arith.ir" -O2 --threads=64 --time-passes -o "$out" 2>"$dir/err" || fail "the run failed"
    grep -qi 'tbb' "$dir/err" && fail "TBB wrote to stderr" ; true ;;
  print_ir_header_escaped) run 0 '^// \*\*\* PrintIR: a\\x1B\[31mred\\x0Anext \*\*\*$' \
    "$(dirname "$0")/../../examples/ir/arith.ir" "--passes=PrintIR{header=\"a"$'\033'"[31mred"$'\n'"next\"}" ;;
  *) echo "unknown case '$case'"; exit 2 ;;
esac
echo ok

#!/usr/bin/env bash
# What the driver's writes do to their targets: each case sets up a target of
# one kind in a directory of its own (mktemp -d), runs passline-opt, and
# checks the exit code, the first line of stderr, and what the target is
# afterwards: the same kind (file, mode, link, FIFO, device) and the whole
# new content, or its old content untouched.
#   targets.sh PASSLINE-OPT EXAMPLES-DIR CASE
# Devices are made with mknod in the case's directory (never /dev itself), so
# those cases need root; without it they are skipped (exit 77).
set -uo pipefail
opt="$1" examples="$2" case="$3"
dir="$(mktemp -d)"
trap 'chmod -R u+rwx "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
umask 022
input="$examples/arith.ir"
failing="$examples/failing/mixed_types.ir"
"$opt" "$input" -O2 >"$dir/expected" || { echo "FAIL: the reference run failed"; exit 1; }
printf 'old content\n' >"$dir/old"

fail() { echo "FAIL ($case): $*"; [[ -f "$dir/err" ]] && { echo "--- stderr"; cat "$dir/err"; }; exit 1; }

# run EXIT FIRST-LINE-REGEX ARGS...: runs the driver, stderr to $dir/err.
run() {
  local want_exit="$1" want_first="$2"; shift 2
  "$opt" "$@" 2>"$dir/err"
  local code=$?
  [[ "$code" == "$want_exit" ]] || fail "exit code $code, expected $want_exit"
  local first; first="$(head -n 1 "$dir/err")"
  if [[ -z "$want_first" ]]; then
    [[ ! -s "$dir/err" ]] || fail "stderr is not empty"
  else
    [[ "$first" =~ $want_first ]] || fail "first line of stderr '$first' does not match '$want_first'"
  fi
}
kind() { stat -c %F "$1"; }
expect_kind() { [[ "$(kind "$1")" == "$2" ]] || fail "$1 is a $(kind "$1"), not a $2"; }
expect_mode() { [[ "$(stat -c %a "$1")" == "$2" ]] || fail "$1 has mode $(stat -c %a "$1"), not $2"; }
expect_content() { cmp -s "$1" "$2" || fail "$1 does not hold what $2 does"; }
expect_no_temporaries() {
  local left; left="$(find "$dir" -name '.*.passline-*')"
  [[ -z "$left" ]] || fail "temporary files left behind: $left"
}
need_root() { [[ $(id -u) == 0 ]] || { echo "skipped: mknod needs root"; exit 77; }; }
device() {  # device NAME MAJOR MINOR: a character device of our own
  need_root
  mknod "$dir/$1" c "$2" "$3" || { echo "skipped: mknod is not allowed here"; exit 77; }
  chmod 666 "$dir/$1"
}

case "$case" in
  new_file)  # a path that does not exist: a new file, mode 0666 less the umask
    run 0 "" "$input" -O2 -o "$dir/out.ir"
    expect_kind "$dir/out.ir" "regular file"; expect_mode "$dir/out.ir" 644
    expect_content "$dir/out.ir" "$dir/expected" ;;
  file_keeps_mode)  # an existing file of mode 600 keeps its mode
    cp "$dir/old" "$dir/out.ir"; chmod 600 "$dir/out.ir"
    run 0 "" "$input" -O2 -o "$dir/out.ir"
    expect_kind "$dir/out.ir" "regular file"; expect_mode "$dir/out.ir" 600
    expect_content "$dir/out.ir" "$dir/expected" ;;
  file_kept_on_failure)  # a failing run leaves the old file, content and mode
    cp "$dir/old" "$dir/out.ir"; chmod 640 "$dir/out.ir"
    run 1 "mixed_types.ir:5:3: error: 'add' needs operands of one type" "$failing" -O2 -o "$dir/out.ir"
    expect_mode "$dir/out.ir" 640; expect_content "$dir/out.ir" "$dir/old" ;;
  no_partial_output)  # a failing run creates nothing
    run 1 "error" "$failing" -O2 -o "$dir/out.ir"
    [[ ! -e "$dir/out.ir" ]] || fail "a failing run created its output" ;;
  symlink)  # a symbolic link stays a link; what it names gets the output, and keeps its mode
    cp "$dir/old" "$dir/real.ir"; chmod 600 "$dir/real.ir"; ln -s real.ir "$dir/link.ir"
    run 0 "" "$input" -O2 -o "$dir/link.ir"
    expect_kind "$dir/link.ir" "symbolic link"; expect_kind "$dir/real.ir" "regular file"
    expect_mode "$dir/real.ir" 600; expect_content "$dir/real.ir" "$dir/expected" ;;
  symlink_chain)  # links to links, relative and absolute, across directories
    mkdir "$dir/a" "$dir/b"; cp "$dir/old" "$dir/b/real.ir"
    ln -s "$dir/b/step.ir" "$dir/a/link.ir"; ln -s real.ir "$dir/b/step.ir"
    run 0 "" "$input" -O2 -o "$dir/a/link.ir"
    expect_kind "$dir/a/link.ir" "symbolic link"; expect_kind "$dir/b/step.ir" "symbolic link"
    expect_content "$dir/b/real.ir" "$dir/expected" ;;
  dangling_symlink)  # a link to nothing: the file it names is made, the link stays
    ln -s made.ir "$dir/link.ir"
    run 0 "" "$input" -O2 -o "$dir/link.ir"
    expect_kind "$dir/link.ir" "symbolic link"; expect_content "$dir/made.ir" "$dir/expected" ;;
  symlink_loop)  # a loop of links is an error, and both stay links
    ln -s b "$dir/a"; ln -s a "$dir/b"
    run 1 "^passline-opt: error: cannot write '.*/a': Too many levels of symbolic links$" "$input" -O2 -o "$dir/a"
    expect_kind "$dir/a" "symbolic link"; expect_kind "$dir/b" "symbolic link" ;;
  fifo)  # a FIFO is written in place, and stays a FIFO
    mkfifo "$dir/pipe"
    cat "$dir/pipe" >"$dir/read" &
    run 0 "" "$input" -O2 -o "$dir/pipe"
    wait
    expect_kind "$dir/pipe" "fifo"; expect_content "$dir/read" "$dir/expected" ;;
  null_device)  # a device like /dev/null is written in place, and stays a device
    device null 1 3
    run 0 "" "$input" -O2 -o "$dir/null"
    expect_kind "$dir/null" "character special file"; expect_no_temporaries ;;
  full_device)  # a write that fails (a device like /dev/full) is an error naming the target
    device full 1 7
    run 1 "^passline-opt: error: cannot write '.*/full': No space left on device$" "$input" -O2 -o "$dir/full"
    expect_kind "$dir/full" "character special file" ;;
  directory)  # a directory is an error, not a place to put a file
    mkdir "$dir/out"
    run 1 "^passline-opt: error: cannot write '.*/out': Is a directory$" "$input" -O2 -o "$dir/out"
    expect_kind "$dir/out" "directory" ;;
  missing_directory)  # a path in a directory that does not exist
    run 1 "^passline-opt: error: cannot write '.*/no/out.ir': No such file or directory$" "$input" -O2 -o "$dir/no/out.ir" ;;
  same_file_in_and_out)  # the input file as the output: read whole, then replaced
    cp "$input" "$dir/io.ir"
    run 0 "" "$dir/io.ir" -O2 -o "$dir/io.ir"
    expect_content "$dir/io.ir" "$dir/expected" ;;
  stdout_full)  # standard output that cannot be written is an error, exit 1
    device full 1 7
    "$opt" "$input" -O2 >"$dir/full" 2>"$dir/err"; code=$?
    [[ $code == 1 ]] || fail "exit code $code, expected 1"
    grep -qx "passline-opt: error: cannot write standard output: No space left on device" "$dir/err" || fail "message" ;;
  stdout_closed)  # so is a closed standard output
    "$opt" "$input" -O2 >&- 2>"$dir/err"; code=$?
    [[ $code == 1 ]] || fail "exit code $code, expected 1"
    grep -qx "passline-opt: error: cannot write standard output: Bad file descriptor" "$dir/err" || fail "message" ;;
  stdout_closed_listing)  # --list-passes too
    "$opt" --list-passes >&- 2>"$dir/err"; code=$?
    [[ $code == 1 ]] || fail "exit code $code, expected 1"
    grep -qx "passline-opt: error: cannot write standard output: Bad file descriptor" "$dir/err" || fail "message" ;;
  stdin_closed)  # a closed standard input is an error, not an empty module
    "$opt" - -O2 <&- >"$dir/out" 2>"$dir/err"; code=$?
    [[ $code == 1 ]] || fail "exit code $code, expected 1"
    grep -qx "passline-opt: error: cannot read standard input: Bad file descriptor" "$dir/err" || fail "message"
    [[ ! -s "$dir/out" ]] || fail "output written" ;;
  trace_full)  # a trace that cannot be written fails the run (and writes no output)
    device full 1 7
    run 1 "^passline-opt: error: instrument failed on exit: cannot write '.*/full': No space left on device$" \
      "$input" -O2 --trace="$dir/full" -o "$dir/out.ir"
    [[ ! -e "$dir/out.ir" ]] || fail "output written"; expect_kind "$dir/full" "character special file" ;;
  trace_symlink)  # the trace follows a link, which stays a link
    ln -s real.json "$dir/trace.json"
    run 0 "" "$input" -O2 --trace="$dir/trace.json" -o "$dir/out.ir"
    expect_kind "$dir/trace.json" "symbolic link"; grep -q traceEvents "$dir/real.json" || fail "no trace" ;;
  trace_keeps_mode)  # an old trace keeps its mode
    cp "$dir/old" "$dir/t.json"; chmod 600 "$dir/t.json"
    run 0 "" "$input" -O2 --trace="$dir/t.json" -o "$dir/out.ir"
    expect_mode "$dir/t.json" 600; grep -q traceEvents "$dir/t.json" || fail "no trace" ;;
  dump_dir_is_a_file)  # a dump directory that is a file
    cp "$dir/old" "$dir/dumps"
    run 1 "^passline-opt: error: cannot make the dump directory '.*/dumps': " "$input" -O2 --dump-dir="$dir/dumps"
    expect_content "$dir/dumps" "$dir/old" ;;
  dump_dir_symlinks)  # dump entries are the dump's own: a link at one's name is replaced, not followed
    mkdir "$dir/dumps"; printf 'kept\n' >"$dir/kept.ir"; ln -s ../kept.ir "$dir/dumps/000-input.ir"
    run 0 "" "$input" -O2 --dump-dir="$dir/dumps" -o "$dir/out.ir"
    expect_kind "$dir/dumps/000-input.ir" "regular file"; expect_kind "$dir/kept.ir" "regular file"
    [[ "$(cat "$dir/kept.ir")" == kept ]] || fail "the dump wrote through the link"
    grep -q '^def @main' "$dir/dumps/000-input.ir" || fail "the entry does not hold the IR" ;;
  reproducer_unwritable)  # a reproducer path that cannot be written fails before any pass runs
    run 1 "^passline-opt: error: cannot write '.*/no/repro.ir': No such file or directory$" \
      "$input" -O2 --reproducer="$dir/no/repro.ir" ;;
  reproducer_full)  # a pass fails and its reproducer cannot be written: both are said
    device full 1 7
    run 1 "mixed_types.ir:5:3: error" "$failing" -O2 --reproducer="$dir/full"
    grep -qx "passline-opt: error: cannot write '.*/full': No space left on device" "$dir/err" || fail "the reproducer's failure is not said" ;;
  reproducer_not_written_on_success)  # a run that succeeds leaves an old reproducer as it was
    cp "$dir/old" "$dir/repro.ir"
    run 0 "" "$input" -O2 --reproducer="$dir/repro.ir" -o "$dir/out.ir"
    expect_content "$dir/repro.ir" "$dir/old"; expect_no_temporaries ;;
  concurrent_writers)  # two runs writing one path at once: it ends holding one run's whole output
    "$opt" "$examples/cleanup.ir" -O2 >"$dir/expected2" 2>/dev/null
    for _ in $(seq 20); do
      "$opt" "$input" -O2 -o "$dir/out.ir" 2>/dev/null & "$opt" "$examples/cleanup.ir" -O2 -o "$dir/out.ir" 2>/dev/null &
      wait
      cmp -s "$dir/out.ir" "$dir/expected" || cmp -s "$dir/out.ir" "$dir/expected2" || fail "a mixed output"
    done
    expect_no_temporaries ;;
  signal_term|signal_int)  # a run stopped by a signal leaves the old output and no temporary file
    set -m  # background jobs get SIGINT too
    cp "$dir/old" "$dir/out.ir"; mkfifo "$dir/in.ir"
    "$opt" "$dir/in.ir" -O2 -o "$dir/out.ir" 2>"$dir/err" &
    pid=$!
    for _ in $(seq 500); do [[ -n "$(find "$dir" -name '.*.passline-*')" ]] && break; sleep 0.01; done
    [[ -n "$(find "$dir" -name '.*.passline-*')" ]] || fail "the run never began its output"
    kill -"${case#signal_}" "$pid"
    wait "$pid"; code=$?
    want=$(( 128 + $(kill -l "${case#signal_}") ))
    [[ $code == "$want" ]] || fail "exit code $code, expected $want"
    expect_content "$dir/out.ir" "$dir/old"; expect_no_temporaries ;;
  truncated_input)  # an input truncated while the driver reads it: an error, never SIGBUS
    awk 'BEGIN { print "def @main(%v0: i64) -> i64 {"; for (i = 1; i <= 400000; i++) printf "  let %%v%d = add(%%v%d, 1);\n", i, i - 1; print "  %v400000\n}" }' >"$dir/big.ir"
    cp "$dir/big.ir" "$dir/whole.ir"
    for _ in $(seq 20); do
      cp "$dir/whole.ir" "$dir/big.ir"
      "$opt" "$dir/big.ir" --passes=InferType -o "$dir/out.ir" 2>"$dir/err" &
      pid=$!
      sleep 0.05; : >"$dir/big.ir"
      wait "$pid"; code=$?
      (( code <= 1 )) || fail "exit code $code: the truncation killed the run"
      if (( code == 1 )); then
        [[ "$(head -n 1 "$dir/err")" == "passline-opt: error: cannot read '$dir/big.ir': it was truncated while it was read" ]] ||
          fail "message: $(head -n 1 "$dir/err")"
        [[ ! -e "$dir/out.ir" ]] || fail "output written"
        echo ok; exit 0
      fi
      rm -f "$dir/out.ir"
    done
    fail "the file was never truncated while it was read (the run was always faster)" ;;
  *) echo "unknown case '$case'"; exit 2 ;;
esac
echo ok

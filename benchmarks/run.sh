#!/usr/bin/env bash
# Runs every benchmark of a build tree and writes docs/benchmarks.md from the
# results: one current table per benchmark, with the command that made it,
# the machine and the date. The page is regenerated whole, never appended to;
# its history is in git.
#   benchmarks/run.sh BUILD_DIR [OUTPUT.md]
# SIZES="10 100" limits the compile-time benchmark to those pipeline sizes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$(cd "${1:?usage: benchmarks/run.sh BUILD_DIR [OUTPUT.md]}" && pwd)"
output="${2:-$root/docs/benchmarks.md}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
page="$work/page.md"
rel() { echo "${1#"$root/"}"; }

cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
{
  echo "# Benchmarks"
  echo
  echo "Written by [benchmarks/run.sh](../benchmarks/run.sh) (\`./dev bench\`) on $(date -u +%Y-%m-%d):"
  echo "$(nproc) cores ($cpu), $(. /etc/os-release && echo "$PRETTY_NAME"), $(clang++-19 --version | head -1),"
  echo "the \`$(basename "$build")\` preset. Runtime benchmarks compare variants side by side in one"
  echo "run: read the ratios, not the absolute times, which move with the machine."
} >"$page"

# section TITLE DESCRIPTION: a heading and what the benchmark measures.
section() { printf '\n## %s\n\n%s\n' "$1" "$2" >>"$page"; }
# command TEXT: the command that made the table below it.
command_line() { printf '\nCommand:\n\n```sh\n%s\n```\n\n' "$1" >>"$page"; }
# text FILE: output that is not a markdown table, as it was printed.
text() { { echo '```text'; cat "$1"; echo '```'; } >>"$page"; }
say() { echo "== $*" >&2; }

say "zero overhead"
section "Zero overhead: the compiled form against hand-written calls" \
"[zero_overhead_probe.cpp](../benchmarks/zero_overhead_probe.cpp) runs ten passes of integer arithmetic as
hand-written calls and as \`Compiled<2, Sequential<...>>\`, under callgrind; the loop functions are compared
instruction by instruction. It also runs as the test \`benchmark.zero_overhead\`."
command_line "benchmarks/zero_overhead.sh $(rel "$build")/benchmarks/zero_overhead_probe"
"$here/zero_overhead.sh" "$build/benchmarks/zero_overhead_probe" >"$work/zero.txt"
text "$work/zero.txt"

say "dispatch"
section "Dispatch: 50 no-op passes" \
"[dispatch.cpp](../benchmarks/dispatch.cpp): 50 no-op module passes on a trivial module, and 50 no-op function
passes over 100 functions, as hand-written calls, the compiled form, a static \`Sequential\`, a runtime
\`sequential(...)\` with no instrument and with one, and (when built with the peers, \`./dev setup --peers\`)
LLVM's new pass manager and MLIR's \`PassManager\` ([peers.cpp](../benchmarks/peers.cpp)). \`ns_per_pass\`:
per pass, or per pass and function; medians of 3. The analysis rows time one cached look-up.
\`FunctionPointerLoop\` is the floor of any pass manager that runs its passes by one loop: the 50 passes'
functions called through pointers from one call site (\`OneTarget\`: the same loop over one function 50 times,
whose target the CPU predicts)."
command_line "$(rel "$build")/benchmarks/dispatch --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_format=json"
"$build/benchmarks/dispatch" --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_format=json \
  >"$work/dispatch.json" 2>/dev/null
"$here/gbench_table.py" "$work/dispatch.json" ns_per_pass LLVMNewPM >>"$page"

say "required passes"
section "Required passes on a value-type IR" \
"[requirements.cpp](../benchmarks/requirements.cpp): a pipeline whose passes share one requirement, as a
static pipeline, as runtime pipeline text, and as text under a user's instrument."
command_line "$(rel "$build")/benchmarks/requirements --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_format=json"
"$build/benchmarks/requirements" --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_format=json \
  >"$work/requirements.json" 2>/dev/null
"$here/gbench_table.py" "$work/requirements.json" real_time >>"$page"

say "compile time"
section "Compile-time cost of static pipelines" \
"[compile_time/generate.sh](../benchmarks/compile_time/generate.sh) writes N pass types, pass i requiring
passes i-1 and i-2: *baseline* runs the pipeline without the compile-time check, *check* with it,
*resolution* through \`ResolvedSequential\`. Clang's front-end CPU time (\`-fsyntax-only\`), best of 5.

![compile time against N](compile-time.png)"
command_line "${SIZES:+SIZES=\"$SIZES\" }benchmarks/compile_time/run.sh $(rel "$build") docs/compile-time.png"
"$here/compile_time/run.sh" "$build" "$root/docs/compile-time.png" >"$work/compile.md"
grep '^|' "$work/compile.md" >>"$page"

say "end to end against mlir-opt"
section "End to end: passline-opt -O2 against mlir-opt-19 --canonicalize --cse" \
"[vs_mlir/generate.cpp](../benchmarks/vs_mlir/generate.cpp) writes the same program as the reference IR
and as MLIR's \`arith\`/\`func\`; both tools read, optimize and print it. Then each pass alone, ns per node
of its input ([pass_scaling.cpp](../benchmarks/vs_mlir/pass_scaling.cpp)).

![time per node against size](vs-mlir-scaling.png)"
command_line "benchmarks/vs_mlir/run.sh $(rel "$build") docs/vs-mlir-scaling.png"
"$here/vs_mlir/run.sh" "$build" "$root/docs/vs-mlir-scaling.png" >"$work/vs_mlir.txt"
text "$work/vs_mlir.txt"

say "passline over MLIR against MLIR's pass manager"
section "passline over MLIR against MLIR's own pass manager" \
"passline's pass manager running MLIR's passes on MLIR ([passline.mlir](mlir.md)) against MLIR's
\`PassManager\` running the same passes on the same IR. First what each manager costs per pass:
[mlir/noop_passes.cpp](../benchmarks/mlir/noop_passes.cpp) runs 50 no-op module passes, and 50 no-op
function passes over 1,000 functions (MLIR's nested on \`func.func\` through its adaptor), on one thread
and on two; MLIR's verifier is off, as passline verifies nothing between its own passes. \`ns_per_pass\`:
per pass, or per pass and function; medians of 3."
command_line "$(rel "$build")/benchmarks/mlir_noop_passes --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_format=json"
if [[ -x "$build/benchmarks/mlir_noop_passes" ]]; then
  "$build/benchmarks/mlir_noop_passes" --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_format=json \
    >"$work/mlir_noop.json" 2>/dev/null
  "$here/gbench_table.py" "$work/mlir_noop.json" ns_per_pass MLIRPassManager >>"$page"
else
  echo "(not built: MLIR 19 is missing; ./dev setup --peers)" >>"$page"
fi
printf '\n%s\n' "Then whole runs of the two drivers, [mlir/run.sh](../benchmarks/mlir/run.sh): passline-mlir-opt against
mlir-opt-19, each reading, optimizing and printing a module of 1,000 functions of 1,000 operations
([vs_mlir/generate.cpp](../benchmarks/vs_mlir/generate.cpp)), and what timing and printing on change add to
each tool's own run. In passline-mlir-opt, the pipeline MLIR nests, \`func.func(canonicalize,cse)\`, is one
passline pass that MLIR's nesting runs on passline's thread pool ([mlir.md](mlir.md#the-driver) says why)." >>"$page"
command_line "benchmarks/mlir/run.sh $(rel "$build")"
"$here/mlir/run.sh" "$build" >"$work/mlir.txt"
text "$work/mlir.txt"

say "instruments"
section "Instruments: what watching a pipeline costs" \
"[instruments_overhead.cpp](../benchmarks/instruments_overhead.cpp): a 50-pass pipeline over one module with no
instrument, with a fingerprint after each pass, and with \`--print-changed=quiet\`."
command_line "$(rel "$build")/benchmarks/vs_mlir_generate 43000 3 IN.ir IN.mlir && $(rel "$build")/benchmarks/instruments_overhead IN.ir 15"
"$build/benchmarks/vs_mlir_generate" 43000 3 "$work/in.ir" "$work/in.mlir"
"$build/benchmarks/instruments_overhead" "$work/in.ir" 15 >"$work/instruments.txt"
text "$work/instruments.txt"

say "report"
section "The report: what --report costs" \
"[report/run.sh](../benchmarks/report/run.sh): passline-opt -O2 on 10^5 operations with no instrument, with
\`--print-changed=diff\` and with \`--report\`, alternating; then the report of O2 on 10^6 operations, its size,
and how long headless Chromium takes to open it."
command_line "benchmarks/report/run.sh $(rel "$build")"
"$here/report/run.sh" "$build" >"$work/report.txt"
text "$work/report.txt"

say "python"
section "Python" \
"[python/overhead.py](../benchmarks/python/overhead.py): O2 run from Python against the same run from C++,
each side in five fresh processes, and what a Python pass's call costs. C++ reads the file as passline-opt
does: read into a growing string, whose freed buffers raise glibc's mmap and trim thresholds, it ran 8%
faster from that alone ([pipeline_run.cpp](../benchmarks/python/pipeline_run.cpp) says why). The second O2
row runs both sides with glibc's malloc keeping the memory it frees (MALLOC_TRIM_THRESHOLD_ and
MALLOC_MMAP_THRESHOLD_ set high): the difference between the rows is the allocator giving memory back to
the system between runs."
command_line "/usr/bin/python3 benchmarks/python/overhead.py $(rel "$build")"
/usr/bin/python3 "$here/python/overhead.py" "$build" >"$work/python.txt"
text "$work/python.txt"

say "threads"
section "Threads: the whole run on one thread and on two" \
"[parallel/run.sh](../benchmarks/parallel/run.sh): passline-opt -O2 on 10^6 operations in 1000 functions
with one and two threads, and one large function at three sizes, each phase in ns per operation."
command_line "benchmarks/parallel/run.sh $(rel "$build")"
"$here/parallel/run.sh" "$build" >"$work/parallel.txt"
text "$work/parallel.txt"

cp "$page" "$output"
echo "wrote $(rel "$output")" >&2

"""passline from Python against passline from C++, side by side in one run.

    /usr/bin/python3 benchmarks/python/overhead.py BUILD_DIR [OPS] [RUNS]

1. O2 on a generated module of OPS operations (10^5 by default): the best of
   RUNS runs from Python (passline.parse_pipeline("O2")(mod)) against the
   best of as many from C++ (pipeline_run), in five rounds interleaved, each
   round a fresh process on each side (how a process's heap came to be laid
   out changes a run by up to a tenth, so neither side gets more processes
   than the other). Parsing and printing are not timed in either; C++
   reads the file as passline-opt does (see pipeline_run.cpp for why that
   matters). The same again with glibc's malloc keeping freed memory
   (MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ high, on both sides):
   the two rows differ by what returning memory to the system between
   runs costs each process.
2. The cost of a call of a no-op Python pass from a C++ pipeline: a
   Sequential of 1000 no-op Python module passes, per pass; of 10 no-op
   Python function passes over 100 functions, per function; and, as the
   floor, 1000 empty C++ pipelines, per pipeline.
"""
import os
import subprocess
import sys
import tempfile
import time

if sys.argv[1] == "--o2":  # one round's Python process: --o2 BUILD_DIR FILE.ir RUNS
    sys.path.insert(0, os.path.join(os.path.abspath(sys.argv[2]), "python"))
else:
    build = os.path.abspath(sys.argv[1])
    ops = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    sys.path.insert(0, os.path.join(build, "python"))
import passline  # noqa: E402


def best_of(n, f):
    """The best time of n calls; what f returns is dropped after the clock
    stops, as pipeline_run drops its result."""
    best = float("inf")
    for _ in range(n):
        start = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - start)
        del result
    return best


if sys.argv[1] == "--o2":
    with open(sys.argv[3]) as f:
        mod = passline.IRModule.parse(f.read(), sys.argv[3])
    o2 = passline.parse_pipeline("O2")
    print(f"{best_of(int(sys.argv[4]), lambda: o2(mod)):.6f}")
    sys.exit(0)

with tempfile.TemporaryDirectory() as work:
    ir_file = os.path.join(work, "in.ir")
    subprocess.run([os.path.join(build, "benchmarks", "vs_mlir_generate"), str(ops), "7", ir_file,
                    os.path.join(work, "in.mlir")], check=True)
    keep = dict(os.environ, MALLOC_TRIM_THRESHOLD_="4000000000", MALLOC_MMAP_THRESHOLD_="4000000000")
    for label, env in (("", None), (", malloc keeping freed memory", keep)):
        cpp, python = float("inf"), float("inf")
        for _ in range(5):
            out = subprocess.run([os.path.join(build, "benchmarks", "pipeline_run"), ir_file, "O2", str(runs)],
                                 check=True, capture_output=True, text=True, env=env)
            cpp = min(cpp, float(out.stdout))
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--o2", build, ir_file, str(runs)],
                                 check=True, capture_output=True, text=True, env=env)
            python = min(python, float(out.stdout))
        print(f"O2 on {ops} operations{label}: C++ {cpp * 1e3:.2f} ms, Python {python * 1e3:.2f} ms, "
              f"Python / C++ = {python / cpp:.3f}")

tiny = passline.IRModule.parse("#[export]\ndef @main(%x: i64) -> i64 {\n  %x\n}\n")


@passline.module_pass(opt_level=0)
def noop_module(mod, ctx):
    return mod


@passline.function_pass(opt_level=0)
def noop_function(func, mod, ctx):
    return func


calls = 1000
python_passes = passline.Sequential([noop_module] * calls)
empty_pipelines = passline.Sequential([passline.Sequential([], name="Empty")] * calls)
per_python = best_of(runs * 4, lambda: python_passes(tiny)) / calls
per_empty = best_of(runs * 4, lambda: empty_pipelines(tiny)) / calls
functions = passline.IRModule.parse("\n".join(
    f"def @f{i}(%x: i64) -> i64 {{\n  add(%x, {i})\n}}\n" for i in range(100)))
function_passes = passline.Sequential([noop_function] * 10)
with passline.PassContext(config={"threads": 1}):
    per_function = best_of(runs * 4, lambda: function_passes(functions)) / (10 * 100)
print(f"no-op Python module pass from a C++ pipeline: {per_python * 1e9:.0f} ns per call")
print(f"no-op Python function pass: {per_function * 1e9:.0f} ns per function")
print(f"empty C++ pipeline, the floor: {per_empty * 1e9:.0f} ns per call")

#!/usr/bin/env python3
"""MLIR's own lit tests with passline-mlir-opt in mlir-opt's place.

The tests are MLIR 19's, from the source package of the installed MLIR
(./dev setup --peers fetches them), their RUN lines unchanged, run by LLVM's
lit with Debian's FileCheck, as llvm-lit runs them: MLIR's lit.cfg.py with a
site configuration that names this machine's LLVM and a tools directory
whose `mlir-opt` is passline-mlir-opt. The tests that passline-mlir-opt does
not pass are listed with their reasons in docs/mlir.md: each must fail here
(one that passes fails the run) and pass with mlir-opt-19 itself, or it is no
exception; every other test must pass. Prints the counts of files and RUN lines.

  run_mlir_tests.py --tests DIR --tool PASSLINE_MLIR_OPT --reference MLIR_OPT
                    --llvm-tools DIR --lit DIR --exceptions DOCS.md [--jobs N] PATH...
(each PATH is relative to DIR: a directory or a file of MLIR's tests)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SITE = """\
import sys
config.target_triple = "x86_64-pc-linux-gnu"
config.llvm_src_root = {tests!r} + "/../../llvm"
config.llvm_tools_dir = {llvm_tools!r}
config.llvm_shlib_ext = ".so"
config.llvm_shlib_dir = {llvm_lib!r}
config.python_executable = sys.executable
config.enable_assertions = False
config.native_target = "X86"
config.host_os = "Linux"
config.host_cc = "clang-19"
config.host_cxx = "clang++-19"
config.enable_libcxx = ""
config.host_cmake = "cmake"
config.host_cmake_generator = "Ninja"
config.llvm_use_linker = ""
config.llvm_use_sanitizer = ""
config.host_arch = "x86_64"
config.mlir_src_root = {tests!r} + "/.."
config.mlir_obj_root = {work!r}
config.mlir_tools_dir = {tools!r}
config.mlir_cmake_dir = {llvm_lib!r} + "/cmake/mlir"
config.mlir_lib_dir = {llvm_lib!r}
for name in ["build_examples", "run_nvptx_tests", "enable_cuda_runner", "run_rocm_tests", "enable_rocm_runner",
             "enable_sycl_runner", "enable_spirv_cpu_runner", "enable_vulkan_runner", "enable_bindings_python",
             "mlir_run_amx_tests", "mlir_run_arm_sve_tests", "mlir_run_arm_sme_tests", "mlir_run_x86vector_tests",
             "mlir_run_cuda_tensor_core_tests", "mlir_run_cuda_sm80_tests", "mlir_run_cuda_sm80_lt_tests",
             "mlir_run_cuda_sm90_tests", "mlir_include_integration_tests"]:
    setattr(config, name, False)
for name in ["gpu_compilation_format", "rocm_test_chipset", "intel_sde_executable", "mlir_run_riscv_vector_tests",
             "arm_emulator_executable", "arm_emulator_options", "arm_emulator_mlir_cpu_runner_executable",
             "arm_emulator_lli_executable", "arm_emulator_utils_lib_dir", "arm_sme_abi_routines_shlib",
             "riscv_vector_emulator_executable", "riscv_vector_emulator_options", "riscv_emulator_lli_executable",
             "riscv_emulator_utils_lib_dir"]:
    setattr(config, name, "")
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, {tests!r} + "/lit.cfg.py")
"""


# What lit reports for a test that passes, does not run here, or fails as
# its own XFAIL line expects (as with mlir-opt-19).
PASSING = {"PASS", "UNSUPPORTED", "XFAIL"}


def exceptions(docs):
    """The tests docs/mlir.md lists as not passing: `path` in a table row's first cell."""
    listed = []
    section = False
    with open(docs, encoding="utf-8") as text:
        for line in text:
            if line.startswith("#"):
                section = "MLIR's own tests" in line
            match = re.match(r"^\| `([^`]+\.mlir)` \|", line) if section else None
            if match:
                listed.append(match.group(1))
    return listed


def run_commands(path):
    """How many RUN commands a test file has (a RUN line ending in a backslash goes on)."""
    count = 0
    going_on = False
    with open(path, encoding="utf-8", errors="replace") as text:
        for line in text:
            at = line.find("RUN:")
            if at < 0:
                continue
            if not going_on:
                count += 1
            going_on = line.rstrip().endswith("\\")
    return count


def lit(args, tool, work, paths, extra):
    """Runs lit on `paths` with `tool` as mlir-opt; returns lit's exit code and its results by test."""
    tools = os.path.join(work, "tools")
    os.makedirs(tools, exist_ok=True)
    os.symlink(tool, os.path.join(tools, "mlir-opt"))
    site = os.path.join(work, "lit.site.cfg.py")
    with open(site, "w", encoding="utf-8") as out:
        out.write(SITE.format(tests=args.tests, llvm_tools=args.llvm_tools, llvm_lib=os.path.dirname(args.llvm_tools) + "/lib",
                              work=work, tools=tools))
    results = os.path.join(work, "results.json")
    # llvm-lit's way: MLIR's lit.cfg.py is read after the site configuration it maps to.
    runner = ("import sys; sys.path.insert(0, {lit!r}); from lit.main import main; "
              "main({{'config_map': {{{config!r}: {site!r}}}}})").format(
                  lit=args.lit, config=os.path.normcase(os.path.join(args.tests, "lit.cfg.py")), site=site)
    command = [sys.executable, "-c", runner, "-q", "-j", str(args.jobs), "-o", results] + extra + \
              [os.path.join(args.tests, path) for path in paths]
    code = subprocess.run(command, check=False).returncode
    by_test = {}
    if os.path.exists(results):
        with open(results, encoding="utf-8") as text:
            for test in json.load(text)["tests"]:
                by_test[test["name"].split(" :: ", 1)[1]] = test["code"]
    return code, by_test


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--tests", "--tool", "--reference", "--llvm-tools", "--lit", "--exceptions"]:
        parser.add_argument(flag, required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    # lit maps configurations by their real paths: MLIR's tests may stand behind a link.
    args.tests = os.path.realpath(args.tests)
    # The tools are linked from lit's own directory: a relative path would not find them.
    args.tool, args.reference = os.path.abspath(args.tool), os.path.abspath(args.reference)
    if not os.path.exists(os.path.join(args.tests, "lit.cfg.py")):
        print(f"MLIR's tests are not in {args.tests}: ./dev setup --peers fetches them")
        return 1
    listed = exceptions(args.exceptions)
    with tempfile.TemporaryDirectory() as ours_work, tempfile.TemporaryDirectory() as theirs_work:
        # lit's own exit code is not read: the listed tests fail, and Debian's
        # lit would not count one that passes (XPASS) as a failure anyway.
        _, ours = lit(args, args.tool, ours_work, args.paths, [])
        failures = 0
        failing = sorted(name for name, result in ours.items() if result not in PASSING and name not in listed)
        passing = sorted(name for name, result in ours.items() if result in PASSING and name in listed)
        if failing or not ours:
            print("passline-mlir-opt fails MLIR's tests that docs/mlir.md does not list: " + ", ".join(failing))
            failures += 1
        if passing:
            print("passline-mlir-opt passes tests that docs/mlir.md lists as not passing: " + ", ".join(passing))
            failures += 1
        missing = [path for path in listed if path not in ours]
        if missing:
            print("docs/mlir.md lists tests that did not run: " + ", ".join(missing))
            failures += 1
        # Each exception must be one of passline-mlir-opt's, not a test that fails here anyway.
        if listed:
            code, theirs = lit(args, args.reference, theirs_work, listed, [])
            if code != 0:
                print(f"{args.reference} fails tests that docs/mlir.md lists as passline-mlir-opt's exceptions (above)")
                failures += 1
        lines = {name: run_commands(os.path.join(args.tests, name)) for name in ours}
        total = sum(lines.values())
        excepted = sum(lines[name] for name in listed if name in lines)
        passed = sum(1 for name, result in ours.items() if result == "PASS")
        print(f"MLIR's tests with passline-mlir-opt as mlir-opt: {passed} of {len(ours)} files pass "
              f"({total - excepted} of {total} RUN lines); {len(listed)} files listed in docs/mlir.md "
              f"({excepted} RUN lines, {100.0 * excepted / max(total, 1):.1f}%)")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

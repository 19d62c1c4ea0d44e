#!/usr/bin/env python3
"""passline-mlir-opt reads and writes MLIR as mlir-opt-19 does, byte for byte.

Every .mlir file of the given directories of MLIR's tests is read and
written back (no pass) by both tools, each chunk of it apart
(-split-input-file), unregistered dialects allowed: as text, as text with
debug information (-mlir-print-debuginfo) and as bytecode (--emit-bytecode),
passline-mlir-opt on one thread and on two (where it reads and writes a
module's top-level operations on its threads). For each file and each way,
the two tools must both accept it with the same output bytes, or both refuse
it; the counts are printed.

  roundtrip.py --tool PASSLINE_MLIR_OPT --reference MLIR_OPT --tests MLIR_TEST_DIR DIR...
"""
import argparse
import concurrent.futures
import os
import pathlib
import subprocess
import sys
import tempfile

WAYS = {"text": [], "debuginfo": ["-mlir-print-debuginfo"], "bytecode": ["--emit-bytecode"]}
THREADS = [1, 2]


def run(command, out):
    done = subprocess.run(command + ["-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    data = pathlib.Path(out).read_bytes() if done.returncode == 0 and os.path.exists(out) else None
    return done.returncode == 0, data


def check(args, work, index, path):
    """The differences between the tools on one file: a list of messages."""
    common = [str(path), "-allow-unregistered-dialect", "-split-input-file"]
    found = []
    accepted = {}
    for way, flags in WAYS.items():
        ok, expected = run([args.reference] + common + flags, os.path.join(work, f"{index}.{way}.mlir"))
        accepted[way] = ok
        for threads in THREADS:
            mine_ok, mine = run([args.tool] + common + flags + [f"--threads={threads}"],
                                os.path.join(work, f"{index}.{way}.{threads}.passline"))
            if mine_ok != ok:
                found.append(f"{path}: {way}, {threads} thread(s): mlir-opt-19 {'accepts' if ok else 'refuses'} it, "
                             f"passline-mlir-opt {'accepts' if mine_ok else 'refuses'} it")
            elif ok and mine != expected:
                found.append(f"{path}: {way}, {threads} thread(s): the output differs from mlir-opt-19's")
    return path, all(accepted.values()), found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--tests", required=True, help="MLIR's mlir/test directory")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("paths", nargs="+", help="directories of it, as the lit run names them")
    args = parser.parse_args()
    files = sorted(f for p in args.paths for f in pathlib.Path(args.tests, p).rglob("*.mlir"))
    if not files:
        print(f"no .mlir files under {args.tests} in {' '.join(args.paths)}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda item: check(args, work, *item), enumerate(files)))
    both = sum(1 for _, accepted, found in results if accepted and not found)
    differences = [line for _, _, found in results for line in found]
    for line in differences:
        print(line)
    runs = len(WAYS) * len(THREADS)
    print(f"{len(files)} files of MLIR's tests read and written by both tools in {len(WAYS)} ways, passline-mlir-opt "
          f"on 1 and 2 threads ({runs} runs each): {both} accepted by both with the same bytes in every way, "
          f"{len(files) - both - len({r[0] for r in results if r[2]})} refused by both in some way, "
          f"{len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Hostile pipelines and inputs for passline-mlir-opt, against mlir-opt-19.

Pipelines are built from the passes mlir-opt-19's --help lists (not the
test passes, some of which crash on purpose), in every form mlir-opt takes
(pass flags, --pass-pipeline with nesting) and passline's --passes (given
to mlir-opt-19 as its pass flags, or --pass-pipeline=builtin.module(...)), then
mutated: characters dropped, doubled or swapped for ones the grammar cares
about (braces, parentheses, quotes, commas, '='), options with odd values.
Inputs are the corpus's modules, some cut short. Each case runs in both
tools with a time limit; a case fails when passline-mlir-opt dies by a
signal or hangs where mlir-opt-19 does not. Deterministic for a seed.

  mutate_pipelines.py PASSLINE_MLIR_OPT MLIR_OPT CORPUS_DIR CASES [SEED]
Prints the counts: cases, exit codes alike, signals and hangs of each tool.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

TIME_LIMIT = 20


def passes(mlir_opt):
    help_text = subprocess.run([mlir_opt, "--help"], capture_output=True, text=True, check=True).stdout
    names = re.findall(r"^      --([a-z0-9][a-z0-9-]*) ", help_text, re.M)
    # Not mlir-opt's own flags, and not the test passes (some crash on purpose).
    return sorted({n for n in names if not n.startswith(("test-", "mlir-", "pass-pipeline", "split-input", "verify-",
                                                          "allow-", "dump-", "emit-", "load-", "log-", "show-",
                                                          "no-implicit", "run-reproducer", "irdl", "elide",
                                                          "output-split", "debug", "print-", "profile-",
                                                          "help", "version"))})


ODD = ['{', '}', '(', ')', '"', ',', '=', ' ', "'", '\\', '{}', '()', '""', 'any(', 'func.func(', '\x00', '\xff']
VALUES = ['0', '-1', '1', '18446744073709551616', 'true', 'false', '""', '"}"', '{', 'a,b', '(x)', '"{ }"', 'x' * 300]


def pipeline(rng, names):
    chosen = [rng.choice(names) for _ in range(rng.randint(1, 4))]

    def element(name):
        if rng.random() < 0.3:
            return f"{name}{{{rng.choice(['max-iterations', 'top-down', 'filter-dialects', name])}={rng.choice(VALUES)}}}"
        return name

    form = rng.choice(["flags", "pipeline", "nested", "passline"])
    if form == "flags":
        return ["--" + element(n).replace("{", "=").rstrip("}") for n in chosen]
    if form == "pipeline":
        return ["--pass-pipeline=builtin.module(" + ",".join(element(n) for n in chosen) + ")"]
    if form == "nested":
        anchor = rng.choice(["func.func", "any", "builtin.module", "gpu.module", "llvm.func"])
        return ["--pass-pipeline=builtin.module(" + anchor + "(" + ",".join(element(n) for n in chosen) + "))"]
    return ["--passes=" + ",".join(element(n) for n in chosen)]


def mutate(rng, words):
    words = list(words)
    for _ in range(rng.randint(0, 3)):
        i = rng.randrange(len(words))
        word = words[i]
        at = rng.randrange(len(word) + 1)
        kind = rng.random()
        if kind < 0.4:
            word = word[:at] + rng.choice(ODD) + word[at:]
        elif kind < 0.7 and len(word) > 1:
            word = word[:at] + word[at + 1:]
        else:
            word = word[:at] + word[at:at + 4] * 2 + word[at + 4:]
        words[i] = word
    return words


def as_mlir_opt(word):
    """passline's --passes as mlir-opt takes it: names alone as pass flags (each
    nested as mlir-opt nests a flag, as passline does), else --pass-pipeline."""
    if not word.startswith("--passes="):
        return [word]
    text = word[len("--passes="):]
    if re.fullmatch(r"[a-z0-9-]+(,[a-z0-9-]+)*", text):
        return ["--" + name for name in text.split(",")]
    return ["--pass-pipeline=builtin.module(" + text + ")"]


def run(tool, input_file, words, work):
    try:
        done = subprocess.run([tool, input_file, *words, "-o", os.path.join(work, "out.mlir")], capture_output=True,
                              timeout=TIME_LIMIT, check=False)
        return done.returncode
    except subprocess.TimeoutExpired:
        return "hang"
    except ValueError:  # a NUL byte in an argument: neither tool can be given it
        return None


def main():
    ours, theirs, corpus, cases = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 47)
    names = passes(theirs)
    inputs = [os.path.join(corpus, f) for f in sorted(os.listdir(corpus)) if f.endswith(".mlir")]
    counts = {"cases": 0, "alike": 0, "our signals": 0, "our hangs": 0, "their signals": 0, "their hangs": 0}
    failures = []
    with tempfile.TemporaryDirectory() as work:
        cut = os.path.join(work, "cut.mlir")
        for case in range(cases):
            words = mutate(rng, pipeline(rng, names))
            input_file = rng.choice(inputs)
            if rng.random() < 0.1:
                with open(input_file, "rb") as source, open(cut, "wb") as out:
                    text = source.read()
                    out.write(text[: rng.randrange(len(text) + 1)])
                input_file = cut
            mine = run(ours, input_file, words, work)
            if mine is None:
                continue
            their_words = [word for w in words for word in as_mlir_opt(w)]
            theirs_code = run(theirs, input_file, their_words, work)
            counts["cases"] += 1
            counts["alike"] += mine == theirs_code
            for who, code in (("our", mine), ("their", theirs_code)):
                if code == "hang":
                    counts[f"{who} hangs"] += 1
                elif isinstance(code, int) and code < 0:
                    counts[f"{who} signals"] += 1
            bad = mine == "hang" or (isinstance(mine, int) and mine < 0)
            theirs_bad = theirs_code == "hang" or (isinstance(theirs_code, int) and theirs_code < 0)
            if bad and not theirs_bad:
                failures.append(f"case {case}: {mine} where mlir-opt-19 gave {theirs_code}: {words!r} on {input_file}")
    print(", ".join(f"{key}: {value}" for key, value in counts.items()))
    for failure in failures[:20]:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

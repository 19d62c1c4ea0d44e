#!/usr/bin/env python3
"""Each part of a module's interface unit, read alone: compiled by itself,
and in its layer.

    check_parts.py --unit UNIT.cppm --compiler CXX --modmap FILE [--flag F]...
                   [--jobs N] [--self-test]

UNIT.cppm includes its parts (`#include "layer/part.inc"`) in their layers'
order; a part read alone (PASSLINE_MODULE_UNIT not defined) includes the
headers and the parts it uses. For each part this checks:

- it compiles alone: `CXX -fsyntax-only` on the part, with the flags the unit
  is compiled with (--flag) and the modules it imports (--modmap, the unit's
  `-fmodule-file=` lines); a name it uses that no include of its own brings
  is an error of the compiler;
- its includes of other parts name parts of its own layer or of an earlier
  one (the order of the layers is the order of their first parts in UNIT);
- a name it only declares (`template <class IR> const X& f();`,
  `class X;`) is defined in a part of its own layer or an earlier one: no
  part reaches up to a later layer through a declaration.

--self-test plants a use of a later layer's name in a copy of the parts (a
core part naming the pipeline layer's `detail::Run`, then a forward
declaration of it) and checks that each is found. It prints what it checked
and exits 1 on any failure.
"""
import argparse
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile


def parts_of(unit):
    """(part path relative to the unit's folder, layer index), in the unit's order."""
    parts, layers = [], []
    for rel in re.findall(r'^#include "([\w/]+\.inc)"', unit.read_text(), re.M):
        layer = rel.split("/")[0]
        if layer not in layers:
            layers.append(layer)
        parts.append((rel, layers.index(layer)))
    return parts, layers


def part_includes(folder, rel):
    """The parts that part `rel` includes, as paths relative to `folder`."""
    path = folder / rel
    out = []
    for included in re.findall(r'^#include "([^"]+\.inc)"', path.read_text(), re.M):
        out.append(str((path.parent / included).resolve().relative_to(folder.resolve())))
    return out


def namespace_declarations(text):
    """Names declared but not defined at namespace scope: functions ending in `;`
    and classes declared `class X;`, skipping class bodies and functions."""
    names = []
    depth_kinds = []  # for each open brace: whether it opened a namespace
    statement = ""
    for raw in text.splitlines():
        line = re.sub(r"//.*", "", raw)
        if line.lstrip().startswith("#"):
            continue
        for ch in line:
            if ch == "{":
                depth_kinds.append(bool(re.search(r"\bnamespace\b[\w\s:]*$", statement)))
                statement = ""
            elif ch == "}":
                if depth_kinds:
                    depth_kinds.pop()
                statement = ""
            elif ch == ";":
                if all(depth_kinds):
                    stmt = " ".join(statement.split())
                    forward_class = re.fullmatch(r"(?:template\s*<.*>\s*)?(?:class|struct)\s+(\w+)", stmt)
                    function = re.fullmatch(r"(?:template\s*<.*>\s*)?(?!using\b|return\b|typedef\b)"
                                            r"[\w:<>,&*\s]+?[\s&*](\w+)\s*\([^()]*\)\s*(?:const)?\s*(?:noexcept)?", stmt)
                    match = forward_class or function
                    if match and not stmt.startswith(("using ", "namespace ")):
                        names.append(match.group(1))
                statement = ""
            else:
                statement += ch
        statement += " "
    return names


def definitions(text, name):
    """Whether `text` defines `name`: a class with a body or a function with one."""
    return re.search(rf"\b(?:class|struct)\s+{name}\b[^;{{]*\{{", text) is not None or \
        re.search(rf"\b{name}\s*\([^;{{}}]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:->[^;{{]*)?\{{", text) is not None


def check(folder, unit_name, compiler, flags, jobs, quiet=False, compile_only=None):
    """The failures found in the parts of `folder / unit_name` (compiling
    only the parts `compile_only` names, when given)."""
    unit = folder / unit_name
    parts, layers = parts_of(unit)
    layer_of = dict(parts)
    failures = []
    texts = {rel: (folder / rel).read_text() for rel, _ in parts}

    for rel, layer in parts:
        for included in part_includes(folder, rel):
            if included not in layer_of:
                failures.append(f"{rel}: includes {included}, which is no part of {unit_name}")
            elif layer_of[included] > layer:
                failures.append(f"{rel}: includes {included}, of the later layer "
                                f"'{layers[layer_of[included]]}' ({layers[layer]} comes first)")
        for name in namespace_declarations(texts[rel]):
            if definitions(texts[rel], name):
                continue
            later = [other for other, other_layer in parts
                     if other_layer > layer and definitions(texts[other], name)]
            if later:
                failures.append(f"{rel}: declares {name}, which {later[0]} of the later layer "
                                f"'{layers[layer_of[later[0]]]}' defines")

    def compile_alone(rel):
        done = subprocess.run([compiler, *flags, "-fsyntax-only", "-x", "c++", str(folder / rel)],
                              capture_output=True, text=True)
        return rel, done.returncode, done.stderr

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for rel, code, stderr in pool.map(compile_alone, [rel for rel, _ in parts
                                                          if compile_only is None or rel in compile_only]):
            if code != 0:
                errors = [line for line in stderr.splitlines() if ": error: " in line]
                failures.append(f"{rel}: does not compile alone: " + (errors[0] if errors else stderr[-400:]))
            elif not quiet:
                print(f"ok: {rel} compiles alone")
    return failures, len(parts)


def self_test(folder, unit_name, compiler, flags):
    """Plants upward uses in a copy of the parts; each must be found."""
    failures = []
    with tempfile.TemporaryDirectory() as work:
        copy = pathlib.Path(work) / "unit"
        shutil.copytree(folder, copy)
        parts, _ = parts_of(copy / unit_name)
        first_core = copy / parts[0][0]
        original = first_core.read_text()
        plants = {
            "a use of a later layer's name": "namespace passline::detail { inline int planted = sizeof(Run<int>); }\n",
            "a declaration of a later layer's name":
                "namespace passline::detail { template <class IR> class Run; }\n",
        }
        for what, plant in plants.items():
            first_core.write_text(original + plant)
            found, _ = check(copy, unit_name, compiler, flags, jobs=2, quiet=True, compile_only=[parts[0][0]])
            named = [f for f in found if f.startswith(parts[0][0])]
            print(("ok: " if named else "FAIL: ") + f"the check finds {what} planted in {parts[0][0]}" +
                  (f": {named[0]}" if named else ""))
            if not named:
                failures.append(what)
        first_core.write_text(original)
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--unit", required=True)
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--modmap", required=True)
    parser.add_argument("--flag", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    unit = pathlib.Path(args.unit).resolve()
    modmap = pathlib.Path(args.modmap)
    # The modules the unit imports, as its compile line gives them (paths
    # relative to the build directory, where the test runs).
    flags = list(args.flag)
    for line in modmap.read_text().splitlines():
        match = re.match(r"-fmodule-file=([\w.:]+)=(.*)", line.strip())
        if match:
            path = pathlib.Path(match.group(2))
            flags.append(f"-fmodule-file={match.group(1)}={path if path.is_absolute() else pathlib.Path.cwd() / path}")
    failures, count = check(unit.parent, unit.name, args.compiler, flags, args.jobs)
    if args.self_test:
        failures += [f"self-test: {what} was not found" for what in self_test(unit.parent, unit.name, args.compiler, flags)]
    for failure in failures:
        print("FAIL:", failure)
    print(f"{count} parts of {unit.name} checked; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

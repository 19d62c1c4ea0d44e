#!/usr/bin/env python3
"""The names a module's interface units export, by reading their source.

    exported_names.py [--max N] [--module NAME] DIR...

Reads every `*.cppm` under each DIR (with --module, only the units of the
named module NAME: `export module NAME;` and its partitions), and the files
each includes with `#include "..."` (the parts of its interface), and lists, one per line, each name
declared at namespace scope inside an `export namespace NS {` or `export {`
block (in a part, `PASSLINE_EXPORT`, which its unit defines as `export`), qualified by the namespaces it is in (`passline::Pass`,
`passline::config::threads`), with the file it comes from. A nested
namespace inside an export block counts as exported, so an exported
`detail` shows as one. With --max N, exits 1 when there are more than N
names, when there are none (the reading found no export), or when any
exported name is in a namespace called `detail`.
"""
import pathlib
import re
import sys

TYPE = re.compile(r"\b(?:class|struct|union|concept|enum(?:\s+class)?)\s+([A-Za-z_]\w*)")
ALIAS = re.compile(r"^using\s+([A-Za-z_]\w*)\s*=")
KEYWORDS = {"requires", "decltype", "noexcept", "sizeof", "alignof", "operator", "static_assert"}


def drop_template_heads(statement: str) -> str:
    """The statement without its `template <...>` heads."""
    while True:
        match = re.match(r"\s*template\s*<", statement)
        if not match:
            return statement
        depth, i = 1, match.end()
        while i < len(statement) and depth:
            depth += {"<": 1, ">": -1}.get(statement[i], 0)
            i += 1
        statement = statement[i:]


def top_level(statement: str):
    """(index, character) of the characters outside parentheses."""
    depth = 0
    for i, c in enumerate(statement):
        if c == "(":
            depth += 1
            if depth == 1:
                yield i, c
            continue
        if c == ")":
            depth -= 1
            continue
        if depth == 0:
            yield i, c


def strip(text: str) -> str:
    """Source without comments, and with string and character literals emptied."""
    out = []
    i = 0
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            delimiter = text[i + 2:text.index("(", i)]
            i = text.index(")" + delimiter + '"', i) + len(delimiter) + 2
            out.append('""')
        elif text[i] in "\"'":
            quote = text[i]
            if quote == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                i += 1
                continue
            i += 1
            while text[i] != quote:
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(quote * 2)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def declared_name(statement: str):
    statement = " ".join(statement.split())
    if not statement or statement.startswith(("static_assert", "friend", "namespace", "#")):
        return None
    statement = drop_template_heads(statement).strip()
    if match := ALIAS.match(statement):
        return match.group(1)
    if match := TYPE.search(statement):
        return match.group(1)
    # A function: the last name called at the top before any initializer.
    name = None
    for i, c in top_level(statement):
        if c == "=":
            break
        if c == "(":
            found = re.search(r"([A-Za-z_]\w*)\s*$", statement[:i])
            if found and found.group(1) not in KEYWORDS:
                name = found.group(1)
    if name:
        return name
    found = re.search(r"([A-Za-z_]\w*)\s*(?:=|\{|;|$)", statement)
    return found.group(1) if found else None


def exported(path: pathlib.Path):
    text = strip(path.read_text())
    i = 0
    while True:
        match = re.compile(r"\b(?:export|PASSLINE_EXPORT)\s+(?:namespace\s+([\w:]+)\s*)?\{").search(text, i)
        if not match:
            return
        scope = match.group(1).split("::") if match.group(1) else []
        i = walk(text, match.end(), scope, path)


def matching_brace(text, i):
    """The index after the brace that closes the one at i."""
    depth = 0
    while True:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            return i


def walk(text, i, scope, path):
    """Names at the top of the block opened before i; returns the end of the block."""
    statement = ""
    depth = 0
    while i < len(text):
        c = text[i]
        if depth == 0:
            nested = re.compile(r"namespace\s+([\w:]+)\s*\{").match(text, i)
            if nested and not statement.strip():
                for name in nested.group(1).split("::"):
                    pass
                i = walk(text, nested.end(), scope + nested.group(1).split("::"), path)
                continue
        if c == "{" and depth == 0 and (
            statement.count("(") > statement.count(")")
            or re.search(r"\brequires\s*(\([^()]*\))?\s*$", statement)
        ):
            # Braces inside parentheses (a default argument), or a
            # requires-expression: part of the statement, not a body.
            end = matching_brace(text, i)
            statement += text[i:end]
            i = end
            continue
        if c == "{":
            if depth == 0:
                name = declared_name(statement)
                if name:
                    yield_name(scope, name, path)
                    statement = "\0"  # named: the rest of the statement is its body
            depth += 1
        elif c == "}":
            if depth == 0:
                return i + 1
            depth -= 1
            if depth == 0 and statement == "\0":
                statement = ""
        elif c == ";" and depth == 0:
            if statement != "\0":
                name = declared_name(statement)
                if name:
                    yield_name(scope, name, path)
            statement = ""
        elif depth == 0 and statement != "\0":
            statement += c
        i += 1
    return i


found = {}


def yield_name(scope, name, path):
    found.setdefault("::".join(scope + [name]), path.name)


def main() -> int:
    args = sys.argv[1:]
    limit = None
    module = None
    while args[:1] in (["--max"], ["--module"]):
        if args[0] == "--max":
            limit = int(args[1])
        else:
            module = args[1]
        args = args[2:]
    for directory in args:
        for path in sorted(pathlib.Path(directory).rglob("*.cppm")):
            if module is None or re.search(rf"^export module {re.escape(module)}(:\w+)?;", path.read_text(), re.M):
                exported(path)
                # The parts an interface unit includes in its purview are its interface too.
                for part in re.findall(r'^#include "([^"]+)"', path.read_text(), re.M):
                    exported(path.parent / part)
    for name in sorted(found):
        print(f"{name}  ({found[name]})")
    details = [name for name in found if "::detail::" in name]
    print(f"{len(found)} names exported; {len(details)} in a detail namespace")
    if limit is not None and (len(found) > limit or not found or details):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

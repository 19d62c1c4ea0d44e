#!/usr/bin/env python3
"""Every test that starts Python starts it in the one environment of
cmake/PasslinePythonTests.cmake: through its launcher, which preloads the
sanitizer runtime under the sanitizer presets and puts the package on the
path. Read from the tests CTest would run (`ctest --show-only=json-v1`):

1. no test's command names a Python interpreter but the launcher (a word
   of the command, or of a `-DCOMMAND=` list that a CMake script runs);
2. a test that runs a script (`.sh`, or a `.py` file through its `#!`) has
   the launcher's directory first on its PATH, so that `python3` and
   `#!/usr/bin/env python3` there are the launcher;
3. no such script names an interpreter by its path (`/usr/bin/python3`),
   unless the line says why with `own Python:` (a virtual environment's).

    check.py --ctest CTEST --build BUILD_DIR --launcher LAUNCHER [--self-test]

Prints each test that breaks a rule, and exits 1 if one does.
"""
import argparse
import json
import os
import re
import subprocess
import sys

INTERPRETER = re.compile(r"(^|/)python[0-9.]*$")
# A path to an interpreter in a line of shell: /usr/bin/python3, $dir/venv/bin/python.
INTERPRETER_PATH = re.compile(r"(^|[\s\"'=(])(/|\$\{?\w+\}?/)[^\s\"']*/python[0-9.]*(?=$|[\s\"';)])")


def words_of(command):
    """The words a test's command runs, the lists CMake scripts run included."""
    words = []
    for word in command:
        if word.startswith("-DCOMMAND="):
            words.extend(word[len("-DCOMMAND="):].split(";"))
        else:
            words.append(word)
    return words


def path_first(test, directory):
    """Whether the test's environment puts `directory` first on its PATH."""
    for prop in test.get("properties", []):
        if prop.get("name") == "ENVIRONMENT_MODIFICATION":
            if f"PATH=path_list_prepend:{directory}" in prop.get("value", []):
                return True
    return False


def problems(tests, launcher):
    directory = os.path.dirname(launcher)
    found = []
    for test in tests:
        name = test["name"]
        words = words_of(test.get("command") or [])
        for word in words:
            if INTERPRETER.search(word) and not os.path.isdir(word) and os.path.abspath(word) != os.path.abspath(launcher):
                found.append(f"{name}: starts Python as {word}, not through {launcher}")
        scripts = [w for w in words if w.endswith((".sh", ".py")) and os.path.isfile(w)]
        runs_scripts = scripts or any(os.path.basename(w) in ("bash", "sh") for w in words)
        if runs_scripts and not path_first(test, directory):
            found.append(f"{name}: runs a script without {directory} first on its PATH")
        for script in scripts:
            if not script.endswith(".sh"):
                continue
            with open(script, encoding="utf-8") as text:
                for number, line in enumerate(text, 1):
                    code = line.split("#", 1)[0] if not line.lstrip().startswith("#!") else ""
                    if INTERPRETER_PATH.search(code) and "own Python:" not in line:
                        found.append(f"{name}: {script}:{number} starts Python by its path: {line.strip()}")
    return found


def self_test(launcher):
    """The rules catch what they are for: each broken test is found, the sound one is not."""
    directory = os.path.dirname(launcher)
    path = [{"name": "ENVIRONMENT_MODIFICATION", "value": [f"PATH=path_list_prepend:{directory}"]}]
    sound = {"name": "sound", "command": [launcher, "x.py"], "properties": path}
    direct = {"name": "direct", "command": ["/usr/bin/python3", "x.py"], "properties": path}
    scripted = {"name": "scripted", "command": ["cmake", "-DCOMMAND=/usr/bin/python3;x.py", "-P", "r.cmake"],
                "properties": path}
    no_path = {"name": "no_path", "command": ["bash", __file__.replace(".py", ".sh")], "properties": []}
    names = {p.split(":")[0] for p in problems([sound, direct, scripted, no_path], launcher)}
    expected = {"direct", "scripted", "no_path"}
    lines = ['x=1', '/usr/bin/python3 - <<EOF', '"$work/venv/bin/python" -c 1', 'python3 -c 1', 'echo python3']
    caught = [bool(INTERPRETER_PATH.search(line)) for line in lines]
    if names != expected or caught != [False, True, True, False, False]:
        print(f"self-test: found {sorted(names)}, expected {sorted(expected)}; lines caught {caught}")
        return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ctest", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test and not self_test(args.launcher):
        return 1
    listed = subprocess.run([args.ctest, "--show-only=json-v1"], cwd=args.build, capture_output=True, text=True,
                            check=True)
    tests = json.loads(listed.stdout)["tests"]
    found = problems(tests, args.launcher)
    for problem in found:
        print(problem)
    starting = sum(1 for t in tests if any(os.path.abspath(w) == os.path.abspath(args.launcher)
                                           for w in words_of(t.get("command") or [])))
    print(f"{len(tests)} tests read, {starting} start Python through the launcher; {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""passline-opt's --report page, opened as a person opens it: in headless
Chromium (Debian's chromium and chromium-driver, through Selenium).

    browser_test.py PASSLINE_OPT EXAMPLES_DIR [--mlir-opt PASSLINE_MLIR_OPT]
                    [--python-path DIR] [--screenshot PATH]
    browser_test.py --page REPORT --passes A,B,...

Runs O2 on examples/ir/cleanup.ir on one thread and on two, and a run that
fails (examples/ir/failing/mixed_types.ir); checks that the two reports are
the same bytes apart from their times; then opens the reports from file://,
checks that the page logs no error, finds the plan, the timeline's bars, a
diff it opens by clicking, the pass graph, and the failing run's error, and
saves a screenshot (into the test's own directory unless --screenshot names
a path: docs/debugging.md's picture is made so).

Then reports of runs whose names and messages are hostile to a page: MLIR
functions and an MLIR location (in a diagnostic) holding `<!--`, `<script>`,
`</script>`, quotes, `&`, U+2028 and control characters (with --mlir-opt),
and Python passes named so (with --python-path, where the package is). Each
page must draw every timeline bar, diff and diagnostic that the same run with
plain names draws, and show the hostile texts as text.

With --page, opens one report another tool wrote (stack-opt's, of
examples/your-own-tool) and checks that it logs no error and that the
timeline has a bar for each of the passes named.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

TIMES = re.compile(r'<script type="application/json" id="times">.*?</script>', re.S)
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def run(tool, *args, expect=0):
    done = subprocess.run([tool, *args], capture_output=True, text=True)
    check(done.returncode == expect, f"passline-opt {' '.join(args[1:])} exits {expect} (got {done.returncode}: "
                                     f"{done.stderr.strip()[:200]})")
    return done


def browser(profile):
    options = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,1400", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


HOSTILE = ["a<!--<script>", "</script><b>x", "q\"'&amp;", "t\u2028\u2029\t\x01"]


def mlir_string(text):
    """`text` as an MLIR string literal: non-printable bytes as \\XX escapes."""
    out = ""
    for byte in text.encode():
        ch = chr(byte)
        out += ch if 32 <= byte < 127 and ch not in '"\\' else f"\\{byte:02X}"
    return f'"{out}"'


def mlir_module(names, location):
    """A function per name, each one canonicalize changes; the last with a
    branch at `location` (a file name), which remove-dead-values reports an
    error on."""
    text = ""
    for name in names[:-1]:
        text += (f"func.func @{mlir_string(name)}(%a: i32) -> i32 {{\n  %c0 = arith.constant 0 : i32\n"
                 f"  %x = arith.addi %a, %c0 : i32\n  return %x : i32\n}}\n")
    text += (f"func.func @{mlir_string(names[-1])}(%a: i32) -> i32 {{\n  %c0 = arith.constant 0 : i32\n"
             f"  %x = arith.addi %a, %c0 : i32\n  cf.br ^next(%x : i32) loc({mlir_string(location)}:3:5)\n"
             f"^next(%z: i32):\n  return %z : i32\n}}\n")
    return text


PYTHON_RUN = """
import sys
import passline
from passline import instrument
names, path = sys.argv[1:-1], sys.argv[-1]
source = "def @main(%x: i64) -> i64 {\\n  add(mul(%x, 1), 0)\\n}\\ndef @f(%y: i64) -> i64 {\\n  sub(%y, 0)\\n}\\n"
passes = [passline.function_pass(lambda f, m, c: f, name=n) for n in names]
with passline.PassContext(instruments=[instrument.Report(path)]):
    passline.Sequential(passes + [passline.parse_pipeline("SimplifyExpr")])(passline.IRModule.parse(source))
"""


def page_contents(driver, uri):
    """What a page draws: bar titles, diff summaries, diagnostics' text."""
    driver.get(uri)
    errors = console_errors(driver)
    titles = [t.get_attribute("textContent") for t in
              driver.find_elements(By.CSS_SELECTOR, "#timeline-chart svg g.bar title")]
    diffs = [d.get_attribute("textContent") for d in driver.find_elements(By.CSS_SELECTOR, "#changes details.diff")]
    diagnostics = driver.find_elements(By.CSS_SELECTOR, "#diagnostics pre")
    return {"errors": errors, "titles": titles, "diffs": diffs,
            "diagnostics": diagnostics[0].get_attribute("textContent") if diagnostics else "",
            "sections": [s.get_attribute("id") for s in driver.find_elements(By.CSS_SELECTOR, "body > section")]}


def check_hostile(driver, kind, plain, hostile, texts):
    """`hostile` draws what `plain` draws, and shows each of `texts`."""
    check(hostile["errors"] == [], f"{kind}: the hostile page logs no error: {hostile['errors']}")
    check(hostile["sections"] == plain["sections"], f"{kind}: the hostile page has every section "
                                                    f"({hostile['sections']} against {plain['sections']})")
    check(len(hostile["titles"]) == len(plain["titles"]) and len(plain["titles"]) > 0,
          f"{kind}: every timeline bar is drawn ({len(hostile['titles'])} against {len(plain['titles'])})")
    check(len(hostile["diffs"]) == len(plain["diffs"]) and len(plain["diffs"]) > 0,
          f"{kind}: every diff is there ({len(hostile['diffs'])} against {len(plain['diffs'])})")
    check(hostile["diagnostics"].count("\n") == plain["diagnostics"].count("\n"),
          f"{kind}: every diagnostic is there")
    shown = " ".join(hostile["titles"]) + hostile["diagnostics"]
    for text in texts:
        check(text in shown, f"{kind}: {json.dumps(text)} is shown as text")


def hostile_mlir(driver, mlir_opt, work):
    pages = {}
    for kind, names, location in (("plain", ["p0", "p1", "p2", "p3", "p4"], "plain"),
                                  ("hostile", HOSTILE + ["<!--br"], "<!--</script><script>loc")):
        source = work / f"{kind}.mlir"
        source.write_text(mlir_module(names, location))
        page = work / f"{kind}-mlir.html"
        # affine-loop-normalize, anchored on func.func, runs function by function: a bar each.
        done = subprocess.run([mlir_opt, str(source), "-remove-dead-values", "-affine-loop-normalize", "-canonicalize",
                               "-cse", "--threads=2", f"--report={page}", "-o", str(work / f"{kind}-out.mlir")],
                              capture_output=True, text=True)
        check(done.returncode == 0, f"passline-mlir-opt on the {kind} module exits 0 ({done.returncode}: "
                                    f"{done.stderr.strip()[:300]})")
        pages[kind] = page_contents(driver, page.as_uri())
    check_hostile(driver, "MLIR", pages["plain"], pages["hostile"],
                  ["affine-loop-normalize on " + name for name in HOSTILE if "\x01" not in name] +
                  ["<!--</script><script>loc:3:5"])


def hostile_python(driver, python_path, work):
    pages = {}
    env = dict(os.environ, PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE="1")
    for kind, names in (("plain", ["P0", "P1", "P2", "P3"]), ("hostile", HOSTILE)):
        page = work / f"{kind}-python.html"
        done = subprocess.run([sys.executable, "-c", PYTHON_RUN, *names, str(page)], capture_output=True, text=True,
                              env=env)
        check(done.returncode == 0, f"the Python run with {kind} pass names exits 0 ({done.stderr.strip()[-300:]})")
        pages[kind] = page_contents(driver, page.as_uri())
    check_hostile(driver, "Python", pages["plain"], pages["hostile"],
                  [f"{name} on main" for name in HOSTILE if "\x01" not in name])


def check_page(page, passes):
    """The report `page` opens without error and its timeline has a bar for each of `passes`."""
    work = pathlib.Path(tempfile.mkdtemp())
    try:
        driver = browser(work / "profile")
        try:
            contents = page_contents(driver, pathlib.Path(page).resolve().as_uri())
            check(contents["errors"] == [], f"the page logs no error: {contents['errors']}")
            for name in passes:
                check(any(title.startswith(name) for title in contents["titles"]),
                      f"the timeline has a bar for {name}: {contents['titles'][:12]}")
        finally:
            driver.quit()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--page")
    parser.add_argument("--passes")
    parser.add_argument("tool", nargs="?")
    parser.add_argument("examples", nargs="?")
    parser.add_argument("--mlir-opt")
    parser.add_argument("--python-path")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    if args.page:
        return check_page(args.page, args.passes.split(","))
    work = pathlib.Path(tempfile.mkdtemp())
    try:
        examples = pathlib.Path(args.examples)
        one, two, failed = work / "one.html", work / "two.html", work / "failed.html"
        run(args.tool, str(examples / "cleanup.ir"), "-O2", "--threads=1", f"--report={one}", "-o", str(work / "1.ir"))
        run(args.tool, str(examples / "cleanup.ir"), "-O2", "--threads=2", f"--report={two}", "-o", str(work / "2.ir"))
        run(args.tool, str(examples / "failing" / "mixed_types.ir"), "-O2", f"--report={failed}",
            "-o", str(work / "3.ir"), expect=1)
        page_one, page_two = one.read_text(), two.read_text()
        check(len(TIMES.findall(page_one)) == 1, "the times are in one block")
        check(TIMES.sub("", page_one) == TIMES.sub("", page_two),
              "the reports on one thread and on two are the same bytes apart from the times")
        check("http://" not in TIMES.sub("", page_one).replace("http://www.w3.org/2000/svg", "")
              and "https://" not in page_one and "src=" not in page_one,
              "the page loads nothing from anywhere")

        driver = browser(work / "profile")
        try:
            driver.get(one.as_uri())
            check(console_errors(driver) == [], f"the page logs no error: {console_errors(driver)}")
            plan = driver.find_element(By.CSS_SELECTOR, "#plan pre").text
            check(plan.splitlines()[:3] == ["O2", "  InferType", "  FoldConstant"], f"the plan is O2's: {plan!r}")
            bars = driver.find_elements(By.CSS_SELECTOR, "#timeline-chart svg g.bar rect")
            check(len(bars) >= 7, f"the timeline has a bar for each pass and function ({len(bars)})")
            times = driver.find_elements(By.CSS_SELECTOR, "td[data-step]")
            check(times and all(re.fullmatch(r"\d+\.\d+", t.text) for t in times), "each pass has its time")
            diff = driver.find_elements(By.CSS_SELECTOR, "#changes details.diff")[0]
            body = diff.find_element(By.TAG_NAME, "pre")
            check(not body.is_displayed(), "a diff is collapsed until clicked")
            diff.find_element(By.TAG_NAME, "summary").click()
            check(body.is_displayed() and body.find_elements(By.CSS_SELECTOR, "span.add"),
                  "clicking a diff opens it, with its added lines marked")
            graph = driver.find_elements(By.CSS_SELECTOR, "#pass-graph g.node")
            check(len(graph) >= 5, f"the pass graph draws the passes ({len(graph)})")
            check(driver.find_elements(By.CSS_SELECTOR, "#pass-graph path.requires"), "the pass graph draws requirements")
            shot = pathlib.Path(args.screenshot) if args.screenshot else work / "report.png"
            driver.save_screenshot(str(shot))
            check(shot.stat().st_size > 10000, f"a screenshot is saved ({shot})")

            driver.get(failed.as_uri())
            check(console_errors(driver) == [], f"the failed run's page logs no error: {console_errors(driver)}")
            error = driver.find_element(By.ID, "error").text
            check("pass 'InferType' failed" in error, f"the failed run's page shows the error: {error!r}")
            diagnostics = driver.find_element(By.CSS_SELECTOR, "#diagnostics pre").text
            check("mixed_types.ir:5:3: error: 'add' needs operands of one type, not i64 and bool" in diagnostics,
                  f"and the diagnostic with its position: {diagnostics!r}")
            check(driver.find_element(By.ID, "failed-pass").text == "InferType", "it names the failing pass")
            check("passline-opt --run-reproducer" in driver.find_element(By.ID, "replay").text, "it says how to replay")
            red = driver.find_elements(By.CSS_SELECTOR, "#timeline-chart rect[fill='#ff8182']")
            check(len(red) == 1, "the timeline marks the failing pass")

            if args.mlir_opt:
                hostile_mlir(driver, args.mlir_opt, work)
            if args.python_path:
                hostile_python(driver, args.python_path, work)
        finally:
            driver.quit()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""docs/python.md: its Python blocks run as written, in order, in one namespace
(a walk-through), and each checks what it says with its own asserts."""
import contextlib
import io
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_every_python_block_of_the_guide_runs_in_order():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 5
    namespace = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(DOC), "exec"), namespace)
    text = out.getvalue()
    assert "Pass execution timing report" in text and "StrengthReduce" in text


def test_the_python_block_of_the_readme_runs_from_the_repository(monkeypatch):
    root = DOC.parents[1]
    blocks = re.findall(r"```python\n(.*?)```", (root / "README.md").read_text(), re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(root)
    namespace = {}
    exec(compile(blocks[0], str(root / "README.md"), "exec"), namespace)
    assert "mul(%x, 24)" in str(namespace["mod"])

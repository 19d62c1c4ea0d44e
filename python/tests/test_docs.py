"""The Python examples of docs/python.md run as they are written."""
import contextlib
import io
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_every_python_block_of_the_guide_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert blocks
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), {})
        text = out.getvalue()
        assert "1 functions" in text
        assert "visiting main" in text
        assert "mul(%x, 7)" in text

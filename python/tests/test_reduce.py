"""passline.reduce: a failing run shrunk from Python, judged by a predicate
or by a command, as passline-opt --reduce shrinks it."""
import os
import stat
import tempfile

import pytest

import passline


def big_module(functions=40, lets=30):
    """Functions of chained lets; the pattern mod(x, 7919) once, in the middle one."""
    text = []
    for f in range(functions):
        text.append(f"#[export]\ndef @f{f}(%a: i64, %b: i64) -> i64 {{")
        prev = "%a"
        for i in range(lets):
            value = f"mod({prev}, 7919)" if (f == functions // 2 and i == lets // 2) else f"add({prev}, %b)"
            text.append(f"  let %v{i} = {value};")
            prev = f"%v{i}"
        text.append(f"  mul({prev}, 3)\n}}")
    return passline.IRModule.parse("\n".join(text), "big.ir")


@passline.module_pass(opt_level=0, name="RejectsMod7919", required=["InferType"])
def rejects(mod, ctx):
    if "mod(" in str(mod) and "7919" in str(mod):
        raise ValueError("mod by 7919")
    return mod


passline.register_pass(rejects)


def fails_in_rejects(pipeline, mod):
    try:
        passline.parse_pipeline(pipeline)(mod)
    except ValueError as error:
        return str(error) == "mod by 7919"
    return False


def test_reduce_with_a_predicate_keeps_the_pass_and_the_pattern():
    found = passline.reduce(big_module(), "O2,RejectsMod7919,O2", fails_in_rejects)
    assert found.pipeline == "RejectsMod7919"
    assert len(found.module.functions) == 1
    text = str(found.module)
    assert "7919" in text and text.count("let ") <= 1
    assert found.records[0]["size"] > 100 * found.records[-1]["size"]
    assert found.reproducer.startswith("// passline-opt reproducer: --passes=RejectsMod7919\n")
    assert not found.interrupted
    assert fails_in_rejects(found.pipeline, found.module)


def test_reduce_with_a_command_runs_it_on_each_reproducer():
    with tempfile.TemporaryDirectory() as work:
        script = os.path.join(work, "has-pattern.sh")
        with open(script, "w") as out:
            out.write('#!/bin/sh\n! grep -q "mod(.*7919)" "$1"\n')  # nonzero while the pattern is there
        os.chmod(script, stat.S_IRWXU)
        found = passline.reduce(big_module(), "O2", command=script, steps=["functions", "inside"])
    assert "DeadCodeElimination" in found.pipeline  # no pipeline step: O2's passes are all there
    assert "7919" in str(found.module) and len(found.module.functions) == 1


def test_a_run_that_does_not_fail_is_an_error():
    with pytest.raises(passline.PipelineError, match="does not fail"):
        passline.reduce(big_module(4, 3), "O2", lambda pipeline, mod: False)


def test_reduce_takes_one_judge():
    with pytest.raises(TypeError):
        passline.reduce(big_module(2, 2), "O2")


@pytest.mark.parametrize("asked, message", [
    (dict(steps=["functions", "inlining"]), "not 'inlining'"),
    (dict(timeout=0), "not 0.0"),
    (dict(timeout=float("nan")), "not nan"),
])
def test_a_misused_argument_is_one_error_before_any_run(asked, message):
    runs = []
    with pytest.raises(ValueError, match=message):
        passline.reduce(big_module(2, 2), "O2", lambda pipeline, mod: runs.append(pipeline) or True, **asked)
    assert runs == []

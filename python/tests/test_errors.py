"""C++ errors as Python exception classes, with what each knows as attributes."""
import pytest

import passline
from passline import instrument, ir

PROGRAM = """\
def @helper(%a: i64) -> i64 {
  %a
}

#[export]
def @main(%x: i64) -> i64 {
  @helper(%x)
}
"""


def test_every_pipeline_error_is_a_pipeline_error_and_a_runtime_error():
    for cls in (passline.PassError, passline.VerificationError, passline.PipelineSyntaxError,
                passline.ConfigError, passline.RegistryError, passline.RequirementError, passline.FileError):
        assert issubclass(cls, passline.PipelineError) and issubclass(cls, RuntimeError)
    assert issubclass(passline.IRError, ValueError)


def test_a_verifier_error_keeps_file_line_column_and_caret():
    mod = passline.IRModule.parse(PROGRAM, "two.ir")
    del mod["helper"]
    with pytest.raises(passline.IRError) as raised:
        mod.verify()
    error = raised.value
    assert (error.line, error.column) == (7, 3)
    assert error.message == "in '@main': unknown function '@helper'"
    assert str(error).startswith("two.ir:7:3: error: in '@main': unknown function '@helper'")
    assert "  @helper(%x)\n  ^" in str(error)


def test_pipeline_text_errors_point_at_the_column():
    with pytest.raises(passline.PipelineSyntaxError) as raised:
        passline.parse_pipeline("InferType,FoldConstnt")
    error = raised.value
    assert error.column == 11
    assert "did you mean 'FoldConstant'" in str(error)
    assert error.caret.splitlines() == ["InferType,FoldConstnt", "          ^~~~~~~~~~~"]


def test_config_errors_say_what_was_meant():
    with pytest.raises(passline.ConfigError, match="unknown config key 'thread'.*'threads'"):
        passline.PassContext(config={"thread": 2})
    with pytest.raises(passline.ConfigError, match="threads"):
        passline.PassContext(config={"threads": "two"})


def test_registry_errors_name_the_pass_and_option():
    with pytest.raises(passline.RegistryError, match="unknown pass 'Inlien'.*'Inline'"):
        passline.create("Inlien")
    with pytest.raises(passline.RegistryError, match="max-size"):
        passline.create("Inline", max_sise=3)


def test_verify_each_says_which_pass_broke_the_module():
    @passline.module_pass(opt_level=0)
    def drop_helper(mod, ctx):
        del mod["helper"]
        return mod

    with pytest.raises(passline.VerificationError) as raised:
        with passline.PassContext(instruments=[instrument.VerifyEach()]):
            drop_helper(passline.IRModule.parse(PROGRAM))
    assert raised.value.pass_name == "drop_helper"
    assert "unknown function '@helper'" in str(raised.value)


def test_a_trace_that_cannot_be_written_is_a_file_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(passline.FileError):
        with passline.PassContext(instruments=[instrument.Trace(blocker / "trace.json")]):
            pass


def test_a_module_built_in_python_that_calls_nothing_known_fails_verification_without_a_position():
    x = ir.Var("x", "i64")
    mod = passline.IRModule([ir.Function("main", [x], ir.Call(ir.GlobalVar("nowhere"), [x]))])
    with pytest.raises(passline.IRError, match="unknown function '@nowhere'"):
        mod.verify()

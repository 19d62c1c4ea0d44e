"""Scenarios of TVM's tests/python/relay/test_pass_manager.py, on passline's IR."""
import traceback

import pytest

import passline

PROGRAM = """\
#[export]
def @main(%x: i64) -> i64 {
  let %unused = mul(%x, 5);
  mul(%x, add(3, 4))
}
"""


def parse():
    return passline.IRModule.parse(PROGRAM, "main.ir")


def test_parse_and_print_round_trip():
    mod = parse()
    assert [f.name for f in mod.functions] == ["main"]
    assert mod["main"].exported
    assert str(passline.IRModule.parse(str(mod))) == str(mod)


def test_parse_error_keeps_file_line_column_and_caret():
    with pytest.raises(passline.IRError) as raised:
        passline.IRModule.parse("def @f(%x: i64) -> i64 {\n  add(%x, %y)\n}\n", "bad.ir")
    error = raised.value
    assert (error.line, error.column) == (2, 11)
    assert str(error).startswith("bad.ir:2:11: error: ")
    assert "^" in str(error)


def test_cpp_pass_and_pipeline_run_from_python():
    o2 = passline.parse_pipeline("O2")
    assert o2.text() == "O2"
    assert "mul(%x, 7)" in str(o2(parse()))
    fold = passline.create("FoldConstant")
    assert fold.info.name == "FoldConstant"
    assert fold.info.required == ["InferType"]


def test_module_pass_from_a_function_and_from_a_class():
    calls = []

    @passline.module_pass(opt_level=1, name="Count")
    def count(mod, ctx):
        calls.append(len(mod.functions))
        return mod

    @passline.module_pass(opt_level=2)
    class Tagged:
        def __init__(self, tag):
            self.tag = tag

        def transform_module(self, mod, ctx):
            calls.append(self.tag)
            return mod

    assert count.info.name == "Count" and count.info.opt_level == 1
    tagged = Tagged("seen")
    assert tagged.info.name == "Tagged" and tagged.info.opt_level == 2
    passline.Sequential([count, tagged])(parse())
    assert calls == [1, "seen"]


def test_function_pass_sees_each_function():
    names = []

    @passline.function_pass(opt_level=1)
    def visit(func, mod, ctx):
        names.append(func.name)
        return func

    visit(passline.IRModule.parse(PROGRAM + "def @g(%y: i64) -> i64 {\n  %y\n}\n"))
    assert sorted(names) == ["g", "main"]


def test_context_gates_by_opt_level_and_disabled_passes():
    ran = []

    @passline.module_pass(opt_level=3)
    def late(mod, ctx):
        ran.append("late")
        return mod

    pipeline = passline.Sequential([late])
    with passline.PassContext(opt_level=2):
        pipeline(parse())
    assert ran == []
    with passline.PassContext(opt_level=3) as ctx:
        assert passline.PassContext.current().opt_level == 3
        pipeline(parse(), ctx)
    assert ran == ["late"]
    with passline.PassContext(opt_level=3, disabled_pass=["late"]):
        pipeline(parse())
    assert ran == ["late"]
    with passline.PassContext(opt_level=0, required_pass=["late"]):
        pipeline(parse())
    assert ran == ["late", "late"]


def test_required_pass_runs_first():
    seen = []

    @passline.module_pass(opt_level=0, required=["InferType"])
    def after_types(mod, ctx):
        seen.append(True)
        return mod

    pipeline = passline.Sequential([after_types])
    assert [line.split()[0] for line in pipeline.text().split(",")] == ["seq(after_types)"] or pipeline.text()
    pipeline(parse())
    assert seen == [True]


def test_python_exception_names_the_pass():
    @passline.module_pass(opt_level=0, name="Broken")
    def broken(mod, ctx):
        raise ValueError("no good")

    with pytest.raises(passline.PassError) as raised:
        passline.Sequential([broken], name="Outer")(parse())
    assert raised.value.pass_name == "Broken"
    assert raised.value.path == "Outer/Broken"
    cause = raised.value.__cause__
    assert isinstance(cause, ValueError) and str(cause) == "no good"
    frames = traceback.extract_tb(cause.__traceback__)
    assert frames[-1].name == "broken"


def test_config_is_checked():
    with pytest.raises(passline.PipelineError, match="unknown config key 'thread'.*threads"):
        passline.PassContext(config={"thread": 2})
    with passline.PassContext(config={"threads": 2}) as ctx:
        assert ctx.config() == {"threads": 2}


def test_registered_python_pass_is_usable_from_pipeline_text():
    @passline.module_pass(opt_level=0, name="PyTag")
    def py_tag(mod, ctx):
        return mod

    passline.register_pass(py_tag)
    assert "PyTag" in passline.registered_passes()
    pipeline = passline.parse_pipeline("InferType,PyTag,O1")
    assert pipeline.text() == "InferType,PyTag,O1"
    assert "mul(%x, 7)" in str(pipeline(parse()))

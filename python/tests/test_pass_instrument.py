"""Scenarios of TVM's tests/python/relay/test_pass_instrument.py, on passline's IR."""
import pytest

import passline

PROGRAM = "#[export]\ndef @main(%x: i64) -> i64 {\n  mul(%x, add(3, 4))\n}\n"


def parse():
    return passline.IRModule.parse(PROGRAM, "main.ir")


@passline.pass_instrument
class Recorder:
    def __init__(self):
        self.events = []

    def enter_pass_ctx(self):
        self.events.append("enter")

    def exit_pass_ctx(self):
        self.events.append("exit")

    def should_run(self, mod, info):
        self.events.append("should_run " + info.name)
        return True

    def run_before_pass(self, mod, info):
        self.events.append("before " + info.name)

    def run_after_pass(self, mod, info):
        self.events.append("after " + info.name)


def test_hook_call_sequence():
    recorder = Recorder()
    with passline.PassContext(instruments=[recorder]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    assert recorder.events == [
        "enter",
        "should_run InferType", "before InferType", "after InferType",
        "should_run FoldConstant", "before FoldConstant", "after FoldConstant",
        "exit",
    ]


def test_should_run_vetoes_a_pass():
    @passline.pass_instrument
    class SkipFold:
        def should_run(self, mod, info):
            return info.name != "FoldConstant"

    with passline.PassContext(instruments=[SkipFold()]):
        out = passline.parse_pipeline("InferType,FoldConstant")(parse())
    assert "add(3, 4)" in str(out)


def test_hooks_see_the_module():
    seen = []

    @passline.pass_instrument
    class Size:
        def run_after_pass(self, mod, info):
            seen.append((info.name, "add(3, 4)" in str(mod)))

    with passline.PassContext(instruments=[Size()]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    assert seen == [("InferType", True), ("FoldConstant", False)]


def test_an_exception_in_a_hook_passes_on_as_itself():
    @passline.pass_instrument
    class Throws:
        def run_before_pass(self, mod, info):
            raise RuntimeError("from the instrument")

    with passline.PassContext(instruments=[Throws()]):
        with pytest.raises(RuntimeError, match="from the instrument") as raised:
            passline.parse_pipeline("InferType")(parse())
    assert not isinstance(raised.value, passline.PassError)


def test_pass_info_outlives_its_pass():
    info = passline.create("FoldConstant").info  # the pass is gone after this line
    assert (info.name, info.opt_level, info.required) == ("FoldConstant", 2, ["InferType"])

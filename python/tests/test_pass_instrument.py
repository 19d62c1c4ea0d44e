"""Scenarios of TVM's tests/python/relay/test_pass_instrument.py, on passline's IR.

The rules are TVM's (src/ir/transform.cc): an instrument whose enter hook
raises makes the instruments entered before it exit, clears the context's
instruments and goes on as itself; an exit hook that raises stops the exit
there, clears the instruments and goes on as itself. passline adds one hook:
once a pass or an after hook raised, the instruments that saw the pass begin
and not end get run_after_failed_pass. test_tvm_pass_instrument.py runs
TVM's own file.
"""
import io
import json

import pytest

import passline
from passline import instrument

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


@passline.module_pass(opt_level=2)
def transform1(mod, ctx):
    print("    transform1 pass")
    return mod


@passline.module_pass(opt_level=2)
def transform2(mod, ctx):
    print("    transform2 pass")
    return mod


@passline.module_pass(opt_level=2)
def broken(mod, ctx):
    print("    broken pass")
    raise RuntimeError("Just a dummy error")


@passline.pass_instrument
class PI:
    """Prints each hook; raises in the hook named `raises`."""

    def __init__(self, id, raises=None):
        self.id = id
        self.raises = raises

    def hook(self, name, indent=""):
        print(indent + self.id + " " + name)
        if name == self.raises:
            raise RuntimeError("Just a dummy error")

    def enter_pass_ctx(self):
        self.hook("enter_pass_ctx")

    def exit_pass_ctx(self):
        self.hook("exit_pass_ctx")

    def should_run(self, mod, info):
        self.hook("should_run", "  ")
        return True

    def run_before_pass(self, mod, info):
        self.hook("run_before_pass", "  ")

    def run_after_pass(self, mod, info):
        self.hook("run_after_pass", "  ")

    def run_after_failed_pass(self, mod, info, message):
        self.hook("run_after_failed_pass: " + message, "  ")


def test_instrument_call_sequence(capsys):
    with passline.PassContext(instruments=[PI("%1"), PI("%2")]):
        mod = transform1(parse())
        mod = transform2(mod)
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n" "%2 enter_pass_ctx\n"
        "  %1 should_run\n" "  %2 should_run\n"
        "  %1 run_before_pass\n" "  %2 run_before_pass\n"
        "    transform1 pass\n"
        "  %1 run_after_pass\n" "  %2 run_after_pass\n"
        "  %1 should_run\n" "  %2 should_run\n"
        "  %1 run_before_pass\n" "  %2 run_before_pass\n"
        "    transform2 pass\n"
        "  %1 run_after_pass\n" "  %2 run_after_pass\n"
        "%1 exit_pass_ctx\n" "%2 exit_pass_ctx\n")


def test_multiple_instruments_each_may_veto(capsys):
    @passline.pass_instrument
    class SkipPass:
        def __init__(self, name):
            self.name = name

        def should_run(self, mod, info):
            return self.name not in info.name

    @passline.pass_instrument
    class PrintPassName:
        def run_before_pass(self, mod, info):
            print(info.name)

    with passline.PassContext(instruments=[SkipPass("transform1"), SkipPass("transform2"), PrintPassName()]):
        mod = transform1(parse())
        mod = transform2(mod)
        mod = passline.create("InferType")(mod)
    assert capsys.readouterr().out == "InferType\n"


def test_instrument_pass_counts():
    @passline.pass_instrument
    class PassesCounter:
        def __init__(self):
            self.before = self.after = 0

        def enter_pass_ctx(self):
            self.before = self.after = 0

        def exit_pass_ctx(self):
            self.before = self.after = 0

        def run_before_pass(self, mod, info):
            self.before += 1

        def run_after_pass(self, mod, info):
            self.after += 1

    counter = PassesCounter()
    with passline.PassContext(opt_level=3, instruments=[counter]):
        passline.create("O2")(parse())
        assert counter.after > 5 and counter.after == counter.before
    assert counter.before == counter.after == 0


def test_enter_pass_ctx_exception(capsys):
    ctx = passline.PassContext(instruments=[PI("%1"), PI("%2", raises="enter_pass_ctx"), PI("%3")])
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with ctx:
            pass
    assert capsys.readouterr().out == "%1 enter_pass_ctx\n%2 enter_pass_ctx\n%1 exit_pass_ctx\n"
    assert passline.PassContext.current() is not ctx
    assert ctx.instruments is None  # cleared, as TVM's


def test_after_a_failed_enter_the_context_enters_again(capsys):
    ctx = passline.PassContext(instruments=[PI("%1", raises="enter_pass_ctx")])
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with ctx:
            pass
    with ctx:  # its instruments are gone: nothing raises any more
        transform1(parse())
    assert capsys.readouterr().out == "%1 enter_pass_ctx\n    transform1 pass\n"


def test_exit_pass_ctx_exception(capsys):
    ctx = passline.PassContext(instruments=[PI("%1"), PI("%2", raises="exit_pass_ctx"), PI("%3")])
    with pytest.raises(RuntimeError, match="^Just a dummy error$") as raised:
        with ctx:
            pass
    assert type(raised.value) is RuntimeError  # the hook's own exception, as in TVM
    assert raised.traceback[-1].name == "hook"  # its traceback ends where it was raised
    # %3 is not told: the exit stops at the hook that raised.
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n%2 enter_pass_ctx\n%3 enter_pass_ctx\n"
        "%1 exit_pass_ctx\n%2 exit_pass_ctx\n")
    assert passline.PassContext.current() is not ctx
    assert ctx.instruments is None


def test_an_exit_hook_that_raises_replaces_the_bodys_exception_as_in_python():
    ctx = passline.PassContext(instruments=[PI("%1", raises="exit_pass_ctx")])
    with pytest.raises(RuntimeError, match="Just a dummy error") as raised:
        with ctx:
            raise KeyError("from the body")
    assert isinstance(raised.value.__context__, KeyError)


def test_override_instruments_exits_the_old_and_enters_the_new(capsys):
    ctx = passline.PassContext(instruments=[PI("%1")])
    ctx.override_instruments([PI("%2")])
    assert [i.id for i in ctx.instruments] == ["%2"]
    ctx.override_instruments(None)
    assert ctx.instruments is None
    assert capsys.readouterr().out == "%1 exit_pass_ctx\n%2 enter_pass_ctx\n%2 exit_pass_ctx\n"


def test_override_instruments_of_the_current_context_instruments_passes_called_outside_a_with(capsys):
    current = passline.PassContext.current()
    current.override_instruments([PI("%1")])
    try:
        transform1(parse())
    finally:
        current.override_instruments(None)
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n  %1 should_run\n  %1 run_before_pass\n    transform1 pass\n"
        "  %1 run_after_pass\n%1 exit_pass_ctx\n")


def test_pass_exception(capsys):
    with pytest.raises(RuntimeError, match="^Just a dummy error$") as raised:
        with passline.PassContext(instruments=[PI("%1")]):
            broken(parse())
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n"
        "  %1 should_run\n"
        "  %1 run_before_pass\n"
        "    broken pass\n"
        "  %1 run_after_failed_pass: pass 'broken' failed: RuntimeError: Just a dummy error\n"
        "%1 exit_pass_ctx\n")
    # The pass's own exception, as TVM re-raises it, with the pass named in a note.
    assert type(raised.value) is RuntimeError
    assert raised.value.__notes__ == ["raised in pass 'broken'"]


def test_should_run_exception(capsys):
    with pytest.raises(RuntimeError, match="Just a dummy error") as raised:
        with passline.PassContext(instruments=[PI("%1", raises="should_run"), PI("%2")]):
            transform1(parse())
    assert not isinstance(raised.value, passline.PassError)
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n%2 enter_pass_ctx\n"
        "  %1 should_run\n"
        "%1 exit_pass_ctx\n%2 exit_pass_ctx\n")


def test_run_before_exception(capsys):
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with passline.PassContext(instruments=[PI("%1", raises="run_before_pass"), PI("%2")]):
            transform1(parse())
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n%2 enter_pass_ctx\n"
        "  %1 should_run\n  %2 should_run\n"
        "  %1 run_before_pass\n"
        "%1 exit_pass_ctx\n%2 exit_pass_ctx\n")


def test_run_after_exception(capsys):
    with pytest.raises(RuntimeError, match="Just a dummy error"):
        with passline.PassContext(instruments=[PI("%1", raises="run_after_pass"), PI("%2")]):
            transform1(parse())
    # %2 saw the pass begin: it hears that it did not end well.
    assert capsys.readouterr().out == (
        "%1 enter_pass_ctx\n%2 enter_pass_ctx\n"
        "  %1 should_run\n  %2 should_run\n"
        "  %1 run_before_pass\n  %2 run_before_pass\n"
        "    transform1 pass\n"
        "  %1 run_after_pass\n"
        "  %2 run_after_failed_pass: RuntimeError: Just a dummy error\n"
        "%1 exit_pass_ctx\n%2 exit_pass_ctx\n")


def test_an_exception_in_a_hook_inside_a_pipeline_is_not_blamed_on_the_pipeline():
    with pytest.raises(RuntimeError, match="Just a dummy error") as raised:
        with passline.PassContext(instruments=[PI("%1", raises="run_before_pass")]):
            passline.Sequential([transform1, transform2], name="Outer")(parse())
    assert not isinstance(raised.value, passline.PassError)


# -- passline's C++ instruments from Python ---------------------------------------


def test_pass_timing_instrument_renders_a_report():
    timing = instrument.PassTimingInstrument()
    assert timing.render() == ""
    with passline.PassContext(instruments=[timing]):
        passline.Sequential([passline.create("FoldConstant"), transform1], name="Outer")(parse())
        transform2(parse())
        report = timing.render()
        timings = timing.timings()
    for name in ("Outer", "InferType", "FoldConstant", "transform1", "transform2", "Total Execution Time"):
        assert name in report
    assert [entry["name"] for entry in timings] == ["Outer", "transform2"]
    outer = timings[0]
    assert [child["name"] for child in outer["children"]] == ["InferType", "FoldConstant", "transform1"]
    assert all(child["count"] == 1 and 0 <= child["wall"] <= outer["wall"] for child in outer["children"])


def test_pass_timing_instrument_clears_when_its_context_exits():
    timing = instrument.PassTimingInstrument()
    ctx = passline.PassContext(instruments=[timing])
    with ctx:
        transform1(parse())
        assert "transform1" in timing.render()
    assert timing.render() == "" and timing.timings() == []  # as TVM's profile
    with ctx:  # a second context starts from nothing
        transform2(parse())
        assert "transform2" in timing.render() and "transform1" not in timing.render()


def test_print_before_and_after_named_passes():
    out = io.StringIO()
    with passline.PassContext(instruments=[instrument.PrintIR(before=["FoldConstant"], after=["FoldConstant"], file=out)]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    text = out.getvalue()
    assert text.index("// *** IR Dump Before FoldConstant ***") < text.index("add(3, 4)")
    assert "// *** IR Dump After FoldConstant ***" in text and "mul(%x, 7)" in text
    assert "InferType ***" not in text


def test_print_after_all_goes_to_stderr_by_default(capsys):
    with passline.PassContext(instruments=[instrument.PrintAfterAll()]):
        passline.create("FoldConstant")(parse())
    err = capsys.readouterr().err
    assert "// *** IR Dump After InferType (required by FoldConstant) ***" in err
    assert "// *** IR Dump After FoldConstant ***" in err


def test_print_changed_as_a_diff():
    out = io.StringIO()
    with passline.PassContext(instruments=[instrument.PrintChanged(mode="diff", file=out)]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    text = out.getvalue()
    assert "-  mul(%x, add(3, 4))" in text and "+  mul(%x, 7)" in text
    with pytest.raises(ValueError, match="'full', 'quiet' or 'diff'"):
        instrument.PrintChanged(mode="short")


def test_trace_in_memory_and_to_a_file(tmp_path):
    memory = instrument.Trace()
    path = tmp_path / "trace.json"
    with passline.PassContext(instruments=[memory, instrument.Trace(path)]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    for text in (memory.json(), path.read_text()):
        events = json.loads(text)
        events = events["traceEvents"] if isinstance(events, dict) else events
        names = {e.get("name") for e in events}
        assert {"InferType", "FoldConstant"} <= names


def test_report_writes_the_runs_page(tmp_path):
    path = tmp_path / "report.html"
    report = instrument.Report(path)
    with passline.PassContext(instruments=[report]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") and page == report.html()
    assert "<pre>InferType\nFoldConstant\n</pre>" in page  # the plan as it ran
    assert '<script type="application/json" id="times">' in page


def test_dump_dir_numbers_the_dumps(tmp_path):
    with passline.PassContext(instruments=[instrument.DumpDir(tmp_path / "dumps")]):
        passline.parse_pipeline("InferType,FoldConstant")(parse())
    files = sorted(p.name for p in (tmp_path / "dumps").iterdir())
    assert len(files) >= 3 and files[0].startswith("0")
    assert any("FoldConstant" in name for name in files)
    assert all(name.endswith(".ir") for name in files)


def test_verify_each_names_the_pass_that_broke_the_module():
    @passline.module_pass(opt_level=0)
    def drop_helper(mod, ctx):
        del mod["helper"]
        return mod

    mod = passline.IRModule.parse(
        "def @helper(%a: i64) -> i64 { %a }\n#[export]\ndef @main(%x: i64) -> i64 { @helper(%x) }\n")
    with pytest.raises(passline.PipelineError, match="drop_helper.*unknown function '@helper'"):
        with passline.PassContext(instruments=[instrument.VerifyEach()]):
            drop_helper(mod)


def test_opt_bisect_runs_only_the_first_optional_passes():
    pipeline = passline.parse_pipeline("InferType,FoldConstant,DeadCodeElimination")
    out = io.StringIO()
    with passline.PassContext(instruments=[instrument.OptBisect(1, file=out)]):
        assert "mul(%x, 7)" in str(pipeline(parse()))
    assert out.getvalue().splitlines() == ["BISECT: running pass (1) FoldConstant",
                                           "BISECT: NOT running pass (2) DeadCodeElimination"]
    out = io.StringIO()
    with passline.PassContext(instruments=[instrument.OptBisect(0, file=out)]):
        assert "add(3, 4)" in str(pipeline(parse()))
    assert out.getvalue().splitlines()[0] == "BISECT: NOT running pass (1) FoldConstant"


def test_the_context_lists_its_instruments():
    mine = PI("%1")
    timing = instrument.PassTimingInstrument()
    ctx = passline.PassContext(instruments=[mine, timing])
    assert ctx.instruments[0] is mine and ctx.instruments[1] is timing

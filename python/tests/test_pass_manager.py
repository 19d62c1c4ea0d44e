"""Scenarios of TVM's tests/python/relay/test_pass_manager.py, on passline's IR."""
import os
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
        seen.append(mod["main"].body.type)  # None unless InferType ran
        return mod

    passline.Sequential([after_types])(parse())
    assert seen == ["i64"]


def test_python_exception_keeps_its_type_and_names_the_pass():
    @passline.module_pass(opt_level=0, name="Broken")
    def broken(mod, ctx):
        raise ValueError("no good")

    with pytest.raises(ValueError) as raised:
        passline.Sequential([broken], name="Outer")(parse())
    assert type(raised.value) is ValueError and str(raised.value) == "no good"
    assert raised.value.__notes__ == ["raised in pass 'Broken' (at Outer/Broken)"]
    frames = traceback.extract_tb(raised.value.__traceback__)
    assert frames[-1].name == "broken"


def test_except_catches_a_python_pass_exception_by_its_type():
    @passline.module_pass(opt_level=0, name="Lookup")
    def lookup(mod, ctx):
        return {}["missing"]

    try:
        lookup(parse())
    except KeyError as error:
        assert error.__notes__ == ["raised in pass 'Lookup'"]
    else:
        pytest.fail("no KeyError")


def test_a_pass_called_on_its_own_is_not_gated():
    ran = []

    @passline.module_pass(opt_level=3)
    def late(mod, ctx):
        ran.append("late")
        return mod

    mod = parse()
    with passline.PassContext(opt_level=0, disabled_pass=["late", "FoldConstant"]):
        late(mod)
        folded = passline.create("FoldConstant")(mod)
    assert ran == ["late"]  # TVM: only a Sequential asks whether a pass is enabled
    assert "add(3, 4)" not in str(folded)
    with passline.PassContext(opt_level=0, disabled_pass=["late"]):
        passline.Sequential([late])(mod)  # but a Sequential gates its passes
    assert ran == ["late"]


def test_a_pipeline_called_on_its_own_gates_its_passes():
    mod = passline.IRModule.parse("def @f(%x: i64) -> i64 {\n  %x\n}\n"
                                  "#[export]\ndef @main(%y: i64) -> i64 {\n  @f(%y)\n}\n")
    # O3 lists Inline, at level 3: under the default level, 2, O3 skips it as TVM's Sequential would.
    assert "@f(%y)" in str(passline.create("O3")(mod))
    with passline.PassContext(opt_level=3):
        assert "@f(%y)" not in str(passline.create("O3")(mod))


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


def test_sequential_with_scoping():
    pipeline = passline.Sequential([passline.create("FoldConstant"), passline.create("DeadCodeElimination")],
                                   opt_level=3)
    with passline.PassContext(opt_level=3):
        folded = pipeline(parse())
    assert str(folded) == "#[export]\ndef @main(%x: i64) -> i64 {\n  mul(%x, 7)\n}\n"
    # Called on its own, the Sequential runs whatever its own level (TVM's
    # rule), and gates its passes: FoldConstant (level 2) is skipped, dead
    # code elimination (level 1) runs.
    with passline.PassContext(opt_level=1):
        assert str(pipeline(parse())) == "#[export]\ndef @main(%x: i64) -> i64 {\n  mul(%x, add(3, 4))\n}\n"


def test_nested_sequential_with_scoping():
    ran = []

    def tracer(name, level):
        @passline.module_pass(opt_level=level, name=name)
        def trace(mod, ctx):
            ran.append(name)
            return mod
        return trace

    inner = passline.Sequential([tracer("A", 1), tracer("B", 3)], name="Inner")
    outer = passline.Sequential([inner, tracer("C", 2), passline.create("FoldConstant")], name="Outer")
    with passline.PassContext(opt_level=2, disabled_pass=["C"]):
        mod = outer(parse())
    assert ran == ["A"]
    assert "mul(%x, 7)" in str(mod)
    with passline.PassContext(opt_level=3, required_pass=["C"]):
        outer(parse())
    assert ran == ["A", "A", "B", "C"]


def test_error_path_through_nested_sequentials():
    @passline.module_pass(opt_level=0, name="Broken")
    def broken(mod, ctx):
        raise KeyError("missing")

    inner = passline.Sequential([passline.create("InferType"), broken], name="Inner")
    with pytest.raises(KeyError) as raised:
        passline.Sequential([inner], name="Outer")(parse())
    assert raised.value.__notes__ == ["raised in pass 'Broken' (at Outer/Inner/Broken)"]


def test_a_cpp_pass_failure_is_a_pass_error_with_its_path():
    with pytest.raises(passline.PassError) as raised:
        passline.Sequential([passline.create("InferType")], name="Outer")(
            passline.IRModule.parse("def @main(%x: i64) -> bool {\n  %x\n}\n"))
    assert raised.value.pass_name == "InferType" and raised.value.path == "Outer/InferType"


def test_a_failing_pass_leaves_the_callers_module_untouched():
    @passline.module_pass(opt_level=0)
    def replace_then_fail(mod, ctx):
        del mod["main"]
        raise RuntimeError("late")

    mod = parse()
    before = str(mod)
    with pytest.raises(RuntimeError, match="late"):
        passline.Sequential([passline.create("FoldConstant"), replace_then_fail])(mod)
    assert str(mod) == before and "main" in mod


def test_print_ir_pass_in_a_pipeline(capfd):
    pipeline = passline.parse_pipeline("InferType,PrintIR{header=typed},FoldConstant")
    out = pipeline(parse())
    err = capfd.readouterr().err
    assert "// *** PrintIR: typed ***" in err and "add(3, 4)" in err
    assert "mul(%x, 7)" in str(out)
    assert passline.create("PrintIR", header="x").text() == "PrintIR{header=x}"


def test_python_function_pass_on_many_threads_is_correct_and_deterministic():
    import threading

    text = "\n".join(f"def @f{i}(%x: i64) -> i64 {{\n  mul(add(%x, {i}), 2)\n}}\n" for i in range(200))
    # Two calls of the pass meet at the barrier: only calls on two threads
    # at once can (the first waits with the GIL released for the second).
    meeting = threading.Barrier(2, timeout=60)
    met = []
    wanted = [False]
    entered = []
    lock = threading.Lock()

    @passline.function_pass(opt_level=0)
    def bump_constants(func, mod, ctx):
        with lock:  # the first two calls only
            meet = wanted[0] and len(entered) < 2
            if meet:
                entered.append(True)
        if meet:
            try:
                meeting.wait()
                met.append(threading.get_ident())
            except threading.BrokenBarrierError:
                pass

        def bump(e):
            if isinstance(e, passline.ir.Constant):
                return passline.ir.Constant(e.value + 1)
            return None
        return func.with_body(func.body.rewrite(bump))

    pipeline = passline.Sequential([bump_constants, passline.create("FoldConstant")])
    with passline.PassContext(config={"threads": 1}):
        one = pipeline(passline.IRModule.parse(text))
    results = []
    wanted[0] = (os.cpu_count() or 1) > 1
    for _ in range(3):
        with passline.PassContext(config={"threads": 4}):
            results.append(pipeline(passline.IRModule.parse(text)))
    assert all(str(r) == str(one) for r in results)
    assert "mul(add(%x, 8), 3)" in str(one["f7"])
    if wanted[0]:
        assert len(set(met)) == 2  # two calls of the Python pass ran at once, on two threads
    assert [f.name for f in one.functions] == [f"f{i}" for i in range(200)]


# -- TVM's Python API, with TVM's signatures and defaults ---------------------------


def test_pass_context_takes_none_for_its_lists_as_tvm():
    ctx = passline.PassContext(opt_level=3, required_pass=None, disabled_pass=None, instruments=None, config=None)
    assert (ctx.opt_level, ctx.required_pass, ctx.disabled_pass, ctx.instruments) == (3, [], [], None)
    with pytest.raises(TypeError, match=r"^required_pass is a list of pass names, not a str: write \['InferType'\]$"):
        passline.PassContext(required_pass="InferType")
    with pytest.raises(TypeError, match="^disabled_pass holds pass names \\(str\\), not int$"):
        passline.PassContext(disabled_pass=[1])
    with pytest.raises(TypeError, match="^instruments is a list of instruments or None, not dict$"):
        passline.PassContext(instruments={})


def test_pass_context_trace_is_called_around_every_pass():
    calls = []

    def trace(mod, info, is_before):
        calls.append((info.name, is_before))

    pipeline = passline.Sequential([passline.create("InferType"), passline.create("DeadCodeElimination")])
    with passline.PassContext(opt_level=3, trace=trace):
        pipeline(parse())
    assert calls == [("sequential", True), ("InferType", True), ("InferType", False),
                     ("DeadCodeElimination", True), ("DeadCodeElimination", False), ("sequential", False)]


def test_list_configs_names_each_key_with_its_type():
    configs = passline.PassContext.list_configs()
    assert configs["threads"]["type"] == "int" and configs["threads"]["default"] == 0
    assert configs["threads"]["description"]


def test_pass_info_is_constructible():
    info = passline.PassInfo(1, "xyz", required=["InferType"])
    assert (info.opt_level, info.name, info.required) == (1, "xyz", ["InferType"])
    assert passline.PassInfo(opt_level=2, name="abc").required == []


def test_sequential_has_tvms_signature_and_defaults():
    seq = passline.Sequential()
    assert (seq.info.name, seq.info.opt_level) == ("sequential", 0)
    assert passline.structural_equal(seq(parse()), parse())
    named = passline.Sequential(passes=[passline.create("InferType")], opt_level=2, name="typed")
    assert (named.info.name, named.info.opt_level) == ("typed", 2)


def test_a_sequentials_required_passes_run_before_it():
    seen = []

    @passline.module_pass(opt_level=0)
    def look(mod, ctx):
        seen.append(mod["main"].body.type)  # None unless InferType ran
        return mod

    typed = passline.Sequential([look], name="typed", required=["InferType"])
    assert typed.info.required == ["InferType"]
    passline.Sequential([typed])(parse())
    untyped = passline.Sequential([look], name="untyped")
    passline.Sequential([untyped])(parse())
    assert seen == ["i64", None]
    with pytest.raises(passline.RequirementError, match="pass 'typed' requires 'InferType', which the pass context disables"):
        with passline.PassContext(disabled_pass=["InferType"]):
            typed(parse())


def test_same_as_tells_whether_a_pass_changed_anything():
    mod = parse()

    @passline.module_pass(opt_level=0)
    def keep(mod, ctx):
        return mod

    assert keep(mod).same_as(mod)
    assert passline.create("InferType")(mod).same_as(mod) is False  # types were added
    typed = passline.create("InferType")(mod)
    assert passline.create("InferType")(typed).same_as(typed)  # nothing left to infer
    assert not passline.create("FoldConstant")(typed).same_as(typed)
    assert typed["main"].same_as(typed["main"]) and not typed["main"].same_as(mod["main"])


def test_a_subclass_of_instrument_is_an_instrument():
    class Names(passline.instrument.Instrument):
        def __init__(self):
            super().__init__()
            self.names = []

        def run_before_pass(self, mod, info):
            self.names.append(info.name)

    names = Names()
    with passline.PassContext(instruments=[names]):
        passline.create("InferType")(parse())
    assert names.names == ["InferType"]


def test_pass_instrument_with_and_without_parentheses():
    @passline.pass_instrument()
    class A:
        def run_before_pass(self, mod, info):
            pass

    @passline.pass_instrument
    class B:
        def run_before_pass(self, mod, info):
            pass

    assert isinstance(A, type) and isinstance(B, type)
    with pytest.raises(TypeError, match="pass_instrument decorates a class, not function"):
        passline.pass_instrument(lambda: None)

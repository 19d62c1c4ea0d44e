"""Property tests of the Python surface, with hostile inputs: random
expression trees (deep, wide, ill-scoped, oddly named), modules, contexts
entered and exited in any order, and pipelines of C++ and Python passes
that raise or return the wrong thing on some functions, on several threads.

The property everywhere: a Python exception of the documented kinds, or a
correct result, never a crash; and what prints parses back.

PASSLINE_HYPOTHESIS_EXAMPLES sets how many examples each property draws.
"""
import atexit
import os
import shutil
import tempfile
import threading

import pytest

# Hypothesis keeps caches (of Unicode tables, say) in a directory of its own,
# by default in the current one: here, a temporary one, removed at exit.
_storage = tempfile.mkdtemp(prefix="passline-hypothesis-")
atexit.register(shutil.rmtree, _storage, ignore_errors=True)
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _storage
from hypothesis import HealthCheck, event, given, settings, strategies as st  # noqa: E402

import passline  # noqa: E402
from passline import instrument, ir  # noqa: E402

EXAMPLES = int(os.environ.get("PASSLINE_HYPOTHESIS_EXAMPLES", "1000"))
# No example database: the tests write nothing beside themselves.
PROFILE = settings(max_examples=EXAMPLES, deadline=None, derandomize="PASSLINE_HYPOTHESIS_EXAMPLES" not in os.environ,
                   suppress_health_check=list(HealthCheck), database=None)

# What building, running or printing may raise: the library's errors and
# Python's own for wrong types and values.
EXPECTED = (passline.PipelineError, passline.IRError, ValueError, TypeError, OverflowError, KeyError,
            ZeroDivisionError)

def mostly(good, bad, odds=9):
    """`good` most of the time (odds to 1), else `bad`."""
    return st.integers(0, odds).flatmap(lambda k: bad if k == 0 else good)


GOOD_NAMES = st.sampled_from(["x", "y", "f", "main", "t1", "_", "a_b", "F00", "v2"])
NAMES = mostly(GOOD_NAMES, st.one_of(st.text(max_size=6),
                                     st.sampled_from(["", "a b", "x\n#[export]\ndef @evil", "%", "@x", "é"])))
GOOD_TYPES = st.sampled_from(["i64", "f64", "bool", "(i64, bool)", "fn(i64) -> i64"])
TYPES = mostly(GOOD_TYPES, st.sampled_from([None, "(", "i65", "fn(", ""]), odds=5)
CONSTANTS = mostly(st.one_of(st.integers(-100, 100), st.floats(allow_nan=True), st.booleans()),
                   st.integers(min_value=-2 ** 70, max_value=2 ** 70))
OPERATOR_NAMES = mostly(st.sampled_from(ir.OPERATORS), st.sampled_from(["pow", "", "add "]))


class Builder:
    """Draws one expression tree at a time. Variables are used in their
    scope, but now and then out of it; names, types and operators are
    valid, but now and then not: every constructor may refuse (that is one
    of the outcomes)."""

    def __init__(self, draw):
        self.draw = draw
        self.scope = [ir.Var("p", "i64")]
        self.everywhere = list(self.scope)  # every var made, in scope or not

    def var(self):
        var = ir.Var(self.draw(NAMES), self.draw(TYPES))
        self.everywhere.append(var)
        return var

    def leaf(self):
        choice = self.draw(st.integers(0, 9))
        if choice < 5:
            return self.draw(mostly(st.sampled_from(self.scope), st.sampled_from(self.everywhere), odds=19))
        if choice < 8:
            return self.draw(CONSTANTS)
        return ir.GlobalVar(self.draw(NAMES))

    def expr(self, depth):
        if depth <= 0 or self.draw(st.integers(0, 4)) == 0:
            return self.leaf()
        kind = self.draw(st.integers(0, 8))
        sub = lambda: self.expr(depth - 1)  # noqa: E731
        if kind == 0:
            name = self.draw(OPERATOR_NAMES)
            return ir.Operator(name, [sub() for _ in range(self.draw(st.integers(1, 3)))])
        if kind == 1:
            return ir.Call(sub(), [sub() for _ in range(self.draw(st.integers(0, 2)))])
        if kind == 2:
            var = self.var()
            value = sub()
            self.scope.append(var)
            body = sub()
            self.scope.pop()
            return ir.Let(var, value, body)
        if kind == 3:
            return ir.If(sub(), sub(), sub())
        if kind == 4:
            return ir.Tuple([sub() for _ in range(self.draw(st.integers(0, 3)))])
        if kind == 5:
            return ir.TupleGetItem(sub(), self.draw(st.integers(0, 3)))
        if kind == 6:
            params = [self.var() for _ in range(self.draw(st.integers(0, 2)))]
            self.scope.extend(params)
            body = sub()
            del self.scope[len(self.scope) - len(params):]
            return ir.Closure(params, body, self.draw(TYPES))
        if kind == 7:
            return -sub()
        return sub() + sub()


def check_round_trip(mod):
    """A module that verifies prints text that parses back to the same text."""
    try:
        mod.verify()
    except passline.IRError:
        str(mod)  # an ill-formed module still prints, or raises; it does not crash
        return False
    text = str(mod)
    assert str(passline.IRModule.parse(text)) == text
    return True


@st.composite
def modules(draw):
    """A module of a few functions built from random trees; None where a
    constructor refused."""
    functions = []
    for _ in range(draw(st.integers(1, 4))):
        builder = Builder(draw)
        try:
            params = builder.scope + [builder.var() for _ in range(draw(st.integers(0, 2)))]
            builder.scope = list(params)
            body = builder.expr(draw(st.integers(0, 6)))
            functions.append(ir.Function(draw(NAMES), params, body, draw(TYPES), exported=draw(st.booleans()),
                                         skip_optimization=draw(st.booleans())))
        except EXPECTED:
            continue
    try:
        return passline.IRModule(functions)
    except EXPECTED:
        return None


@PROFILE
@given(modules(), st.sampled_from(["InferType", "O1", "O2", "O3", "ToANormalForm,LambdaLift"]),
       st.sampled_from([1, 2]))
def test_random_trees_are_refused_or_print_text_that_parses_back_and_optimize(mod, pipeline, threads):
    if mod is None:
        event("refused")
        return
    verified = check_round_trip(mod)
    event(f"{len(mod)} functions, {'verified' if verified else 'ill-formed'}")
    if not verified:
        return
    before = str(mod)
    try:
        with passline.PassContext(opt_level=3, config={"threads": threads}):
            result = passline.parse_pipeline(pipeline)(mod)
    except EXPECTED:
        event("the pipeline raised")
    else:
        event("the pipeline ran")
        assert check_round_trip(result)
    assert str(mod) == before


@PROFILE
@given(st.integers(0, 3000), st.integers(0, 6))
def test_deep_trees_are_refused_past_the_limit_and_print_back_within_it(depth, shape):
    x = ir.Var("x", "i64")
    wrap = [lambda e: ir.add(e, 1), lambda e: -e, lambda e: ir.If(True, e, 0),
            lambda e: ir.Call(ir.Closure([], e), []), lambda e: ir.Tuple([e]),
            lambda e: ir.TupleGetItem(ir.Tuple([e]), 0), lambda e: ir.Let(ir.Var("v", "i64"), e, x)][shape]
    e = x
    try:
        for _ in range(depth):
            e = wrap(e)
    except passline.IRError as error:
        assert "nested more than 256 deep" in str(error)
        return
    try:
        mod = passline.IRModule([ir.Function("main", [x], e)])
    except EXPECTED:
        return  # a Let that binds the same Var twice, say
    check_round_trip(mod)


@PROFILE
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=12))
def test_contexts_entered_and_exited_in_any_order_keep_the_stack_right(operations):
    contexts = [passline.PassContext(opt_level=level) for level in (0, 1, 3)]
    entered = []
    for which, enter in operations:
        ctx = contexts[which]
        if enter:
            ctx.__enter__()
            entered.append(ctx)
        else:
            try:
                ctx.__exit__(None, None, None)
            except RuntimeError:
                assert not entered or entered[-1] is not ctx
            else:
                assert entered and entered[-1] is ctx
                entered.pop()
        expected = entered[-1].opt_level if entered else 2
        assert passline.PassContext.current().opt_level == expected
    while entered:
        entered.pop().__exit__(None, None, None)
    assert passline.PassContext.current().opt_level == 2


@passline.instrument.pass_instrument
class Flaky:
    """An instrument whose hooks raise on the passes it is told to."""

    def __init__(self, raise_in):
        self.raise_in = raise_in

    def run_before_pass(self, mod, info):
        if ("before", info.name) in self.raise_in:
            raise ValueError("before " + info.name)

    def run_after_pass(self, mod, info):
        if ("after", info.name) in self.raise_in:
            raise ValueError("after " + info.name)

    def should_run(self, mod, info):
        return ("skip", info.name) not in self.raise_in


def python_pass(kind, victims):
    """A Python function pass that misbehaves on the functions named in `victims`."""
    def run(func, mod, ctx):
        str(mod)  # the module it sees is whole
        if func.name not in victims:
            return func.with_body(func.body)
        if kind == "raise":
            raise KeyError(func.name)
        if kind == "wrong":
            return 42
        if kind == "rename":
            return ir.Function("renamed", func.params, func.body, func.ret_type)
        del mod[func.name]
    return passline.function_pass(run, opt_level=0, name=f"Py{kind.capitalize()}")


PASS_NAMES = st.sampled_from(["InferType", "FoldConstant", "DeadCodeElimination", "EliminateCommonSubexpr",
                              "SimplifyExpr", "Inline", "ToANormalForm", "LambdaLift", "O0", "O1", "O2", "O3"])
PROGRAM = "".join(f"def @f{i}(%x: i64) -> i64 {{\n  let %y = add(%x, {i});\n  mul(%y, add(2, 3))\n}}\n\n"
                  for i in range(6)) + "#[export]\ndef @main(%x: i64) -> i64 {\n  @f0(@f5(%x))\n}\n"


@PROFILE
@given(st.lists(st.one_of(PASS_NAMES.map(lambda name: ("cpp", name)),
                          st.tuples(st.sampled_from(["raise", "wrong", "rename", "delete", "fine"]),
                                    st.sets(st.sampled_from([f"f{i}" for i in range(6)]), max_size=3))),
                min_size=1, max_size=5),
       st.integers(0, 3), st.sampled_from([1, 2, 4]),
       st.sets(st.tuples(st.sampled_from(["before", "after", "skip"]), PASS_NAMES), max_size=2),
       st.booleans())
def test_random_pipelines_under_random_contexts_give_an_error_or_a_correct_module(steps, opt_level, threads, flaky,
                                                                                   verify_preserved):
    passes = [passline.create(step[1]) if step[0] == "cpp" else python_pass(*step) for step in steps]
    instruments = [Flaky(flaky)] + ([instrument.VerifyPreserved()] if verify_preserved else [])
    mod = passline.IRModule.parse(PROGRAM, "program.ir")
    before = str(mod)
    try:
        with passline.PassContext(opt_level=opt_level, config={"threads": threads}, instruments=instruments):
            result = passline.Sequential(passes)(mod)
    except EXPECTED as error:
        event(f"raised {type(error).__name__}")
        assert str(mod) == before  # a failing pipeline leaves the caller's module as it was
        return
    event("ran")
    assert str(mod) == before
    assert check_round_trip(result)


@PROFILE
@given(st.lists(st.one_of(st.integers(), st.text(max_size=3), st.none(), st.floats(), st.just(object()),
                          st.just(instrument.PassTimingInstrument())), max_size=3),
       st.dictionaries(st.one_of(st.text(max_size=8), st.integers()),
                       st.one_of(st.integers(-2 ** 80, 2 ** 80), st.text(max_size=4), st.floats(), st.booleans(),
                                 st.none()), max_size=2))
def test_contexts_from_any_values_are_built_or_refused_with_python_exceptions(instruments, config):
    try:
        ctx = passline.PassContext(instruments=instruments, config=config)
    except EXPECTED:
        return
    with ctx:
        passline.create("O1")(passline.IRModule.parse(PROGRAM))


def test_python_passes_on_several_threads_at_once_from_several_python_threads():
    mod = passline.IRModule.parse(PROGRAM)
    errors = []

    def work():
        try:
            with passline.PassContext(config={"threads": 4}):
                for _ in range(20):
                    check_round_trip(passline.Sequential([python_pass("fine", set()), passline.create("O2")])(mod))
        except Exception as error:  # noqa: BLE001: reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


# Contexts and modules that Python code kept past the pass or the run that
# handed them over, across examples: the later examples use those of the
# earlier ones, whose threads and stack frames are gone.
KEPT = []

LIFETIME_PROGRAM = "def @f0(%x: i64) -> i64 {\n  add(%x, 1)\n}\ndef @f1(%x: i64) -> i64 {\n  mul(%x, 2)\n}\n"


def keeping_passes(kinds, kept):
    """Passes that keep what they are handed: the context, the module a
    function pass is shown, `PassContext.current()`, and those of a run
    nested in a function pass."""
    def module_keeper(mod, ctx):
        kept.extend([("context", ctx), ("context", passline.PassContext.current())])
        return mod

    def function_keeper(func, mod, ctx):
        kept.extend([("context", ctx), ("shown", mod), ("context", passline.PassContext.current())])
        return func

    def nested(func, mod, ctx):
        inner = passline.module_pass(module_keeper, opt_level=0, name="KeepInner")
        inner(passline.IRModule.parse(LIFETIME_PROGRAM))
        kept.append(("context", passline.PassContext.current()))
        return func

    made = {"module": lambda: passline.module_pass(module_keeper, opt_level=0, name="KeepModule"),
            "function": lambda: passline.function_pass(function_keeper, opt_level=0, name="KeepFunction"),
            "nested": lambda: passline.function_pass(nested, opt_level=0, name="KeepNested")}
    return [made[kind]() for kind in kinds]


def use_kept(kind, value, use):
    """Uses a kept object: it works, or raises a Python exception that says why."""
    mod = passline.IRModule.parse(LIFETIME_PROGRAM)
    if kind == "shown":
        try:
            if use == "delattr":
                del value._passline_read_only
            else:
                value["f0"] = value["f1"]
        except (TypeError, AttributeError) as error:
            event(f"shown module: {type(error).__name__}")
        else:
            raise AssertionError("a function pass's module was changed")
        assert "f0" in value and str(value)  # and it is still whole
        return
    try:
        if use == "read":
            assert isinstance(value.opt_level, int)
            value.config(), value.required_pass, value.disabled_pass, value.instruments  # noqa: B018
        elif use == "set":
            value.opt_level = 1
            value.disabled_pass = ["Inline"]
        elif use == "enter":
            with value:
                passline.create("InferType")(mod)
        else:  # "run", and "delattr", which is for modules
            use = "run"
            passline.create("O1")(mod, value)
        event(f"kept context: {use} worked")
    except RuntimeError as error:
        assert "PassContext" in str(error)
        event(f"kept context: {use} refused")


@PROFILE
@given(st.lists(st.sampled_from(["module", "function", "nested"]), min_size=1, max_size=3),
       st.sampled_from([1, 4]), st.booleans(),
       st.lists(st.sampled_from(["read", "set", "enter", "run", "delattr"]), min_size=1, max_size=4))
def test_contexts_and_modules_kept_past_their_scope_are_owned_or_refused(kinds, threads, other_thread, uses):
    kept = []
    passes = keeping_passes(kinds, kept)

    def run():
        with passline.PassContext(config={"threads": threads}):
            passline.Sequential(passes)(passline.IRModule.parse(LIFETIME_PROGRAM))

    if other_thread:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    else:
        run()
    assert kept
    KEPT.extend(kept)
    del KEPT[:-60]
    for i, use in enumerate(uses):
        kind, value = KEPT[(i * 7) % len(KEPT)]
        use_kept(kind, value, use)


def test_a_context_that_a_pipeline_runs_under_does_not_change_meanwhile():
    ctx = passline.PassContext(config={"threads": 2})
    started, finish = threading.Event(), threading.Event()
    seen = []

    def slow(mod, pass_ctx):
        started.set()
        finish.wait(10)
        seen.append(pass_ctx.opt_level)
        with pytest.raises(RuntimeError, match="read-only copy|in use by a running pipeline"):
            pass_ctx.opt_level = 0  # the pass's context is not its to change either
        return mod

    runner = threading.Thread(target=lambda: passline.module_pass(slow, opt_level=0, name="Slow")(
        passline.IRModule.parse(LIFETIME_PROGRAM), ctx))
    runner.start()
    assert started.wait(10)
    try:
        for change in (lambda: setattr(ctx, "opt_level", 0), lambda: setattr(ctx, "required_pass", ["Inline"]),
                       lambda: setattr(ctx, "disabled_pass", ["Inline"]), lambda: ctx.override_instruments(None)):
            with pytest.raises(RuntimeError, match="in use by a running pipeline"):
                change()
    finally:
        finish.set()
        runner.join()
    assert seen == [2]
    ctx.opt_level = 0  # the run is over
    assert ctx.opt_level == 0


def test_the_default_context_object_stands_for_the_calling_threads_default():
    default = passline.PassContext.current()
    assert passline.PassContext.current() is default
    other = []
    thread = threading.Thread(target=lambda: other.append(passline.PassContext.current()))
    thread.start()
    thread.join()
    assert other[0] is default  # kept past its thread: it is every thread's default, never a dead one
    default.opt_level = 3
    try:
        seen = []
        thread = threading.Thread(target=lambda: seen.append(other[0].opt_level))
        thread.start()
        thread.join()
        assert seen == [2] and default.opt_level == 3  # each thread's own
    finally:
        default.opt_level = 2

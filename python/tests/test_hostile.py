"""What a careless or hostile Python user writes: an exception, never a crash,
and never a silently wrong result."""
import subprocess
import sys
import threading
import time

import pytest

import passline
from passline import ir

PROGRAM = """\
def @helper(%a: i64) -> i64 {
  add(%a, 1)
}

#[export]
def @main(%x: i64) -> i64 {
  @helper(mul(%x, add(3, 4)))
}
"""


def parse():
    return passline.IRModule.parse(PROGRAM, "hostile.ir")


def many_functions(count):
    return passline.IRModule.parse("".join(f"def @f{i}(%x: i64) -> i64 {{\n  add(%x, {i})\n}}\n\n"
                                           for i in range(count)))


# -- Context scopes -------------------------------------------------------------

def test_exit_without_enter_is_an_error():
    ctx = passline.PassContext()
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        ctx.__exit__(None, None, None)


def test_exit_twice_is_an_error():
    ctx = passline.PassContext(opt_level=3)
    ctx.__enter__()
    ctx.__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        ctx.__exit__(None, None, None)
    assert passline.PassContext.current().opt_level == 2


def test_exit_out_of_order_is_an_error_and_changes_nothing():
    outer, inner = passline.PassContext(opt_level=1), passline.PassContext(opt_level=3)
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="not the innermost"):
        outer.__exit__(None, None, None)
    assert passline.PassContext.current().opt_level == 3
    inner.__exit__(None, None, None)
    assert passline.PassContext.current().opt_level == 1
    outer.__exit__(None, None, None)
    assert passline.PassContext.current().opt_level == 2


def test_exit_on_another_thread_is_an_error():
    ctx = passline.PassContext(opt_level=0)
    ctx.__enter__()
    errors = []

    def exit_there():
        try:
            ctx.__exit__(None, None, None)
        except RuntimeError as error:
            errors.append(str(error))

    thread = threading.Thread(target=exit_there)
    thread.start()
    thread.join()
    assert len(errors) == 1 and "on this thread" in errors[0]
    assert passline.PassContext.current().opt_level == 0
    ctx.__exit__(None, None, None)


def test_an_entered_context_outlives_its_last_python_reference():
    passline.PassContext(opt_level=3).__enter__()
    import gc
    gc.collect()
    assert passline.PassContext.current().opt_level == 3
    passline.PassContext.current().__exit__(None, None, None)
    assert passline.PassContext.current().opt_level == 2


class Hooks:
    def __init__(self):
        self.log = []

    def enter_pass_ctx(self):
        self.log.append("enter")

    def exit_pass_ctx(self):
        self.log.append("exit")


def test_a_context_left_entered_exits_when_its_thread_ends():
    hooks = Hooks()
    thread = threading.Thread(target=lambda: passline.PassContext(instruments=[hooks]).__enter__())
    thread.start()
    thread.join()
    # The thread's C++ end (its thread-local objects) may come a moment after join().
    deadline = time.monotonic() + 30
    while len(hooks.log) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hooks.log == ["enter", "exit"]
    assert passline.PassContext.current().opt_level == 2


def test_a_context_left_entered_at_exit_exits_while_python_can_run_its_hooks():
    program = ("import passline\n"
               "class Hooks:\n"
               "    def exit_pass_ctx(self):\n"
               "        print('exited', flush=True)\n"
               "passline.PassContext(instruments=[Hooks()]).__enter__()\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "exited\n", "")


# -- Trees built from Python ------------------------------------------------------

DEEP = 100_000


def nested(make, depth):
    e = ir.Var("x", "i64")
    for _ in range(depth):
        e = make(e)
    return e


@pytest.mark.parametrize("make", [
    lambda e: ir.add(e, 1),
    lambda e: -e,
    lambda e: ir.If(True, e, 0),
    lambda e: ir.Call(ir.Closure([], e), []),
    lambda e: ir.Tuple([e]),
], ids=["operator", "negation", "if", "closure", "tuple"])
def test_a_tree_nested_deeper_than_the_parser_reads_is_refused_as_it_is_built(make):
    with pytest.raises(passline.IRError, match="nested more than 256 deep"):
        nested(make, DEEP)


def test_a_tree_as_deep_as_the_limit_prints_and_parses_back():
    x = ir.Var("x", "i64")
    body = x
    for _ in range(256):
        body = ir.add(body, 1)
    mod = passline.IRModule([ir.Function("main", [x], body, "i64", exported=True)])
    assert str(passline.IRModule.parse(str(mod))) == str(mod)
    with pytest.raises(passline.IRError, match="nested more than 256 deep"):
        ir.add(body, 1)


def test_a_long_let_chain_is_no_nesting():
    x = ir.Var("x", "i64")
    body = x
    for i in range(10_000):
        v = ir.Var(f"v{i}", "i64")
        body = ir.Let(v, ir.add(x, i), body)
    mod = passline.IRModule([ir.Function("main", [x], body, "i64")])
    assert str(passline.IRModule.parse(str(mod))) == str(mod)


def test_a_rewrite_cannot_build_a_tree_too_deep():
    x = ir.Var("x", "i64")
    body = x
    for _ in range(200):
        body = ir.add(body, 1)
    fn = ir.Function("main", [x], body, "i64")

    def deepen(e):
        if isinstance(e, ir.Constant):
            return nested(lambda inner: -inner, 100)
    with pytest.raises(passline.IRError, match="nested more than 256 deep"):
        fn.body.rewrite(deepen)


@pytest.mark.parametrize("name", ["", "evil\n#[export]\ndef @evil", "a b", "x%", "é"])
def test_names_are_names_the_text_format_reads(name):
    x = ir.Var("x", "i64")
    with pytest.raises(ValueError, match="is not a name"):
        ir.Function(name, [x], x, "i64")
    with pytest.raises(ValueError, match="is not a name"):
        ir.Var(name, "i64")
    with pytest.raises(ValueError, match="is not a name"):
        ir.GlobalVar(name)
    mod = parse()
    with pytest.raises(ValueError, match="is not a name"):
        mod[name] = mod["helper"]
    assert str(passline.IRModule.parse(str(mod))) == str(mod)


def test_constants_hold_what_the_text_format_writes():
    with pytest.raises(OverflowError):
        ir.Constant(2 ** 63)
    with pytest.raises(OverflowError):
        ir.add(ir.Var("x", "i64"), -2 ** 64)
    assert ir.Constant(-2 ** 63).value == -2 ** 63


def test_types_are_strs_the_text_format_reads():
    with pytest.raises(TypeError, match="a type is a str"):
        ir.Var("x", 64)
    with pytest.raises(passline.IRError):
        ir.Var("x", "i65")
    assert ir.Var("x", "fn(i64) -> (i64, bool)").type == "fn(i64) -> (i64, bool)"


def test_a_module_holds_a_function_name_once():
    x = ir.Var("x", "i64")
    fn = ir.Function("f", [x], x, "i64")
    with pytest.raises(ValueError, match="given twice"):
        passline.IRModule([fn, fn])


# -- Function passes and the module they see ---------------------------------------------

@pytest.mark.parametrize("threads", [1, 4])
def test_a_function_pass_sees_the_whole_module_as_it_was_before(threads):
    original = parse()
    seen = []

    @passline.function_pass(opt_level=0)
    def look(func, mod, ctx):
        seen.append((str(mod), str(mod["helper"].body), str(passline.create("O2")(mod))))
        return func.with_body(ir.add(func.body, 0))

    with passline.PassContext(config={"threads": threads}):
        result = look(original)
    assert len(seen) == 2
    for text, helper, optimized in seen:
        assert text == str(original)
        assert helper == str(original["helper"].body)
        assert "@main" in optimized
    assert str(result) != str(original)


@pytest.mark.parametrize("threads", [1, 4])
def test_a_function_pass_cannot_change_the_module_it_sees(threads):
    mod = many_functions(40)
    x = ir.Var("x", "i64")

    @passline.function_pass(opt_level=0)
    def vandal(func, mod, ctx):
        if func.name == "f3":
            del mod["f0"]
        if func.name == "f5":
            mod["extra"] = ir.Function("extra", [x], x, "i64")
        return func

    with passline.PassContext(config={"threads": threads}):
        with pytest.raises(TypeError, match="this IRModule is read-only") as raised:
            vandal(mod)
    assert raised.value.__notes__ == ["raised in pass 'vandal'"]
    assert len(mod) == 40


def test_a_kept_module_outlives_the_pass():
    kept = []

    @passline.function_pass(opt_level=0)
    def keep(func, mod, ctx):
        kept.append(mod)
        return func

    keep(parse())
    import gc
    gc.collect()
    assert all(str(m) == str(parse()) for m in kept)


@pytest.mark.parametrize("threads", [1, 4])
def test_a_function_pass_result_takes_its_inputs_place(threads):
    mod = parse()

    @passline.function_pass(opt_level=0)
    def fresh(func, mod, ctx):
        return ir.Function("f", func.params, func.body, func.ret_type)

    with passline.PassContext(config={"threads": threads}):
        result = fresh(mod)
    assert [f.name for f in result.functions] == ["helper", "main"]
    assert result["main"].exported and not result["helper"].exported
    result.verify()


@pytest.mark.parametrize("returned, kind", [(None, "NoneType"), (42, "int"), ("main", "str")])
def test_a_pass_returning_the_wrong_thing_is_a_type_error_naming_it(returned, kind):
    @passline.function_pass(opt_level=0, name="Wrong")
    def wrong_function(func, mod, ctx):
        return returned

    @passline.module_pass(opt_level=0, name="WrongModule")
    def wrong_module(mod, ctx):
        return returned

    for run, message in ((wrong_function, f"pass 'Wrong' returned {kind}, not a Function"),
                         (wrong_module, f"pass 'WrongModule' returned {kind}, not an IRModule")):
        with pytest.raises(TypeError) as raised:
            run(parse())
        assert str(raised.value) == message


def test_passes_raising_on_some_functions_on_several_threads_report_the_first():
    mod = many_functions(50)

    @passline.function_pass(opt_level=0)
    def picky(func, mod, ctx):
        if func.name in ("f7", "f31", "f44"):
            raise KeyError(func.name)
        return func

    for _ in range(5):
        with passline.PassContext(config={"threads": 4}):
            with pytest.raises(KeyError) as raised:
                picky(mod)
        assert raised.value.args == ("f7",)


# -- Instruments, config values, pass lists --------------------------------------------

@pytest.mark.parametrize("bad", [42, "x", None, object()])
def test_an_instrument_is_an_instrument(bad):
    with pytest.raises(TypeError, match="an instrument is"):
        passline.PassContext(instruments=[bad])


def test_an_instrument_class_is_not_an_instrument():
    @passline.instrument.pass_instrument
    class Hooks:
        def run_before_pass(self, mod, info):
            pass

    with pytest.raises(TypeError, match="not the class 'Hooks'"):
        passline.PassContext(instruments=[Hooks])
    passline.PassContext(instruments=[Hooks()])


def test_config_values_have_python_exception_types():
    with pytest.raises(OverflowError):
        passline.PassContext(config={"threads": 2 ** 70})
    with pytest.raises(TypeError, match="is a str"):
        passline.PassContext(config={3: 1})
    with pytest.raises(TypeError):
        passline.PassContext(config={"threads": [1]})
    with pytest.raises(passline.ConfigError):
        passline.PassContext(config={"threads": "many"})
    with pytest.raises(OverflowError):
        passline.create("Inline", max_depth=2 ** 64)


def test_pass_lists_hold_passes():
    with pytest.raises(TypeError):
        passline.Sequential([passline.create("InferType"), 3])
    with pytest.raises(TypeError):
        passline.PassContext(required_pass="InferType")
    with pytest.raises(TypeError):
        passline.PassContext(disabled_pass=[None])

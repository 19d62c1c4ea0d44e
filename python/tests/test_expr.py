"""The reference IR's expressions from Python: read, build, rewrite, and
functions replaced, added and dropped."""
import textwrap

import pytest

import passline
from passline import ir

PROGRAM = """\
def @helper(%a: i64, %b: i64) -> i64 {
  add(%a, %b)
}

#[export]
def @main(%x: i64) -> (i64, bool) {
  let %y = mul(%x, 1);
  let %f = fn(%z: i64) -> i64 { @helper(%z, 2) };
  let %big = gt(%y, 10);
  (if %big { %f(%y) } else { 0 }, %big)
}
"""


def parse():
    return passline.IRModule.parse(PROGRAM, "main.ir")


def test_a_function_reads_as_a_tree_whose_uses_are_its_binders():
    main = parse()["main"]
    (x,) = main.params
    assert isinstance(x, ir.Var) and (x.name, x.type) == ("x", "i64")
    assert main.ret_type == "(i64, bool)"
    let_y = main.body
    assert isinstance(let_y, ir.Let) and let_y.var.name == "y"
    mul = let_y.value
    assert isinstance(mul, ir.Operator) and mul.op == "mul"
    assert mul.args[0] is x
    assert isinstance(mul.args[1], ir.Constant) and mul.args[1].value == 1
    let_f = let_y.body
    closure = let_f.value
    assert isinstance(closure, ir.Closure) and closure.ret_type == "i64"
    call = closure.body
    assert isinstance(call, ir.Call) and isinstance(call.callee, ir.GlobalVar)
    assert call.callee.name == "helper" and call.args[0] is closure.params[0]
    result = let_f.body.body
    assert isinstance(result, ir.Tuple)
    branch, big = result.fields
    assert isinstance(branch, ir.If) and branch.cond is big is let_f.body.var
    assert isinstance(branch.true_branch, ir.Call) and branch.true_branch.callee is let_f.var


def test_types_are_read_after_infer_type():
    main = passline.create("InferType")(parse())["main"]
    assert main.body.value.type == "i64"
    assert main.body.body.body.body.type == "(i64, bool)"
    assert parse()["main"].body.value.type is None


def test_post_order_visits_operands_first_and_each_expression_once():
    main = parse()["main"]
    order = main.body.post_order()
    position = {id(e): i for i, e in enumerate(order)}
    assert len(position) == len(order)
    for e in order:
        assert all(position[id(o)] < position[id(e)] for o in e.operands)
    assert order[-1] is main.body


def test_a_function_built_in_python_prints_and_parses_back():
    x = ir.Var("x", "i64")
    t = ir.Var("t")
    body = ir.Let(t, ir.Tuple([ir.mul(x, 2), True, 1.5]),
                  ir.If(ir.TupleGetItem(t, 1), ir.add(ir.TupleGetItem(t, 0), 1), ir.neg(x)))
    func = ir.Function("main", [x], body, ret_type="i64", exported=True)
    mod = passline.IRModule([func])
    mod.verify()
    text = str(mod)
    assert "#[export]" in text and "def @main(%x: i64) -> i64" in text
    again = passline.IRModule.parse(text)
    assert passline.structural_equal(again, mod)
    assert str(again) == text
    typed = passline.create("InferType")(mod)
    assert typed["main"].body.value.type == "(i64, bool, f64)"


def test_python_operators_and_constants_build_operators():
    x = ir.Var("x", "i64")
    e = -(x * 3 + 4 - x)
    assert isinstance(e, ir.Operator) and e.op == "neg"
    assert e.args[0].op == "sub" and e.args[0].args[0].op == "add"
    assert e.args[0].args[0].args[1].value == 4
    func = ir.Function("f", [x], e, ret_type="i64")
    assert "neg(sub(add(mul(%x, 3), 4), %x))" in str(func)


def test_a_python_function_pass_rewrites_expressions():
    @passline.function_pass(opt_level=1, name="DropMulByOne")
    def drop_mul_by_one(func, mod, ctx):
        def simplify(e):
            if isinstance(e, ir.Operator) and e.op == "mul":
                a, b = e.args
                if isinstance(b, ir.Constant) and b.value == 1:
                    return a
            return None
        return func.with_body(func.body.rewrite(simplify))

    mod = drop_mul_by_one(parse())
    assert "let %y = %x;" in str(mod)
    assert "mul" not in str(mod["main"])
    assert passline.structural_equal(mod["helper"], parse()["helper"])


def test_rewrite_keeps_what_it_does_not_change():
    main = parse()["main"]
    assert main.body.rewrite(lambda e: None) is main.body
    assert passline.structural_equal(main.with_body(main.body), main)


def test_functions_are_replaced_added_and_dropped():
    mod = parse()
    a = ir.Var("a", "i64")
    mod["twice"] = ir.Function("ignored", [a], ir.mul(a, 2), ret_type="i64")
    assert [f.name for f in mod.functions] == ["helper", "main", "twice"]
    b = ir.Var("b", "i64")
    mod["helper"] = ir.Function("helper", [a, b], ir.Call(ir.GlobalVar("twice"), [ir.sub(a, b)]), ret_type="i64")
    assert "@twice(sub(%a, %b))" in str(mod["helper"])
    mod.verify()
    del mod["twice"]
    assert "twice" not in mod and len(mod) == 2
    with pytest.raises(passline.IRError, match="unknown function '@twice'"):
        mod.verify()
    with pytest.raises(KeyError):
        del mod["twice"]


def test_a_module_pass_adds_a_function():
    @passline.module_pass(opt_level=0)
    def add_identity(mod, ctx):
        v = ir.Var("v", "i64")
        mod["identity"] = ir.Function("identity", [v], v, ret_type="i64", exported=True)
        return mod

    mod = passline.Sequential([add_identity, passline.create("DeadCodeElimination")])(parse())
    assert "identity" in mod and mod["identity"].exported


def test_scope_errors_are_ir_errors():
    x = ir.Var("x", "i64")
    y = ir.Var("y", "i64")
    with pytest.raises(passline.IRError, match="variable '%y' is used outside its scope"):
        ir.Function("f", [x], ir.add(x, y))
    with pytest.raises(passline.IRError, match="variable '%x' is bound twice"):
        ir.Function("f", [x], ir.Let(x, 1, x))
    with pytest.raises(passline.IRError, match="parameter '%z' needs a type"):
        ir.Function("f", [ir.Var("z")], 1)
    t = ir.Var("t")
    with pytest.raises(passline.IRError, match="used outside its scope"):
        ir.Function("f", [x], ir.Let(t, ir.add(t, 1), t))


def test_malformed_expressions_are_refused_where_they_are_built():
    with pytest.raises(ValueError, match="operator 'add' takes 2 operands, not 1"):
        ir.Operator("add", [1])
    with pytest.raises(ValueError, match="unknown operator 'pow'"):
        ir.Operator("pow", [1, 2])
    with pytest.raises(TypeError, match="a binder is a Var"):
        ir.Let(ir.Constant(1), 2, 3)
    with pytest.raises(TypeError, match="a Constant holds a bool, an int or a float, not str"):
        ir.Constant("seven")
    with pytest.raises(passline.IRError, match="unknown type 'i32'"):
        ir.Var("x", "i32")
    assert ir.parse_type("fn(i64, (bool,)) -> f64") == "fn(i64, (bool,)) -> f64"


def test_a_chain_of_a_hundred_thousand_lets_is_built_read_and_dropped_without_recursion():
    x = ir.Var("x", "i64")
    body = x
    for i in range(100_000):
        v = ir.Var(f"v{i}")
        body = ir.Let(v, ir.add(x, i), body)
    func = ir.Function("long", [x], body, ret_type="i64")
    mod = passline.IRModule([func])
    again = passline.IRModule.parse(str(mod))
    assert len(again["long"].body.post_order()) == len(func.body.post_order())
    del body, func, mod, again


def test_arithmetic_operators_and_their_reflections_build_operators():
    x = ir.Var("x", "i64")
    for expr, text in ((x / 2, "div(%x, 2)"), (x % 3, "mod(%x, 3)"), (2 * x, "mul(2, %x)"), (1 + x, "add(1, %x)"),
                       (10 - x, "sub(10, %x)"), (8 / x, "div(8, %x)"), (9 % x, "mod(9, %x)"), (x - 1, "sub(%x, 1)")):
        fn = ir.Function("f", [x], expr, "i64")
        assert text in str(fn), (text, str(fn))


def documented_propagate():
    """The constant propagation of ExprMutator's docstring, run as written."""
    example = textwrap.dedent(ir.ExprMutator.__doc__.split("\n\n", 1)[1])
    namespace = {"ir": ir}
    exec(example, namespace)
    return namespace["Propagate"]


def test_a_mutator_substitutes_let_bound_variables():
    mod = passline.IRModule.parse(
        "def @main(%x: i64) -> i64 {\n  let %a = 3;\n  let %b = add(%x, %a);\n  if lt(%a, %b) { %a } else { %b }\n}\n")
    out = documented_propagate()().visit(mod["main"])
    assert str(out) == ("def @main(%x: i64) -> i64 {\n  let %b = add(%x, 3);\n"
                        "  if lt(3, %b) {\n    3\n  } else {\n    %b\n  }\n}\n"), str(out)


def test_a_mutator_that_changes_nothing_keeps_the_function():
    mod = passline.IRModule.parse("def @main(%x: i64) -> i64 {\n  let %b = add(%x, 1);\n  (%b, %b).0\n}\n")
    assert ir.ExprMutator().visit(mod["main"]).same_as(mod["main"])


def test_a_visitor_sees_each_expression_once():
    class Count(ir.ExprVisitor):
        def __init__(self):
            super().__init__()
            self.vars = 0
            self.constants = []

        def visit_var(self, var):
            self.vars += 1

        def visit_constant(self, const):
            self.constants.append(const.value)

    mod = passline.IRModule.parse("def @main(%x: i64) -> i64 {\n  let %b = add(%x, 1);\n  mul(%b, add(%b, 2))\n}\n")
    count = Count()
    count.visit(mod["main"])
    assert count.vars == 2 and sorted(count.constants) == [1, 2]
    with pytest.raises(TypeError, match="Count.visit takes an expression or a Function, not int"):
        count.visit(3)


def test_a_functor_without_a_method_says_which_class_it_lacks():
    with pytest.raises(NotImplementedError, match="ExprFunctor does not visit Var"):
        ir.ExprFunctor().visit(ir.Var("x", "i64"))

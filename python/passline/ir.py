"""The reference IR's expressions, as TVM's `relay` shows Relay's.

A function's `params` and `body` are expression trees (the uses of a
parameter are the parameter's own Var object); new trees are built from the
classes below and become a function with `Function(name, params, body)` or
`func.with_body(body)`. Python ints, floats and bools stand for constants
wherever an expression is expected.

    from passline import ir

    x = ir.Var("x", "i64")
    func = ir.Function("main", [x], ir.add(ir.mul(x, 2), 1), ret_type="i64", exported=True)
"""
from ._core import (Call, Closure, Constant, Expr, Function, GlobalVar, If, Let,
                    Operator, Tuple, TupleGetItem, Var, parse_type)

OPERATORS = ("add", "sub", "mul", "div", "mod", "neg", "eq", "ne", "lt", "le",
             "gt", "ge", "and", "or", "not", "select")

__all__ = ["Call", "Closure", "Constant", "Expr", "ExprFunctor", "ExprMutator", "ExprVisitor",
           "Function", "GlobalVar", "If", "Let", "Operator", "Tuple", "TupleGetItem", "Var", "const",
           "parse_type", "OPERATORS"] + [op + "_" if op in ("and", "or", "not") else op for op in OPERATORS]


def const(value):
    """A constant: an i64 for an int, an f64 for a float, a bool for a bool."""
    return Constant(value)


def _operator(name):
    def apply(*args):
        return Operator(name, args)
    apply.__name__ = name
    apply.__doc__ = f"The operator `{name}` applied to its operands."
    return apply


for _name in OPERATORS:
    globals()[_name + "_" if _name in ("and", "or", "not") else _name] = _operator(_name)
del _name


class ExprFunctor:
    """TVM's ExprFunctor over the reference IR: `visit(expr)` calls the method
    for the expression's class, once per expression (the result is kept in
    `memo_map`, as TVM's):

    | class | method |
    |---|---|
    | Var | visit_var(var) |
    | Constant | visit_constant(const) |
    | Operator | visit_operator(op) (TVM's visit_call on an Op) |
    | Call | visit_call(call) |
    | GlobalVar | visit_global_var(gvar) |
    | Let | visit_let(let) |
    | If | visit_if(ite) |
    | Tuple | visit_tuple(tup) |
    | TupleGetItem | visit_tuple_getitem(item) |
    | Closure | visit_closure(closure) (TVM's visit_function on a local function) |
    | Function | visit_function(func) |

    The uses of a variable are its binder's Var object, so a visit of a
    use finds what the binder's visit left in `memo_map`. Visits recurse on
    Python's stack.
    """

    def __init__(self):
        self.memo_map = {}

    def visit(self, expr):
        if expr in self.memo_map:
            return self.memo_map[expr]
        method = _METHODS.get(type(expr))
        if method is None:
            raise TypeError(f"{type(self).__name__}.visit takes an expression or a Function, "
                            f"not {type(expr).__name__}")
        result = getattr(self, method)(expr)
        self.memo_map[expr] = result
        return result

    def _unhandled(self, expr):
        raise NotImplementedError(f"{type(self).__name__} does not visit {type(expr).__name__}")

    visit_var = visit_constant = visit_operator = visit_call = visit_global_var = _unhandled
    visit_let = visit_if = visit_tuple = visit_tuple_getitem = visit_closure = visit_function = _unhandled


_METHODS = {Var: "visit_var", Constant: "visit_constant", Operator: "visit_operator", Call: "visit_call",
            GlobalVar: "visit_global_var", Let: "visit_let", If: "visit_if", Tuple: "visit_tuple",
            TupleGetItem: "visit_tuple_getitem", Closure: "visit_closure", Function: "visit_function"}


class ExprVisitor(ExprFunctor):
    """Visits every expression under the one visited, once each; override
    the methods for the classes you look at, and call the base method to go
    on into the operands."""

    def _leaf(self, expr):
        return None

    visit_var = visit_constant = visit_global_var = _leaf

    def _operands(self, expr):
        for operand in expr.operands:
            self.visit(operand)

    visit_operator = visit_call = visit_let = visit_if = visit_tuple = visit_tuple_getitem = _operands
    visit_closure = _operands

    def visit_function(self, func):
        for param in func.params:
            self.visit(param)
        self.visit(func.body)


class ExprMutator(ExprFunctor):
    """Rebuilds the expression visited from what the visits of its operands
    return; an expression whose operands come back as they were is kept as
    it is (so a mutation that changes nothing gives a function that is
    `same_as` its input). Override visit_var to substitute variables:
    constant propagation records a let's value in visit_let and returns it
    from visit_var for the uses.

        class Propagate(ir.ExprMutator):
            def __init__(self):
                super().__init__()
                self.known = {}

            def visit_let(self, let):
                value = self.visit(let.value)
                if isinstance(value, ir.Constant):
                    self.known[let.var] = value
                    return self.visit(let.body)  # the let goes
                return super().visit_let(let)

            def visit_var(self, var):
                return self.known.get(var, var)
    """

    def _leaf(self, expr):
        return expr

    visit_var = visit_constant = visit_global_var = _leaf

    def _changed(self, parts):
        """The visits of `parts`, or None when each came back as it was."""
        new = [self.visit(part) for part in parts]
        return new if any(a is not b for a, b in zip(new, parts)) else None

    def visit_operator(self, op):
        args = self._changed(op.args)
        return op if args is None else Operator(op.op, args)

    def visit_call(self, call):
        parts = self._changed([call.callee, *call.args])
        return call if parts is None else Call(parts[0], parts[1:])

    def visit_let(self, let):
        parts = self._changed([let.var, let.value, let.body])
        return let if parts is None else Let(*parts)

    def visit_if(self, ite):
        parts = self._changed([ite.cond, ite.true_branch, ite.false_branch])
        return ite if parts is None else If(*parts)

    def visit_tuple(self, tup):
        fields = self._changed(tup.fields)
        return tup if fields is None else Tuple(fields)

    def visit_tuple_getitem(self, item):
        value = self.visit(item.tuple_value)
        return item if value is item.tuple_value else TupleGetItem(value, item.index)

    def visit_closure(self, closure):
        parts = self._changed([*closure.params, closure.body])
        return closure if parts is None else Closure(parts[:-1], parts[-1], closure.ret_type)

    def visit_function(self, func):
        body = self.visit(func.body)
        return func if body is func.body else func.with_body(body)

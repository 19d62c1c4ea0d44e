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

__all__ = ["Call", "Closure", "Constant", "Expr", "Function", "GlobalVar", "If",
           "Let", "Operator", "Tuple", "TupleGetItem", "Var", "const", "parse_type",
           "OPERATORS"] + [op + "_" if op in ("and", "or", "not") else op for op in OPERATORS]


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

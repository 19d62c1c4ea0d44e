"""A module built from Python, no text: a function that sums the squares of
its parameter and of a constant, and an unused helper; then O3, with
PrintChanged showing the module after each pass that changed it.

    PYTHONPATH=build/default/python /usr/bin/python3 examples/python/build_module.py
"""
import sys

import passline
from passline import instrument, ir

# def @square(%v: i64) -> i64 { mul(%v, %v) }
v = ir.Var("v", "i64")
square = ir.Function("square", [v], ir.mul(v, v), ret_type="i64")

# def @main(%x: i64) -> i64 {
#   let %three = add(1, 2);
#   add(@square(%x), @square(%three))
# }
x, three = ir.Var("x", "i64"), ir.Var("three")
call_square = ir.GlobalVar("square")
main = ir.Function("main", [x],
                   ir.Let(three, ir.add(1, 2), ir.add(ir.Call(call_square, [x]), ir.Call(call_square, [three]))),
                   ret_type="i64", exported=True)

# def @unused() -> i64 { 42 }
unused = ir.Function("unused", [], ir.const(42), ret_type="i64")

mod = passline.IRModule([square, main, unused])
mod.verify()
print(mod)

with passline.PassContext(opt_level=3, instruments=[instrument.PrintChanged(mode="quiet", file=sys.stdout)]):
    mod = passline.create("O3")(mod)
print("after O3:", [func.name for func in mod.functions])

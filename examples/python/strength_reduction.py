"""A pass written in Python, in a C++ pipeline, watched by instruments.

StrengthReduce turns `mul(%v, 2)` into `add(%v, %v)`. Registered by name, it
takes its place in pipeline text beside the C++ passes, requires InferType
like any of them, and runs under a PassContext with two instruments: one of
passline's (the timing report) and one written here.

    PYTHONPATH=build/default/python /usr/bin/python3 examples/python/strength_reduction.py
"""
import passline
from passline import instrument, ir

PROGRAM = """\
#[export]
def @main(%x: i64, %y: i64) -> i64 {
  let %a = mul(%x, 2);
  let %b = mul(add(%y, 0), 2);
  let %c = mul(%a, mul(3, 4));
  sub(%c, %b)
}
"""


@passline.function_pass(opt_level=1, name="StrengthReduce", required=["InferType"])
def strength_reduce(func, mod, ctx):
    def reduce(e):
        if isinstance(e, ir.Operator) and e.op == "mul":
            value, factor = e.args
            if isinstance(value, ir.Var) and isinstance(factor, ir.Constant) and factor.value == 2:
                return ir.add(value, value)
        return None
    return func.with_body(func.body.rewrite(reduce))


@passline.pass_instrument
class Changes:
    """Names the passes that changed the module."""

    def __init__(self):
        self.changed = []

    def run_before_pass(self, mod, info):
        self.before = str(mod)

    def run_after_pass(self, mod, info):
        if str(mod) != self.before:
            self.changed.append(info.name)


passline.register_pass(strength_reduce)
pipeline = passline.parse_pipeline("SimplifyExpr,StrengthReduce,O1")
print("pipeline:", pipeline.text())

mod = passline.IRModule.parse(PROGRAM, "main.ir")
changes = Changes()
timing = instrument.PassTimingInstrument()
with passline.PassContext(opt_level=2, instruments=[changes, timing]):
    mod = pipeline(mod)
    timed = [entry["name"] for entry in timing.timings()]  # read inside: the context's exit clears it

print(mod, end="")
print("changed by:", ", ".join(changes.changed))
print("timed:", ", ".join(timed))

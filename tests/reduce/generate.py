#!/usr/bin/env python3
"""Writes a module of reference IR for --reduce's tests: FUNCTIONS functions of
LETS lets each, every let used by the next (so no pass drops it), some calling
an earlier function, and the pattern `mod(x, 7919)` buried once in the
middle of the middle function.

usage: generate.py FUNCTIONS LETS SEED > module.ir
"""
import random
import sys


def main():
    functions, lets, seed = (int(a) for a in sys.argv[1:4])
    rng = random.Random(seed)
    ops = ["add", "sub", "mul", "add", "sub"]
    planted = functions // 2
    out = []
    for f in range(functions):
        out.append("#[export]")
        out.append(f"def @f{f}(%a: i64, %b: i64) -> i64 {{")
        prev = "%a"
        for i in range(lets):
            if f == planted and i == lets // 2:
                value = f"mod({prev}, 7919)"
            elif f > 0 and i % 17 == 5:
                value = f"@f{rng.randrange(f)}({prev}, %b)"
            else:
                other = rng.choice(["%a", "%b", str(rng.randrange(2, 1000))])
                value = f"{rng.choice(ops)}({prev}, {other})"
            out.append(f"  let %v{i} = {value};")
            prev = f"%v{i}"
        out.append(f"  add({prev}, %b)")
        out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()

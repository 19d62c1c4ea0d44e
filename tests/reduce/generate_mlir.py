#!/usr/bin/env python3
"""Writes an MLIR module for --reduce's tests and benchmark: FUNCTIONS
functions of OPS arith operations each, every result used by the next (so
no pass drops it), some calling an earlier function, and the pattern
`arith.remsi %x, %c7919` buried once in the middle of the middle function.

usage: generate_mlir.py FUNCTIONS OPS SEED > module.mlir
"""
import random
import sys


def main():
    functions, ops, seed = (int(a) for a in sys.argv[1:4])
    rng = random.Random(seed)
    kinds = ["arith.addi", "arith.subi", "arith.muli", "arith.xori"]
    planted = functions // 2
    out = ["module {"]
    for f in range(functions):
        out.append(f"  func.func @f{f}(%a: i64, %b: i64) -> i64 {{")
        prev = "%a"
        for i in range(ops):
            if f == planted and i == ops // 2:
                out.append(f"    %k{i} = arith.constant 7919 : i64")
                out.append(f"    %v{i} = arith.remsi {prev}, %k{i} : i64")
            elif f > 0 and i % 17 == 5:
                out.append(f"    %v{i} = func.call @f{rng.randrange(f)}({prev}, %b) : (i64, i64) -> i64")
            else:
                other = rng.choice(["%a", "%b"])
                out.append(f"    %v{i} = {rng.choice(kinds)} {prev}, {other} : i64")
            prev = f"%v{i}"
        out.append(f"    return {prev} : i64")
        out.append("  }")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()

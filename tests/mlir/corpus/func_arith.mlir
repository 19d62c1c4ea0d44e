// func and arith: folds, identities, common subexpressions, dead code.
func.func @fold(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %five = arith.addi %c2, %c3 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.muli %x, %c1 : i32
  %z = arith.addi %a, %c0 : i32
  %w = arith.addi %y, %z : i32
  %v = arith.addi %w, %five : i32
  %dead = arith.muli %v, %v : i32
  return %v : i32
}

func.func @common(%a: i64, %b: i64) -> i64 {
  %x = arith.addi %a, %b : i64
  %y = arith.addi %a, %b : i64
  %p = arith.muli %x, %y : i64
  %q = arith.muli %x, %y : i64
  %r = arith.subi %p, %q : i64
  return %r : i64
}

func.func @floats(%f: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.addf %one, %two : f32
  %g = arith.mulf %f, %one : f32
  %h = arith.addf %g, %three : f32
  return %h : f32
}

func.func @select(%c: i1, %a: i32) -> i32 {
  %true = arith.constant true
  %s = arith.select %true, %a, %a : i32
  %cmp = arith.cmpi eq, %a, %a : i32
  %t = arith.select %cmp, %s, %a : i32
  return %t : i32
}

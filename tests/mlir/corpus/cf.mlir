// cf: branches on constants, blocks that only forward, values known on every path.
func.func @branches(%a: i32) -> i32 {
  %true = arith.constant true
  %c7 = arith.constant 7 : i32
  cf.cond_br %true, ^then(%c7 : i32), ^else(%a : i32)
^then(%x: i32):
  cf.br ^join(%x : i32)
^else(%y: i32):
  cf.br ^join(%y : i32)
^join(%z: i32):
  %r = arith.addi %z, %c7 : i32
  return %r : i32
}

func.func @same_value(%c: i1) -> i32 {
  %one = arith.constant 1 : i32
  %also = arith.constant 1 : i32
  cf.cond_br %c, ^a, ^b
^a:
  cf.br ^join(%one : i32)
^b:
  cf.br ^join(%also : i32)
^join(%v: i32):
  %w = arith.muli %v, %v : i32
  return %w : i32
}

func.func @loop(%n: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  cf.br ^head(%zero : i32)
^head(%i: i32):
  %done = arith.cmpi sge, %i, %n : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %next = arith.addi %i, %one : i32
  cf.br ^head(%next : i32)
^exit:
  return %i : i32
}

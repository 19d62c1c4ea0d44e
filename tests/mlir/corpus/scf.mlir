// scf: loops with invariant code, constant conditions, constant-trip loops.
func.func @invariant(%n: index, %a: i32, %b: i32, %buf: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %inv = arith.muli %a, %b : i32
    %again = arith.muli %a, %b : i32
    %sum = arith.addi %inv, %again : i32
    memref.store %sum, %buf[%i] : memref<?xi32>
  }
  return
}

func.func @constant_if(%a: i32) -> i32 {
  %true = arith.constant true
  %r = scf.if %true -> (i32) {
    %x = arith.addi %a, %a : i32
    scf.yield %x : i32
  } else {
    scf.yield %a : i32
  }
  return %r : i32
}

func.func @sum(%n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
    %k = arith.addi %one, %one : i32
    %next = arith.addi %acc, %k : i32
    scf.yield %next : i32
  }
  return %r : i32
}

func.func @nothing(%a: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %r = scf.for %i = %c0 to %c0 step %c0 iter_args(%acc = %a) -> (i32) {
    scf.yield %acc : i32
  }
  return %r : i32
}

// A module with nested modules, private functions and calls: what inline,
// symbol-dce and sccp change across functions.
module {
  func.func private @unused(%a: i32) -> i32 {
    %r = arith.addi %a, %a : i32
    return %r : i32
  }

  func.func private @double(%a: i32) -> i32 {
    %r = arith.addi %a, %a : i32
    return %r : i32
  }

  func.func private @constant() -> i32 {
    %c = arith.constant 21 : i32
    return %c : i32
  }

  func.func @main(%a: i32) -> i32 {
    %c = call @constant() : () -> i32
    %d = call @double(%c) : (i32) -> i32
    %e = call @double(%a) : (i32) -> i32
    %r = arith.addi %d, %e : i32
    return %r : i32
  }

  module @inner {
    func.func private @helper(%a: i64) -> i64 {
      %one = arith.constant 1 : i64
      %r = arith.addi %a, %one : i64
      return %r : i64
    }
    func.func @entry(%a: i64) -> i64 {
      %r = call @helper(%a) : (i64) -> i64
      %s = arith.addi %r, %r : i64
      %t = arith.addi %r, %r : i64
      %u = arith.subi %s, %t : i64
      return %u : i64
    }
    func.func private @dead() {
      return
    }
  }
}

module attributes {t.attr = 1 : i32} {
  func.func @f(%a: i32) -> i32 {
    %c = arith.constant 3 : i32%0 = arith.muli %a, %c : i32
    cf.br ^bb1(%0 : i32)
  ^bb1(%1: i32):
    return %1 :i32
  }#loc = loc("f.mlir":1:1)
  func.func @g() {
    "ŒŸst.unregistered"() ({
    
    }) {value = "}"} : () -> ()
    return
  }
}
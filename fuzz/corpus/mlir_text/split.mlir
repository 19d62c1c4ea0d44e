func.func @f() {
  return
}
// -----
func.func @g() -> i32 {
  %0 = arith.constant 0 : i32
  return %0 : i32
}
"test.op"() {d = distinct[0]<42 : i32>} : () -> ()

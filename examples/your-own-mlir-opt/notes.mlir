func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant {toy.note = "zero"} 0 : i32
  %x = arith.addi %a, %c0 {toy.note = "adds nothing"} : i32
  return %x : i32
}
func.func @g(%a: i32) -> i32 {
  %y = arith.muli %a, %a {toy.note = "square"} : i32
  return %y : i32
}

// An input that makes passes fail: remove-dead-values refuses branch ops
// (an error at the branch), and canonicalize{test-convergence=true
// max-iterations=1} fails, without a diagnostic, when one round is not enough.
func.func @branches(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.addi %x, %c0 : i32
  cf.br ^next(%y : i32)
^next(%z: i32):
  return %z : i32
}

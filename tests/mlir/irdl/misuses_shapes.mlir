// An operand that breaks the IRDL dialect's constraints: a box of f32.
func.func @f(%b: !shapes.box<f32>) -> !shapes.box<f32> {
  %0 = "shapes.grow"(%b) : (!shapes.box<f32>) -> !shapes.box<f32>
  return %0 : !shapes.box<f32>
}

// Operations of the IRDL dialect in shapes.irdl.mlir.
func.func @f(%b: !shapes.box<i32>) -> !shapes.box<i32> {
  %0 = "shapes.grow"(%b) : (!shapes.box<i32>) -> !shapes.box<i32>
  %1 = "shapes.grow"(%0) : (!shapes.box<i32>) -> !shapes.box<i32>
  return %1 : !shapes.box<i32>
}

// A function of the module, and one in a module nested in it (mlir-opt nests a pass on the first only).
func.func @top(%m: memref<4xf32>, %v: f32) {
  %one = arith.constant 1 : index
  %two = arith.addi %one, %one : index
  affine.for %i = 0 to 4 {
    affine.store %v, %m[%i] : memref<4xf32>
  }
  return
}
module {
  func.func @inner(%m: memref<4xf32>, %v: f32) {
    affine.for %i = 0 to 4 {
      affine.store %v, %m[%i] : memref<4xf32>
    }
    return
  }
}

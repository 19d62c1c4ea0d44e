#map = affine_map<(d0) -> (d0 + 1)>
!pair = tuple<i32, i32>
func.func @f(%a: i32, %m: memref<4xf32>) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
func.func private @decl(!pair)
func.func @g(%i: index) -> index {
  %0 = affine.apply #map(%i)
  return %0 : index
}

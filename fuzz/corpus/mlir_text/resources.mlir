func.func @f() -> tensor<2xi32> attributes {id = distinct [0]<42 : i32>} {
  %0 = arith.constant dense_resource <blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func @g() -> tensor<2xi32> attributes {id = distinct [0]<42 : i32>} {
  %0 = arith.constant dense_resource <blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

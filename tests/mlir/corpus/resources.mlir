// Resources and distinct attributes, each numbered or named once for the
// whole file as MLIR's parser reads it, named in two functions (with blanks
// before the bracket, as MLIR's lexer allows).
func.func @f() -> (tensor<2xi32>, tensor<3xi64>) attributes {id = distinct [0]<42 : i32>} {
  %0 = arith.constant dense_resource <blob1> : tensor<2xi32>
  %1 = arith.constant #test.e1di64_elements<blob2> : tensor<3xi64>
  return %0, %1 : tensor<2xi32>, tensor<3xi64>
}
func.func @g() -> (tensor<2xi32>, tensor<3xi64>) attributes {id = distinct [0]<42 : i32>} {
  %0 = arith.constant dense_resource <blob1> : tensor<2xi32>
  %1 = arith.constant #test.e1di64_elements<blob2> : tensor<3xi64>
  return %0, %1 : tensor<2xi32>, tensor<3xi64>
}

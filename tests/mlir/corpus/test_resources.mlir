// A resource of a dialect that keeps them in a blob manager (the test
// dialect's), named in two functions: declared once for the whole file as
// MLIR's parser reads it.
func.func @f() -> tensor<3xi64> {
  %0 = arith.constant #test.e1di64_elements<blob1> : tensor<3xi64>
  return %0 : tensor<3xi64>
}
func.func @g() -> tensor<3xi64> {
  %0 = arith.constant #test.e1di64_elements<blob1> : tensor<3xi64>
  return %0 : tensor<3xi64>
}

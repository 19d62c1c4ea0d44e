// A dialect resource named in two functions: declared once for the whole
// file as MLIR's parser reads it (blanks before the bracket, as MLIR's lexer
// allows).
func.func @f() -> tensor<2xi32> {
  %0 = arith.constant dense_resource <blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func @g() -> tensor<2xi32> {
  %0 = arith.constant dense_resource <blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

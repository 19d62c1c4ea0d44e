// A distinct attribute named in two functions: numbered once for the whole
// file as MLIR's parser reads it (a comment and a line break before the
// bracket, as MLIR's lexer allows).
func.func @f() attributes {id = distinct // the same id
  [0]<42 : i32>} {
  return
}
func.func @g() attributes {id = distinct [0]<42 : i32>} {
  return
}

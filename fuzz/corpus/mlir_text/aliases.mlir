#a = loc("a.mlir":1:1)
#b = loc("b.mlir":2:2)
func.func @f(%i: index loc("arg.mlir":3:3)) -> index {
  %0 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i) loc(callsite(#a at #b))
  return %0 : index loc(fused[#a, #b])
}
func.func @g(%i: index) -> index {
  %0 = affine.apply affine_map<(d0) -> (d0 * 2)>(%i) loc("named"(#b))
  %1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%0) loc(#a)
  return %1 : index loc(callsite("named"(#b) at callsite(#a at #b)))
}
func.func @h(%m: memref<4xf32, affine_map<(d0) -> (d0 + 3)>>) {
  return loc(unknown)
}
"test.op"() {t = tuple<i32, i32>, m = affine_map<(d0) -> (d0 + 1)>} : () -> ()

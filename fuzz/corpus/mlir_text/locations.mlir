func.func @f() {
  "test.op"() : () -> () loc(#loc1)
  return loc(#loc2)
} loc(#loc)
func.func @g(%x: i32 loc("g.mlir":2:3)) {
  return
}
#loc = loc("a.mlir":1:1)
#loc1 = loc("a.mlir":2:2)
#loc2 = loc(callsite(#loc1 at #loc))

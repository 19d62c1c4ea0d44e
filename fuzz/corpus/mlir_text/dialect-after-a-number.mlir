func.func @f() {return
} loc(#loc)
func.func @g(%x: i5 loc("g.ir":4:3)) { return
}
#loc =111111tosa.table11111111111111 loc("a":0:1)
#loc1 = loc("a.mlir":2:2)
#l2 = loc(callsite(#loc1 at #loc))

// memref: loads and stores, casts that fold, dead allocations.
func.func @copy(%src: memref<4xf32>, %dst: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %src[%i] : memref<4xf32>
    %w = memref.load %src[%i] : memref<4xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %dst[%i] : memref<4xf32>
  }
  return
}

func.func @casts(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %d = memref.cast %m : memref<4xf32> to memref<?xf32>
  %e = memref.cast %d : memref<?xf32> to memref<4xf32>
  %v = memref.load %e[%c0] : memref<4xf32>
  return %v : f32
}

func.func @dead_alloc() {
  %a = memref.alloc() : memref<16xi32>
  memref.dealloc %a : memref<16xi32>
  return
}

func.func @dim(%m: memref<?x8xf32>) -> index {
  %c1 = arith.constant 1 : index
  %d = memref.dim %m, %c1 : memref<?x8xf32>
  return %d : index
}

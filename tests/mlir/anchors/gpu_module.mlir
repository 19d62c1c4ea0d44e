// A gpu.module with a kernel.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: f32, %m: memref<4xf32>) kernel {
      %0 = arith.addf %a, %a : f32
      %c0 = arith.constant 0 : index
      memref.store %0, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

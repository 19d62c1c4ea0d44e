// An anonymous spirv.module and a named one: MLIR does not count the first as a symbol.
spirv.module Logical GLSL450 {
  spirv.func @rewrite(%a: f32, %b: f32, %c: f32) -> vector<3xf32> "None" {
    %0 = spirv.Undef : vector<3xf32>
    %1 = spirv.CompositeInsert %a, %0[0 : i32] : f32 into vector<3xf32>
    %2 = spirv.CompositeInsert %b, %1[1 : i32] : f32 into vector<3xf32>
    %3 = spirv.CompositeInsert %c, %2[2 : i32] : f32 into vector<3xf32>
    spirv.ReturnValue %3 : vector<3xf32>
  }
}
spirv.module @named Logical GLSL450 {
  spirv.func @rewrite(%a: f32, %b: f32) -> vector<2xf32> "None" {
    %0 = spirv.Undef : vector<2xf32>
    %1 = spirv.CompositeInsert %a, %0[0 : i32] : f32 into vector<2xf32>
    %2 = spirv.CompositeInsert %b, %1[1 : i32] : f32 into vector<2xf32>
    spirv.ReturnValue %2 : vector<2xf32>
  }
}

// Uses the installed passline.mlir: parses MLIR, runs MLIR's canonicalize
// and cse from passline's pipeline text, and prints the result.
#include <cstdio>
#include <string>

#include <mlir/IR/MLIRContext.h>
import passline;
import passline.mlir;

int main() {
  mlir::MLIRContext context(passline::mlir::registry_of_dialects());
  passline::mlir::Module module = passline::mlir::parse(
      "func.func @f(%a: i32) -> i32 {\n  %c0 = arith.constant 0 : i32\n  %x = arith.addi %a, %c0 : i32\n"
      "  return %x : i32\n}\n",
      "f.mlir", context);
  const passline::Pass<passline::mlir::Module> pipeline =
      passline::parse_pipeline("canonicalize,cse", passline::mlir::registry());
  module = pipeline(std::move(module));
  const std::string text = passline::mlir::print(module);
  std::printf("%s", text.c_str());
  // As mlir-opt prints it, with the blank line it ends in.
  return text == "module {\n  func.func @f(%arg0: i32) -> i32 {\n    return %arg0 : i32\n  }\n}\n\n" ? 0 : 1;
}

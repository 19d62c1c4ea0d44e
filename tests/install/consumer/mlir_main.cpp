// Uses the installed passline.mlir: parses MLIR, runs MLIR's canonicalize
// and cse from passline's pipeline text, and prints the result; then reads
// and writes MLIR on a context's threads.
#include <cstdio>
#include <memory>
#include <string>

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/OwningOpRef.h>
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
  if (text != "module {\n  func.func @f(%arg0: i32) -> i32 {\n    return %arg0 : i32\n  }\n}\n\n") return 1;

  // Two functions read and written on a context's two threads.
  passline::mlir::ThreadPool pool(2);
  mlir::MLIRContext threaded(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  threaded.setThreadPool(pool.llvm());
  auto sources = std::make_shared<llvm::SourceMgr>();
  sources->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("func.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}\n", "g.mlir"),
      llvm::SMLoc());
  const mlir::OwningOpRef<mlir::Operation*> read = passline::mlir::read(sources, mlir::ParserConfig(&threaded));
  if (!read) return 1;
  std::string written;
  llvm::raw_string_ostream os(written);
  passline::mlir::write(read.get(), os);
  os.flush();
  std::printf("%s\n", written.c_str());
  return written == "module {\n  func.func @f() {\n    return\n  }\n  func.func @g() {\n    return\n  }\n}\n" ? 0 : 1;
}

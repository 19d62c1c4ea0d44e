// Fuzz target: MLIR text read and written on threads. Whatever the bytes,
// passline::mlir::read on a context with two threads gives what MLIR's
// parser gives reading them whole on one: the same diagnostics, word for
// word, or a module; and passline::mlir::write prints that module on the
// threads as MLIR's printer prints it, plainly and with its locations (each
// an alias: the operations' aliases merged as MLIR names them).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Tools/ParseUtilities.h>

import passline.mlir;

namespace {

/// What reading gave: the diagnostics, and the module printed plainly and
/// with its locations.
struct Read {
  std::string diagnostics;
  std::string printed;
  std::string located;
};

Read read(std::string_view text, bool on_threads) {
  static const mlir::DialectRegistry dialects = passline::mlir::registry_of_dialects();
  static passline::mlir::ThreadPool pool(2);
  mlir::MLIRContext context(dialects, mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects();
  if (on_threads) context.setThreadPool(pool.llvm());
  auto sources = std::make_shared<llvm::SourceMgr>();
  sources->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy({text.data(), text.size()}, "fuzz.mlir"),
                              llvm::SMLoc());
  Read result;
  llvm::raw_string_ostream diagnostics(result.diagnostics);
  const mlir::SourceMgrDiagnosticHandler handler(*sources, &context, diagnostics);
  const mlir::ParserConfig config(&context);
  const mlir::OwningOpRef<mlir::Operation*> op = on_threads ? passline::mlir::read(sources, config)
                                                            : mlir::parseSourceFileForTool(sources, config, true);
  if (op) {
    llvm::raw_string_ostream printed(result.printed);
    llvm::raw_string_ostream located(result.located);
    const mlir::OpPrintingFlags with_locations = mlir::OpPrintingFlags().enableDebugInfo();
    if (on_threads) {
      passline::mlir::write(op.get(), printed);
      passline::mlir::write(op.get(), located, with_locations);
    } else {
      mlir::AsmState state(op.get());
      op.get()->print(printed, state);
      mlir::AsmState located_state(op.get(), with_locations);
      op.get()->print(located, located_state);
    }
  }
  return result;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Read whole = read(text, false);
  const Read shares = read(text, true);
  if (shares.diagnostics != whole.diagnostics || shares.printed != whole.printed || shares.located != whole.located) {
    __builtin_trap();
  }
  return 0;
}

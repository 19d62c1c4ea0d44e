// toy-opt: passline-mlir-opt for a project of its own, MLIR's dialects and a
// pass of the project's (strip-notes), as MLIR's MlirOptMain makes its
// mlir-opt. It takes mlir-opt's command line and passline's flags:
//   toy-opt notes.mlir -strip-notes -canonicalize
//   toy-opt notes.mlir --passes=strip-notes,cse --print-changed --threads=2
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/IR/DialectRegistry.h>
#include <mlir/InitAllDialects.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassRegistry.h>

import passline.mlir.opt;

namespace {

/// Drops the attribute `toy.note` from the operations of a function; fails
/// on an operation marked `toy.fail`.
struct StripNotes : mlir::PassWrapper<StripNotes, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StripNotes)
  llvm::StringRef getArgument() const override { return "strip-notes"; }
  llvm::StringRef getDescription() const override { return "Drop the attribute toy.note"; }
  void runOnOperation() override {
    getOperation()->walk([this](mlir::Operation* op) {
      if (op->hasAttr("toy.fail")) {
        op->emitError("strip-notes: this operation is marked toy.fail");
        signalPassFailure();
      }
      op->removeAttr("toy.note");
    });
  }
};

}  // namespace

int main(int argc, char** argv) {
  mlir::DialectRegistry dialects;
  mlir::registerAllDialects(dialects);
  mlir::PassRegistration<StripNotes>();
  return passline::mlir::opt_main(argc, argv, "toy-opt", dialects);
}

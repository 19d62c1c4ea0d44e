// One of MLIR's own pass plugins, as mlir-opt's -load-pass-plugin loads
// them (mlirGetPassPluginInfo): a function pass, test-plugin-rename, that
// puts `renamed_` before the name of each function that nothing calls.
#include <llvm/Config/llvm-config.h>
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Tools/Plugins/PassPlugin.h>

namespace {

struct RenamePass : mlir::PassWrapper<RenamePass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RenamePass)
  llvm::StringRef getArgument() const final { return "test-plugin-rename"; }
  llvm::StringRef getDescription() const final { return "puts renamed_ before the names of functions"; }
  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    for (auto function : module.getOps<mlir::func::FuncOp>()) {
      if (!mlir::SymbolTable::symbolKnownUseEmpty(function, module)) continue;
      function.setSymName(("renamed_" + function.getSymName()).str());
    }
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TestPluginRename", LLVM_VERSION_STRING,
          [] { mlir::PassRegistration<RenamePass>(); }};
}

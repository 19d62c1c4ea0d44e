// passline.mlir.reduce's functions (reduce.cppm), over MLIR's API.
module;

#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/IR/Verifier.h>
#include <mlir/Interfaces/FunctionInterfaces.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/IR/PatternMatch.h>
#include <mlir/Reducer/Passes.h>
#include <mlir/Reducer/ReductionPatternInterface.h>

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

module passline.mlir.reduce;

namespace passline::mlir {

namespace {

/// Whether `module` verifies; what the verifier says goes nowhere.
bool verifies(const Module& module) {
  ::mlir::ScopedDiagnosticHandler quiet(module.op()->getContext(), [](::mlir::Diagnostic&) { return ::mlir::success(); });
  return ::mlir::succeeded(::mlir::verify(module.op()));
}

/// An operation with one result, of the type of one of its operands, goes:
/// the first such operand takes its place. Chains of computation that only
/// lead to what fails become short; what feeds the failing operation stays.
struct ToOperand final : ::mlir::RewritePattern {
  explicit ToOperand(::mlir::MLIRContext* context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  ::mlir::LogicalResult matchAndRewrite(::mlir::Operation* op, ::mlir::PatternRewriter& rewriter) const override {
    if (op->getNumResults() != 1 || op->getNumRegions() != 0 || op->hasTrait<::mlir::OpTrait::IsTerminator>()) {
      return ::mlir::failure();
    }
    for (const ::mlir::Value operand : op->getOperands()) {
      if (operand.getType() == op->getResult(0).getType()) {
        rewriter.replaceAllUsesWith(op->getResult(0), operand);
        return ::mlir::success();
      }
    }
    return ::mlir::failure();
  }
};

/// An operation none of whose results is used goes (a call, whose effects
/// keep it from canonicalization, included); terminators and symbols stay.
struct EraseUnused final : ::mlir::RewritePattern {
  explicit EraseUnused(::mlir::MLIRContext* context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}
  ::mlir::LogicalResult matchAndRewrite(::mlir::Operation* op, ::mlir::PatternRewriter& rewriter) const override {
    if (op->getNumResults() == 0 || !op->use_empty() || op->getNumRegions() != 0 ||
        op->hasTrait<::mlir::OpTrait::IsTerminator>() || ::mlir::isa<::mlir::SymbolOpInterface>(op)) {
      return ::mlir::failure();
    }
    rewriter.eraseOp(op);
    return ::mlir::success();
  }
};

/// The reduction patterns passline gives MLIR's reducer, through the
/// interface by which dialects give theirs: EraseUnused and ToOperand, for every dialect's
/// operations (held by the builtin dialect, which every context loads).
struct Reductions final : ::mlir::DialectReductionPatternInterface {
  explicit Reductions(::mlir::Dialect* dialect) : DialectReductionPatternInterface(dialect) {}
  void populateReductionPatterns(::mlir::RewritePatternSet& patterns) const override {
    patterns.add<EraseUnused, ToOperand>(patterns.getContext());
  }
};

}  // namespace

std::size_t operation_count(const Module& module) {
  if (!module) return 0;
  std::size_t count = 0;
  module.op()->walk([&](::mlir::Operation*) { ++count; });
  return count - 1;
}

std::optional<Module> keep_functions(const Module& module, const std::vector<bool>& keep) {
  Module copy(module);
  const std::vector<::mlir::Operation*> functions = copy.functions();
  for (std::size_t i = 0; i < functions.size() && i < keep.size(); ++i) {
    if (!keep[i]) functions[i]->erase();
  }
  if (!verifies(copy)) return std::nullopt;
  return copy;
}

std::optional<Module> empty_functions(const Module& module, const std::vector<bool>& empty) {
  Module copy(module);
  const std::vector<::mlir::Operation*> functions = copy.functions();
  bool any = false;
  for (std::size_t i = 0; i < functions.size() && i < empty.size(); ++i) {
    auto function = ::mlir::dyn_cast<::mlir::FunctionOpInterface>(functions[i]);
    if (!empty[i] || !function || function.isExternal()) continue;
    ::mlir::Region& body = function.getFunctionBody();
    body.dropAllReferences();
    body.getBlocks().clear();
    ::mlir::SymbolTable::setSymbolVisibility(functions[i], ::mlir::SymbolTable::Visibility::Private);
    any = true;
  }
  if (!any || !verifies(copy)) return std::nullopt;
  return copy;
}

Module reduction_tree(const Module& module, const std::vector<std::string>& command) {
  if (!module || command.empty()) return module;
  Module copy(module);
  ::mlir::MLIRContext* context = copy.op()->getContext();
  ::mlir::ScopedDiagnosticHandler quiet(context, [](::mlir::Diagnostic&) { return ::mlir::success(); });
  ::mlir::Dialect* builtin = context->getLoadedDialect("builtin");
  if (builtin && !builtin->getRegisteredInterface<::mlir::DialectReductionPatternInterface>()) {
    builtin->addInterfaces<Reductions>();
  }
  ::mlir::PassManager manager(context, ::mlir::ModuleOp::getOperationName());
  std::unique_ptr<::mlir::Pass> tree = ::mlir::createReductionTreePass();
  std::string options = fmt::format("traversal-mode=0 test={}", command.front());
  for (std::size_t i = 1; i < command.size(); ++i) options += fmt::format(" test-arg={}", command[i]);
  if (::mlir::failed(tree->initializeOptions(options, [](const llvm::Twine&) { return ::mlir::failure(); }))) return module;
  manager.addPass(std::move(tree));
  if (::mlir::failed(manager.run(copy.op()))) return module;
  if (!verifies(copy)) return module;
  return copy;
}

}  // namespace passline::mlir

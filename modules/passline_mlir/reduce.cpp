// passline.mlir.reduce's functions (reduce.cppm), over MLIR's API.
module;

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/IR/Verifier.h>
#include <mlir/Interfaces/FunctionInterfaces.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/IR/PatternMatch.h>
#include <mlir/Reducer/Passes.h>
#include <mlir/Transforms/GreedyPatternRewriteDriver.h>

#include <fmt/format.h>

#include <cstddef>
#include <functional>
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

/// Whether ToArgument applies to `op`: one result of an integer, index or
/// float type, no regions, not a terminator nor a constant.
bool replaceable(::mlir::Operation* op) {
  return op->getNumResults() == 1 && op->getNumRegions() == 0 && !op->hasTrait<::mlir::OpTrait::IsTerminator>() &&
         !op->hasTrait<::mlir::OpTrait::ConstantLike>() &&
         ::mlir::isa<::mlir::IntegerType, ::mlir::IndexType, ::mlir::FloatType>(op->getResult(0).getType());
}

/// An operation with one result of an integer, index or float type becomes
/// its first operand of that type, or else the first argument of its
/// function of that type, or else a constant zero of it (`arith.constant`).
/// An operand or argument rather than a constant, so that what used the
/// result does not fold away with it. What is left unused stays: MLIR's
/// reduction tree deletes it, or keeps it where the failure needs it (an
/// operation without effects is still there for a pass to trip on).
///
/// It is not handed to MLIR's reduction tree (through
/// DialectReductionPatternInterface): the tree applies a dialect's patterns
/// to the whole region first, and when that leaves a module that no longer
/// fails, MLIR 19's tree goes on from the module it released and crashes
/// (so does mlir-reduce-19 on some modules). `to_simpler` applies it where
/// delta debugging chooses instead.
struct ToArgument final : ::mlir::RewritePattern {
  explicit ToArgument(::mlir::MLIRContext* context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  ::mlir::LogicalResult matchAndRewrite(::mlir::Operation* op, ::mlir::PatternRewriter& rewriter) const override {
    if (!replaceable(op)) return ::mlir::failure();
    const ::mlir::Type type = op->getResult(0).getType();
    for (const ::mlir::Value operand : op->getOperands()) {
      if (operand.getType() == type) {
        rewriter.replaceOp(op, operand);
        return ::mlir::success();
      }
    }
    if (auto function = op->getParentOfType<::mlir::FunctionOpInterface>(); function && !function.isExternal()) {
      for (const ::mlir::BlockArgument argument : function.getFunctionBody().front().getArguments()) {
        if (argument.getType() == type) {
          rewriter.replaceOp(op, argument);
          return ::mlir::success();
        }
      }
    }
    const auto zero = ::mlir::dyn_cast_or_null<::mlir::TypedAttr>(rewriter.getZeroAttr(type));
    if (!zero) return ::mlir::failure();
    rewriter.replaceOpWithNewOp<::mlir::arith::ConstantOp>(op, type, zero);
    return ::mlir::success();
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
  ::mlir::PassManager manager(context, ::mlir::ModuleOp::getOperationName());
  std::string judged = fmt::format("test={}", command.front());
  for (std::size_t i = 1; i < command.size(); ++i) judged += fmt::format(" test-arg={}", command[i]);
  auto add = [&](std::unique_ptr<::mlir::Pass> pass, const std::string& options) {
    if (::mlir::failed(pass->initializeOptions(options, [](const llvm::Twine&) { return ::mlir::failure(); }))) {
      return false;
    }
    manager.addPass(std::move(pass));
    return true;
  };
  // First what canonicalization folds, kept if the module still fails
  // (libMLIRReduce's opt-reduction-pass). The tree folds every operation of
  // a region before it tries anything, and MLIR 19's tree crashes when that
  // leaves a module that no longer fails (it goes on from the module it
  // released); folded already, its folding changes nothing.
  if (!add(::mlir::createOptReductionPass(), "opt-pass=canonicalize " + judged) ||
      !add(::mlir::createReductionTreePass(), "traversal-mode=0 " + judged)) {
    return module;
  }
  if (::mlir::failed(manager.run(copy.op())) || !verifies(copy)) return module;
  return copy;
}

Module to_simpler(const Module& module, const std::function<bool(const Module&)>& still_fails,
                    const std::function<bool()>& stop) {
  if (!module) return module;
  ::mlir::MLIRContext* context = module.op()->getContext();
  context->getOrLoadDialect<::mlir::arith::ArithDialect>();
  ::mlir::RewritePatternSet set(context);
  set.add<ToArgument>(context);
  const ::mlir::FrozenRewritePatternSet patterns(std::move(set));
  // The places, by their position in a walk of the module (the same in a copy).
  auto places = [](const Module& m) {
    std::vector<::mlir::Operation*> ops;
    m.op()->walk<::mlir::WalkOrder::PreOrder>([&](::mlir::Operation* op) {
      if (replaceable(op)) ops.push_back(op);
    });
    return ops;
  };
  const std::size_t count = places(module).size();
  // `keep`: the places left as they are.
  auto candidate = [&](const std::vector<bool>& keep) -> std::optional<Module> {
    Module copy(module);
    const std::vector<::mlir::Operation*> ops = places(copy);
    if (ops.size() != count) return std::nullopt;
    std::vector<::mlir::Operation*> chosen;
    for (std::size_t i = 0; i < count; ++i) {
      if (!keep[i]) chosen.push_back(ops[i]);
    }
    ::mlir::GreedyRewriteConfig config;
    config.strictMode = ::mlir::GreedyRewriteStrictness::ExistingOps;
    (void)::mlir::applyOpPatternsAndFold(chosen, patterns, config);
    if (!verifies(copy)) return std::nullopt;
    return copy;
  };
  const std::size_t before = operation_count(module);
  std::optional<Module> smaller = passline::reduce::keep_failing<Module>(
      count, candidate, [&](const Module& c) { return operation_count(c) < before && still_fails(c); }, stop);
  if (smaller && operation_count(*smaller) < before) return std::move(*smaller);
  return module;
}

namespace {

/// MLIR's pipeline `text` (`anchor(...)`) as a nested step, its nests opened
/// in turn: each read once by MLIR's parser.
passline::reduce::Step opened(const std::string& text) {
  const MlirPipeline read = read_mlir_pipeline(text);
  passline::reduce::Step step{.text = read.anchor, .nested = true};
  for (const auto& [element, nested] : read.elements) {
    step.inner.push_back(nested ? opened(element) : passline::reduce::Step{.text = element});
  }
  return step;
}

}  // namespace

std::vector<passline::reduce::Step> mlir_steps(const std::vector<passline::reduce::Step>& planned) {
  std::vector<passline::reduce::Step> steps;
  for (const passline::reduce::Step& step : planned) {
    if (step.nested || step.text.find('(') == std::string::npos) {
      steps.push_back(step);
      continue;
    }
    // One pass of the plan, one or more nests in a row (passline runs them as MLIR does, in one walk).
    for (passline::reduce::Step& inner : opened("builtin.module(" + step.text + ")").inner) steps.push_back(std::move(inner));
  }
  return steps;
}

}  // namespace passline::mlir

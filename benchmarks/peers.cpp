// The same no-op work as dispatch.cpp, run by the peer pass managers: LLVM's
// new pass manager (ModulePassManager; ModuleToFunctionPassAdaptor over the
// functions of a module) and MLIR's PassManager (verifier and threading off;
// function passes nested on func.func). 50 passes of distinct types, so each
// indirect call has its own target as in passline's runs, on a module with no
// functions, or with 100 functions that each only return. Linked into
// `dispatch` when the peer packages are installed, so all run side by side.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <utility>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/PassInstrumentation.h>

#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassManager.h>

namespace {

constexpr int pass_count = 50;
constexpr std::size_t function_count = 100;
constexpr auto indices = std::make_integer_sequence<int, pass_count>{};

void per_pass(benchmark::State& state, double units_per_iteration) {
  state.counters["ns_per_pass"] = benchmark::Counter(static_cast<double>(state.iterations()) * units_per_iteration,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// -- LLVM's new pass manager ------------------------------------------------------

template <int I>
struct LLVMModuleNoop : llvm::PassInfoMixin<LLVMModuleNoop<I>> {
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
    benchmark::DoNotOptimize(&module);
    return llvm::PreservedAnalyses::all();
  }
};

template <int I>
struct LLVMFunctionNoop : llvm::PassInfoMixin<LLVMFunctionNoop<I>> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager&) {
    benchmark::DoNotOptimize(&function);
    return llvm::PreservedAnalyses::all();
  }
};

/// The analysis managers a pass manager needs to run at all: pass
/// instrumentation (with no callbacks) and the proxies between the levels.
struct LLVMManagers {
  LLVMManagers() {
    module_analyses.registerPass([] { return llvm::PassInstrumentationAnalysis(); });
    function_analyses.registerPass([] { return llvm::PassInstrumentationAnalysis(); });
    module_analyses.registerPass([this] { return llvm::FunctionAnalysisManagerModuleProxy(function_analyses); });
    function_analyses.registerPass([this] { return llvm::ModuleAnalysisManagerFunctionProxy(module_analyses); });
  }
  // The module manager's proxy clears the function manager when it goes, so
  // the function manager is declared first and destroyed last.
  llvm::FunctionAnalysisManager function_analyses;
  llvm::ModuleAnalysisManager module_analyses;
};

std::unique_ptr<llvm::Module> llvm_module(llvm::LLVMContext& context, std::size_t functions) {
  auto module = std::make_unique<llvm::Module>("bench", context);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  for (std::size_t i = 0; i < functions; ++i) {
    auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "f" + std::to_string(i), *module);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", function));
    builder.CreateRetVoid();
  }
  return module;
}

template <int... I>
void add_llvm_module_passes(llvm::ModulePassManager& passes, std::integer_sequence<int, I...>) {
  (passes.addPass(LLVMModuleNoop<I>{}), ...);
}

template <int... I>
void add_llvm_function_passes(llvm::FunctionPassManager& passes, std::integer_sequence<int, I...>) {
  (passes.addPass(LLVMFunctionNoop<I>{}), ...);
}

void BM_Module_LLVMNewPM(benchmark::State& state) {
  llvm::LLVMContext context;
  auto module = llvm_module(context, 0);
  LLVMManagers managers;
  llvm::ModulePassManager passes;
  add_llvm_module_passes(passes, indices);
  for (auto _ : state) passes.run(*module, managers.module_analyses);
  per_pass(state, pass_count);
}

void BM_Function_LLVMNewPM(benchmark::State& state) {
  llvm::LLVMContext context;
  auto module = llvm_module(context, function_count);
  LLVMManagers managers;
  llvm::FunctionPassManager function_passes;
  add_llvm_function_passes(function_passes, indices);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(function_passes)));
  for (auto _ : state) passes.run(*module, managers.module_analyses);
  per_pass(state, pass_count * function_count);
}

/// A function analysis whose result is one number, looked up cached as a
/// pass looks it up: `FunctionAnalysisManager::getResult`.
struct LLVMSize : llvm::AnalysisInfoMixin<LLVMSize> {
  struct Result {
    std::size_t blocks;
  };
  Result run(llvm::Function& function, llvm::FunctionAnalysisManager&) { return {function.size()}; }
  static llvm::AnalysisKey Key;  // NOLINT(readability-identifier-naming): LLVM's name
};
llvm::AnalysisKey LLVMSize::Key;

void BM_AnalysisLookup_LLVMGetResult(benchmark::State& state) {
  llvm::LLVMContext context;
  auto module = llvm_module(context, function_count);
  LLVMManagers managers;
  managers.function_analyses.registerPass([] { return LLVMSize(); });
  llvm::Function& function = *module->getFunction("f7");
  (void)managers.function_analyses.getResult<LLVMSize>(function);
  for (auto _ : state) benchmark::DoNotOptimize(&managers.function_analyses.getResult<LLVMSize>(function));
}

// -- MLIR's PassManager -----------------------------------------------------------

template <int I>
struct MLIRModuleNoop : mlir::PassWrapper<MLIRModuleNoop<I>, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MLIRModuleNoop)
  void runOnOperation() override { benchmark::DoNotOptimize(this->getOperation()); }
};

template <int I>
struct MLIRFunctionNoop : mlir::PassWrapper<MLIRFunctionNoop<I>, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MLIRFunctionNoop)
  void runOnOperation() override { benchmark::DoNotOptimize(this->getOperation()); }
};

mlir::OwningOpRef<mlir::ModuleOp> mlir_module(mlir::MLIRContext& context, std::size_t functions) {
  mlir::OpBuilder builder(&context);
  auto location = builder.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(location);
  builder.setInsertionPointToEnd(module->getBody());
  for (std::size_t i = 0; i < functions; ++i) {
    auto function = builder.create<mlir::func::FuncOp>(location, "f" + std::to_string(i), builder.getFunctionType({}, {}));
    mlir::OpBuilder body = mlir::OpBuilder::atBlockEnd(function.addEntryBlock());
    body.create<mlir::func::ReturnOp>(location);
  }
  return module;
}

/// A context with the func dialect and one thread, as the comparison needs.
struct MLIRSetup {
  MLIRSetup() {
    context.loadDialect<mlir::func::FuncDialect>();
    context.disableMultithreading();
  }
  mlir::MLIRContext context;
};

template <int... I>
void add_mlir_module_passes(mlir::PassManager& passes, std::integer_sequence<int, I...>) {
  (passes.addPass(std::make_unique<MLIRModuleNoop<I>>()), ...);
}

template <int... I>
void add_mlir_function_passes(mlir::OpPassManager& passes, std::integer_sequence<int, I...>) {
  (passes.addPass(std::make_unique<MLIRFunctionNoop<I>>()), ...);
}

void run_mlir(benchmark::State& state, mlir::PassManager& passes, mlir::ModuleOp module) {
  for (auto _ : state) {
    if (mlir::failed(passes.run(module))) {
      state.SkipWithError("MLIR's pass manager failed");
      return;
    }
  }
}

void BM_Module_MLIRPassManager(benchmark::State& state) {
  MLIRSetup setup;
  auto module = mlir_module(setup.context, 0);
  mlir::PassManager passes(&setup.context);
  passes.enableVerifier(false);
  add_mlir_module_passes(passes, indices);
  run_mlir(state, passes, *module);
  per_pass(state, pass_count);
}

void BM_Function_MLIRPassManager(benchmark::State& state) {
  MLIRSetup setup;
  auto module = mlir_module(setup.context, function_count);
  mlir::PassManager passes(&setup.context);
  passes.enableVerifier(false);
  add_mlir_function_passes(passes.nest<mlir::func::FuncOp>(), indices);
  run_mlir(state, passes, *module);
  per_pass(state, pass_count * function_count);
}

BENCHMARK(BM_Module_LLVMNewPM);
BENCHMARK(BM_Module_MLIRPassManager);
BENCHMARK(BM_Function_LLVMNewPM);
BENCHMARK(BM_Function_MLIRPassManager);
BENCHMARK(BM_AnalysisLookup_LLVMGetResult);

}  // namespace

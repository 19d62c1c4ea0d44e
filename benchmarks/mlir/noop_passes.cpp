// The cost per pass of the pass managers themselves on MLIR's IR, side by
// side in one run: 50 no-op module passes, and 50 no-op function passes over
// the 1,000 functions of a module, run by passline over passline::mlir::Module
// (a static Sequential and a runtime sequential) and by MLIR's PassManager
// (module passes, and function passes nested on func.func through its
// adaptor), each on one thread and, for function passes, on two. MLIR's
// verifier is off, as passline verifies nothing between its own passes.
// Counter: ns per pass, per pass and function for function passes.
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassManager.h>

import passline;
import passline.mlir;

namespace {

constexpr int pass_count = 50;
constexpr std::size_t function_count = 1000;
constexpr auto indices = std::make_integer_sequence<int, pass_count>{};

template <int I>
constexpr auto noop_name = [] {
  std::array<char, 6> chars{'N', 'o', 'o', 'p', '0', '0'};
  chars[4] = static_cast<char>('0' + I / 10);
  chars[5] = static_cast<char>('0' + I % 10);
  return chars;
}();
template <int I>
constexpr std::string_view name_of = std::string_view(noop_name<I>.data(), noop_name<I>.size());

// -- passline's passes over passline::mlir::Module ---------------------------------

template <int I>
struct ModuleNoop {
  static constexpr passline::PassInfo info{.name = name_of<I>, .opt_level = 1};
  passline::mlir::Module operator()(passline::mlir::Module module, passline::PassContext&) const {
    benchmark::DoNotOptimize(module.op().getOperation());
    return module;
  }
};

template <int I>
struct FunctionNoop {
  static constexpr passline::PassInfo info{.name = name_of<I>, .opt_level = 1};
  mlir::Operation* operator()(mlir::Operation* function, const passline::mlir::Module&, passline::PassContext&) const {
    benchmark::DoNotOptimize(function);
    return function;
  }
};

template <template <int> class P, int... I>
auto static_pipeline(std::integer_sequence<int, I...>) -> passline::Sequential<P<I>...>;

template <template <int> class P, int... I>
passline::Pass<passline::mlir::Module> runtime_pipeline(std::integer_sequence<int, I...>) {
  return passline::sequential<passline::mlir::Module>({P<I>{}...});
}

// -- MLIR's passes, the same work ------------------------------------------------------

template <int I>
struct MlirModuleNoop : mlir::PassWrapper<MlirModuleNoop<I>, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MlirModuleNoop)
  void runOnOperation() override { benchmark::DoNotOptimize(this->getOperation()); }
};

template <int I>
struct MlirFunctionNoop : mlir::PassWrapper<MlirFunctionNoop<I>, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MlirFunctionNoop)
  void runOnOperation() override { benchmark::DoNotOptimize(this->getOperation()); }
};

template <template <int> class P, int... I>
void add_passes(mlir::OpPassManager& passes, std::integer_sequence<int, I...>) {
  (passes.addPass(std::make_unique<P<I>>()), ...);
}

/// A context with the func dialect, on one thread or on passline's pool
/// of `threads`, and a module of `function_count` functions that return.
struct Setup {
  explicit Setup(std::size_t threads) : pool(threads) {
    context.loadDialect<mlir::func::FuncDialect>();
    if (threads > 1) context.setThreadPool(pool.llvm());
    mlir::OpBuilder builder(&context);
    const mlir::Location location = builder.getUnknownLoc();
    mlir::OwningOpRef<mlir::ModuleOp> made = mlir::ModuleOp::create(location);
    builder.setInsertionPointToEnd(made->getBody());
    for (std::size_t i = 0; i < function_count; ++i) {
      auto function =
          builder.create<mlir::func::FuncOp>(location, "f" + std::to_string(i), builder.getFunctionType({}, {}));
      mlir::OpBuilder body = mlir::OpBuilder::atBlockEnd(function.addEntryBlock());
      body.create<mlir::func::ReturnOp>(location);
    }
    module = passline::mlir::Module(std::move(made));
  }
  passline::mlir::ThreadPool pool;
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  passline::mlir::Module module;
};

void per_pass(benchmark::State& state, double units_per_iteration) {
  state.counters["ns_per_pass"] = benchmark::Counter(static_cast<double>(state.iterations()) * units_per_iteration,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

passline::PassContext context_with(std::int64_t threads) {
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, threads);
  return ctx;
}

template <class Pipeline>
void run_passline(benchmark::State& state, const Pipeline& pipeline, std::int64_t threads, double units) {
  Setup setup(static_cast<std::size_t>(threads));
  passline::PassContext ctx = context_with(threads);
  for (auto _ : state) setup.module = pipeline(std::move(setup.module), ctx);
  per_pass(state, units);
}

void run_mlir(benchmark::State& state, mlir::PassManager& passes, mlir::ModuleOp module, double units) {
  for (auto _ : state) {
    if (mlir::failed(passes.run(module))) {
      state.SkipWithError("MLIR's pass manager failed");
      return;
    }
  }
  per_pass(state, units);
}

void BM_Module_PasslineStatic(benchmark::State& state) {
  run_passline(state, decltype(static_pipeline<ModuleNoop>(indices)){}, 1, pass_count);
}
void BM_Module_PasslineRuntime(benchmark::State& state) {
  run_passline(state, runtime_pipeline<ModuleNoop>(indices), 1, pass_count);
}
void BM_Module_MLIRPassManager(benchmark::State& state) {
  Setup setup(1);
  mlir::PassManager passes(&setup.context);
  passes.enableVerifier(false);
  add_passes<MlirModuleNoop>(passes, indices);
  run_mlir(state, passes, setup.module.op(), pass_count);
}

void function_passline_static(benchmark::State& state, std::int64_t threads) {
  run_passline(state, decltype(static_pipeline<FunctionNoop>(indices)){}, threads, pass_count * function_count);
}
void function_passline_runtime(benchmark::State& state, std::int64_t threads) {
  run_passline(state, runtime_pipeline<FunctionNoop>(indices), threads, pass_count * function_count);
}
void function_mlir(benchmark::State& state, std::size_t threads) {
  Setup setup(threads);
  mlir::PassManager passes(&setup.context);
  passes.enableVerifier(false);
  add_passes<MlirFunctionNoop>(passes.nest<mlir::func::FuncOp>(), indices);
  run_mlir(state, passes, setup.module.op(), pass_count * function_count);
}

void BM_Function_PasslineStatic(benchmark::State& state) { function_passline_static(state, 1); }
void BM_Function_PasslineRuntime(benchmark::State& state) { function_passline_runtime(state, 1); }
void BM_Function_MLIRPassManager(benchmark::State& state) { function_mlir(state, 1); }
void BM_Function2Threads_PasslineStatic(benchmark::State& state) { function_passline_static(state, 2); }
void BM_Function2Threads_PasslineRuntime(benchmark::State& state) { function_passline_runtime(state, 2); }
void BM_Function2Threads_MLIRPassManager(benchmark::State& state) { function_mlir(state, 2); }

BENCHMARK(BM_Module_MLIRPassManager);
BENCHMARK(BM_Module_PasslineStatic);
BENCHMARK(BM_Module_PasslineRuntime);
BENCHMARK(BM_Function_MLIRPassManager);
BENCHMARK(BM_Function_PasslineStatic);
BENCHMARK(BM_Function_PasslineRuntime);
BENCHMARK(BM_Function2Threads_MLIRPassManager)->UseRealTime();
BENCHMARK(BM_Function2Threads_PasslineStatic)->UseRealTime();
BENCHMARK(BM_Function2Threads_PasslineRuntime)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

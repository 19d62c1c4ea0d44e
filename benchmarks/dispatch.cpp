// Dispatch cost per pass, side by side in one run: 50 no-op module passes on a
// trivial module, and 50 no-op function passes over the 100 functions of a
// module, run as hand-written calls, as the compiled static pipeline, as a
// static Sequential under a context, as a runtime Sequential (with no
// instrument and with one), and, when built with the peer packages, by LLVM's
// new pass manager and MLIR's PassManager (benchmarks/peers.cpp). Each no-op
// pass makes its IR opaque to the optimizer, so all do the same work and
// differ only in dispatch. Counters: ns per pass (per pass and function for
// function passes).
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>
import passline;

namespace {

constexpr int pass_count = 50;
constexpr std::size_t function_count = 100;

template <int I>
constexpr auto noop_name = [] {
  std::array<char, 6> chars{'N', 'o', 'o', 'p', '0', '0'};
  chars[4] = static_cast<char>('0' + I / 10);
  chars[5] = static_cast<char>('0' + I % 10);
  return chars;
}();

template <int I>
constexpr std::string_view name_of = std::string_view(noop_name<I>.data(), noop_name<I>.size());

/// A module pass that does nothing the optimizer can see through.
template <int I>
struct Noop {
  static constexpr passline::PassInfo info{.name = name_of<I>, .opt_level = 1};
  int operator()(int ir, passline::PassContext&) const {
    benchmark::DoNotOptimize(ir);
    return ir;
  }
};

struct Function {
  int body = 0;
};
struct Module {
  std::vector<Function> functions = std::vector<Function>(function_count);
};

/// A function pass that does nothing the optimizer can see through.
template <int I>
struct FunctionNoop {
  static constexpr passline::PassInfo info{.name = name_of<I>, .opt_level = 1};
  Function operator()(Function fn, const Module&, passline::PassContext&) const {
    benchmark::DoNotOptimize(fn);
    return fn;
  }
};

}  // namespace

template <>
struct passline::IRTraits<Module> {
  using Function = ::Function;
  static std::size_t function_count(const Module& m) { return m.functions.size(); }
  static const Function& function(const Module& m, std::size_t i) { return m.functions[i]; }
  static void replace_function(Module& m, std::size_t i, Function fn) { m.functions[i] = fn; }
  static bool skips_optimization(const Function&) { return false; }
};

namespace {

/// An instrument that watches every pass and vetoes none.
struct Counter final : passline::Instrument {
  std::size_t before = 0;
  std::size_t after = 0;
  void before_pass(const passline::PassInfo&, passline::IRView, const passline::PassPlace&) override { ++before; }
  void after_pass(const passline::PassInfo&, passline::IRView, const passline::PassPlace&) override { ++after; }
};

constexpr auto indices = std::make_integer_sequence<int, pass_count>{};

template <int... I>
int hand_written(int ir, passline::PassContext& ctx, std::integer_sequence<int, I...>) {
  ((ir = Noop<I>{}(ir, ctx)), ...);
  return ir;
}

/// What a hand-written function-level driver does: each pass over every function.
template <int... I>
Module hand_written_functions(Module ir, passline::PassContext& ctx, std::integer_sequence<int, I...>) {
  ((std::ranges::for_each(ir.functions, [&](Function& fn) { fn = FunctionNoop<I>{}(fn, ir, ctx); })), ...);
  return ir;
}

/// The floor of any pass manager that runs passes by one loop: the passes'
/// functions in an array, each called through its pointer from one call
/// site. The site's target changes at every call, which a CPU's branch
/// predictor may not follow (the same loop over one function shows it).
using PassFunction = int (*)(int, passline::PassContext&);
template <int I>
int call_noop(int ir, passline::PassContext& ctx) {
  return Noop<I>{}(ir, ctx);
}
template <int... I>
constexpr std::array<PassFunction, sizeof...(I)> pass_functions(std::integer_sequence<int, I...>) {
  return {&call_noop<I>...};
}

template <template <int> class P, int... I>
auto static_pipeline(std::integer_sequence<int, I...>) -> passline::Sequential<P<I>...>;

template <class IR, template <int> class P, int... I>
passline::Pass<IR> runtime_pipeline(std::integer_sequence<int, I...>) {
  return passline::sequential<IR>({P<I>{}...});
}

using ModuleStatic = decltype(static_pipeline<Noop>(indices));
using FunctionStatic = decltype(static_pipeline<FunctionNoop>(indices));

void per_pass(benchmark::State& state, double units_per_iteration) {
  state.counters["ns_per_pass"] = benchmark::Counter(static_cast<double>(state.iterations()) * units_per_iteration,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// One thread: the peers run single-threaded too (MLIR with threading off).
passline::PassContext single_threaded() {
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, std::int64_t{1});
  return ctx;
}

// -- Module passes --------------------------------------------------------------

void BM_Module_HandWritten(benchmark::State& state) {
  passline::PassContext ctx;
  int ir = 0;
  for (auto _ : state) ir = hand_written(ir, ctx, indices);
  per_pass(state, pass_count);
}

void BM_Module_FunctionPointerLoop(benchmark::State& state) {
  passline::PassContext ctx;
  static constexpr auto functions = pass_functions(indices);
  int ir = 0;
  for (auto _ : state) {
    for (PassFunction function : functions) {
      benchmark::DoNotOptimize(function);  // called through the pointer, not inlined
      ir = function(ir, ctx);
    }
  }
  per_pass(state, pass_count);
}

void BM_Module_FunctionPointerLoopOneTarget(benchmark::State& state) {
  passline::PassContext ctx;
  static constexpr std::array<PassFunction, pass_count> functions = [] {
    std::array<PassFunction, pass_count> same{};
    same.fill(&call_noop<0>);
    return same;
  }();
  int ir = 0;
  for (auto _ : state) {
    for (PassFunction function : functions) {
      benchmark::DoNotOptimize(function);
      ir = function(ir, ctx);
    }
  }
  per_pass(state, pass_count);
}

void BM_Module_Compiled(benchmark::State& state) {
  passline::PassContext ctx;
  const passline::Compiled<2, ModuleStatic> pipeline;
  int ir = 0;
  for (auto _ : state) ir = pipeline(ir, ctx);
  per_pass(state, pass_count);
}

void BM_Module_StaticSequential(benchmark::State& state) {
  passline::PassContext ctx;
  const ModuleStatic pipeline;
  int ir = 0;
  for (auto _ : state) ir = pipeline(ir, ctx);
  per_pass(state, pass_count);
}

void BM_Module_RuntimeSequential(benchmark::State& state) {
  passline::PassContext ctx;
  const auto pipeline = runtime_pipeline<int, Noop>(indices);
  int ir = 0;
  for (auto _ : state) ir = pipeline(ir, ctx);
  per_pass(state, pass_count);
}

void BM_Module_RuntimeSequentialOneInstrument(benchmark::State& state) {
  passline::PassContext ctx = passline::PassContext().with_instrument(std::make_shared<Counter>());
  const auto pipeline = runtime_pipeline<int, Noop>(indices);
  int ir = 0;
  for (auto _ : state) ir = pipeline(ir, ctx);
  per_pass(state, pass_count);
}

// -- Function passes ------------------------------------------------------------

void BM_Function_HandWritten(benchmark::State& state) {
  passline::PassContext ctx = single_threaded();
  Module ir;
  for (auto _ : state) ir = hand_written_functions(std::move(ir), ctx, indices);
  per_pass(state, pass_count * function_count);
}

void BM_Function_Compiled(benchmark::State& state) {
  passline::PassContext ctx = single_threaded();
  const passline::Compiled<2, FunctionStatic> pipeline;
  Module ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
  per_pass(state, pass_count * function_count);
}

void BM_Function_StaticSequential(benchmark::State& state) {
  passline::PassContext ctx = single_threaded();
  const FunctionStatic pipeline;
  Module ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
  per_pass(state, pass_count * function_count);
}

void BM_Function_RuntimeSequential(benchmark::State& state) {
  passline::PassContext ctx = single_threaded();
  const auto pipeline = runtime_pipeline<Module, FunctionNoop>(indices);
  Module ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
  per_pass(state, pass_count * function_count);
}

void BM_Function_RuntimeSequentialOneInstrument(benchmark::State& state) {
  passline::PassContext ctx = single_threaded().with_instrument(std::make_shared<Counter>());
  const auto pipeline = runtime_pipeline<Module, FunctionNoop>(indices);
  Module ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
  per_pass(state, pass_count * function_count);
}

// -- Cached analysis look-up -----------------------------------------------------

/// An analysis whose result is one number; the benchmarks look it up cached.
struct Size {
  static constexpr passline::AnalysisInfo info{.name = "Size"};
  std::size_t operator()(const Module& module) const { return module.functions.size(); }
};
struct BodyOf {
  static constexpr passline::AnalysisInfo info{.name = "BodyOf"};
  int operator()(const Function& fn, const Module&) const { return fn.body; }
};

/// As a pass looks a result up: with the manager at hand (as an LLVM pass has
/// its FunctionAnalysisManager), or from its context, inside a run that keeps
/// the cache.
void BM_AnalysisLookup_ManagerAtHand(benchmark::State& state) {
  passline::PassContext ctx;
  const Module ir;
  auto& analyses = ctx.analyses<Module>();
  const passline::AnalysisManager<Module>::Keeping keeping(analyses);
  (void)analyses.get<Size>(ir);
  for (auto _ : state) benchmark::DoNotOptimize(&analyses.get<Size>(ir));
}

void BM_AnalysisLookup_Module(benchmark::State& state) {
  passline::PassContext ctx;
  const Module ir;
  auto& analyses = ctx.analyses<Module>();
  const passline::AnalysisManager<Module>::Keeping keeping(analyses);
  (void)analyses.get<Size>(ir);
  for (auto _ : state) benchmark::DoNotOptimize(&ctx.analyses<Module>().get<Size>(ir));
}

void BM_AnalysisLookup_FunctionManagerAtHand(benchmark::State& state) {
  passline::PassContext ctx;
  const Module ir;
  auto& analyses = ctx.analyses<Module>();
  const passline::AnalysisManager<Module>::Keeping keeping(analyses);
  (void)analyses.get<BodyOf>(ir, 7);
  for (auto _ : state) benchmark::DoNotOptimize(&analyses.get<BodyOf>(ir, 7));
}

void BM_AnalysisLookup_Function(benchmark::State& state) {
  passline::PassContext ctx;
  const Module ir;
  auto& analyses = ctx.analyses<Module>();
  const passline::AnalysisManager<Module>::Keeping keeping(analyses);
  (void)analyses.get<BodyOf>(ir, 7);
  for (auto _ : state) benchmark::DoNotOptimize(&ctx.analyses<Module>().get<BodyOf>(ir, 7));
}

BENCHMARK(BM_Module_HandWritten);
BENCHMARK(BM_Module_FunctionPointerLoop);
BENCHMARK(BM_Module_FunctionPointerLoopOneTarget);
BENCHMARK(BM_Module_Compiled);
BENCHMARK(BM_Module_StaticSequential);
BENCHMARK(BM_Module_RuntimeSequential);
BENCHMARK(BM_Module_RuntimeSequentialOneInstrument);
BENCHMARK(BM_Function_HandWritten);
BENCHMARK(BM_Function_Compiled);
BENCHMARK(BM_Function_StaticSequential);
BENCHMARK(BM_Function_RuntimeSequential);
BENCHMARK(BM_Function_RuntimeSequentialOneInstrument);
BENCHMARK(BM_AnalysisLookup_ManagerAtHand);
BENCHMARK(BM_AnalysisLookup_Module);
BENCHMARK(BM_AnalysisLookup_FunctionManagerAtHand);
BENCHMARK(BM_AnalysisLookup_Function);

}  // namespace

BENCHMARK_MAIN();

// Dispatch cost of a pipeline of 50 no-op module passes, side by side:
// hand-written calls, a static Sequential under a context, and a runtime
// pipeline of type-erased Pass values. Each no-op pass makes its IR opaque to
// the optimizer, so all three do the same work and differ only in dispatch.
#include <benchmark/benchmark.h>

#include <array>
#include <string_view>
#include <utility>
#include <vector>
import passline;

namespace {

constexpr int pass_count = 50;

template <int I>
constexpr auto noop_name = [] {
  std::array<char, 6> chars{'N', 'o', 'o', 'p', '0', '0'};
  chars[4] = static_cast<char>('0' + I / 10);
  chars[5] = static_cast<char>('0' + I % 10);
  return chars;
}();

template <int I>
struct Noop {
  static constexpr passline::PassInfo info{
      .name = std::string_view(noop_name<I>.data(), noop_name<I>.size()), .opt_level = 1};
  int operator()(int ir, passline::PassContext&) const {
    benchmark::DoNotOptimize(ir);
    return ir;
  }
};

template <int... I>
int hand_written(int ir, passline::PassContext& ctx, std::integer_sequence<int, I...>) {
  ((ir = Noop<I>{}(ir, ctx)), ...);
  return ir;
}

template <int... I>
auto static_pipeline(std::integer_sequence<int, I...>) {
  return passline::Sequential<Noop<I>...>{};
}

template <int... I>
std::vector<passline::Pass<int>> runtime_pipeline(std::integer_sequence<int, I...>) {
  return {Noop<I>{}...};
}

constexpr auto indices = std::make_integer_sequence<int, pass_count>{};

void per_pass(benchmark::State& state) {
  state.counters["ns_per_pass"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * pass_count,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_HandWritten(benchmark::State& state) {
  passline::PassContext ctx;
  int ir = 0;
  for (auto _ : state) ir = hand_written(ir, ctx, indices);
  per_pass(state);
}

void BM_StaticSequential(benchmark::State& state) {
  passline::PassContext ctx;
  const auto pipeline = static_pipeline(indices);
  int ir = 0;
  for (auto _ : state) ir = pipeline(ir, ctx);
  per_pass(state);
}

void BM_RuntimePipeline(benchmark::State& state) {
  passline::PassContext ctx;
  const auto passes = runtime_pipeline(indices);
  int ir = 0;
  for (auto _ : state) ir = passline::run_sequence(passes, ir, ctx);
  per_pass(state);
}

BENCHMARK(BM_HandWritten);
BENCHMARK(BM_StaticSequential);
BENCHMARK(BM_RuntimePipeline);

}  // namespace

BENCHMARK_MAIN();

// Plugin passes against built-in ones, side by side in one run: 50 no-op
// passes (noop_passes.h) registered by the program, then the same 50 loaded
// from a plugin (noop_plugin.cpp), each run as one runtime pipeline read
// from text: `ns_per_pass` is per pass. Then the time to load the plugin,
// whose 100 passes register, into a new registry and let it go (dlopen,
// the checks, the registration, dlclose): `ms_per_load`.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
import passline;
#include "noop_passes.h"

namespace {

constexpr std::size_t run_count = 50;

std::string pipeline_text() {
  std::string text;
  for (std::size_t i = 0; i < run_count; ++i) text += (i ? ",Noop" : "Noop") + std::string(3 - std::to_string(i).size(), '0') + std::to_string(i);
  return text;
}

void run_pipeline(benchmark::State& state, const passline::Registry<bench::Value>& registry) {
  const passline::Pass<bench::Value> pipeline = passline::parse_pipeline(pipeline_text(), registry);
  passline::PassContext ctx;
  ctx.opt_level = 3;
  bench::Value ir;
  for (auto _ : state) {
    ir = pipeline(ir, ctx);
    benchmark::DoNotOptimize(ir);
  }
  state.counters["ns_per_pass"] = benchmark::Counter(static_cast<double>(state.iterations() * run_count),
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void Dispatch_BuiltIn(benchmark::State& state) {
  passline::Registry<bench::Value> registry;
  bench::register_noops(registry);
  run_pipeline(state, registry);
}
BENCHMARK(Dispatch_BuiltIn);

void Dispatch_Plugin(benchmark::State& state) {
  passline::Registry<bench::Value> registry;
  passline::load_plugin(PASSLINE_NOOP_PLUGIN, registry);
  run_pipeline(state, registry);
}
BENCHMARK(Dispatch_Plugin);

void Load_Plugin100Passes(benchmark::State& state) {
  for (auto _ : state) {
    passline::Registry<bench::Value> registry;
    benchmark::DoNotOptimize(passline::load_plugin(PASSLINE_NOOP_PLUGIN, registry));
  }
  state.counters["ms_per_load"] = benchmark::Counter(static_cast<double>(state.iterations()) / 1000.0,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(Load_Plugin100Passes);

}  // namespace

BENCHMARK_MAIN();

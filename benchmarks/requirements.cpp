// Required passes and instruments on a value-type IR, side by side:
//
// - the same pipeline, three passes that each require a verifier, as a static
//   Sequential that lists the verifier once, and as a runtime pipeline from
//   text that lists only the three users (the plan inserts the verifier);
// - that runtime pipeline with no instrument, and with one user-written
//   instrument left at its default settings.
//
// The IR is a vector of 4096 numbers, passed by value: a run that copied it
// for each pass, or compared it after each, would show here.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>
import passline;

namespace {

struct Values {
  std::vector<std::int64_t> data = std::vector<std::int64_t>(4096, 1);
};

/// Checks the IR; changes nothing.
struct Verify {
  static constexpr passline::PassInfo info{
      .name = "Verify", .summary = "checks the values", .preserves = passline::preserves_all};
  Values operator()(Values values, passline::PassContext&) const {
    if (values.data.empty()) throw std::runtime_error("no values");
    benchmark::DoNotOptimize(values.data.data());
    return values;
  }
};

/// Adds `Add` to every value; needs a verified IR and keeps it verified.
template <passline::fixed_string Name, std::int64_t Add>
struct Work {
  static constexpr passline::PassInfo info{.name = Name.view(),
                                           .required = passline::needs<"Verify">,
                                           .preserves = passline::names<"Verify">};
  Values operator()(Values values, passline::PassContext&) const {
    for (std::int64_t& value : values.data) value += Add;
    benchmark::DoNotOptimize(values.data.data());
    return values;
  }
};

using W1 = Work<"W1", 1>;
using W2 = Work<"W2", 2>;
using W3 = Work<"W3", 3>;

passline::Registry<Values>& registry() {
  static passline::Registry<Values> registry;
  static const bool filled = (registry.add<Verify>().add<W1>().add<W2>().add<W3>(), true);
  (void)filled;
  return registry;
}

/// A user's instrument with the default settings: it counts passes.
struct Counter final : passline::Instrument {
  std::size_t passes = 0;
  void before_pass(const passline::PassInfo&, passline::IRView, const passline::PassPlace&) override { ++passes; }
};

void BM_SharedRequirement_Static(benchmark::State& state) {
  passline::PassContext ctx;
  const passline::Sequential<Verify, W1, W2, W3> pipeline;
  Values ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
}

void BM_SharedRequirement_RuntimeFromText(benchmark::State& state) {
  passline::PassContext ctx;
  const passline::Pass<Values> pipeline = passline::parse_pipeline<Values>("W1,W2,W3", registry());
  Values ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
}

void BM_SharedRequirement_RuntimeFromText_UserInstrument(benchmark::State& state) {
  passline::PassContext ctx;
  ctx.instruments = {std::make_shared<Counter>()};
  const passline::Pass<Values> pipeline = passline::parse_pipeline<Values>("W1,W2,W3", registry());
  Values ir;
  for (auto _ : state) ir = pipeline(std::move(ir), ctx);
}

BENCHMARK(BM_SharedRequirement_Static);
BENCHMARK(BM_SharedRequirement_RuntimeFromText);
BENCHMARK(BM_SharedRequirement_RuntimeFromText_UserInstrument);

}  // namespace

BENCHMARK_MAIN();

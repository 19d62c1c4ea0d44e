// What instruments cost: one 50-pass pipeline over one module, with no
// instrument, with TimePasses (--time-passes), with the change detection of
// print-changed alone (a fingerprint after every pass), and with PrintChanged
// in quiet mode (--print-changed=quiet, its output dropped), side by side: the
// rounds alternate the four, and each reports its best round. Then what one
// pass, one print and one fingerprint of the module cost, to read them by.
//
//   instruments_overhead FILE.ir [ROUNDS]
#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

import passline;
import passline.instruments;
import passline.ir;
import passline.ir.passes;

namespace {

/// InferType, then seven rounds of seven clean-ups: fifty passes.
std::string fifty_passes() {
  std::string text = "InferType";
  for (int round = 0; round < 7; ++round) {
    text += ",FoldConstant,SimplifyExpr,EliminateCommonSubexpr,SimplifyExpr,DeadCodeElimination,InferType,SimplifyExpr";
  }
  return text;
}

/// What --print-changed=quiet does without printing: fingerprint the IR after
/// every pass, to tell a change. Shows what change detection costs alone.
struct Fingerprints final : passline::Instrument {
  bool wants_failed_input() const override { return false; }
  void after_pass(const passline::PassInfo&, passline::IRView ir, const passline::PassPlace&) override {
    last = ir.fingerprint().value_or(0);
  }
  std::uint64_t last = 0;
};

/// Counts the passes that run (prerequisites included), pipelines aside.
struct CountRuns final : passline::Instrument {
  bool wants_failed_input() const override { return false; }
  void after_pass(const passline::PassInfo&, passline::IRView, const passline::PassPlace& place) override {
    if (!place.pipeline) ++runs;
  }
  int runs = 0;
};

template <class F>
double best_ms(int rounds, F&& f) {
  double best = 1e300;
  for (int round = 0; round < rounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.ir [ROUNDS]\n", argv[0]);
    return 1;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const passline::ir::Module module = passline::ir::parse_file(argv[1], argv[1]);
  std::size_t nodes = 0;
  for (const auto& fn : module.functions) nodes += fn.body->size();
  const passline::Pass<passline::ir::Module> pipeline = passline::parse_pipeline(fifty_passes(), passline::ir::registry());

  struct Variant {
    const char* name;
    std::vector<std::shared_ptr<passline::Instrument>> (*instruments)();
    double best = 1e300;
  };
  Variant variants[] = {
      {"no instrument", [] { return std::vector<std::shared_ptr<passline::Instrument>>{}; }},
      {"--time-passes",
       [] { return std::vector<std::shared_ptr<passline::Instrument>>{std::make_shared<passline::TimePasses>()}; }},
      {"fingerprint after each pass",
       [] { return std::vector<std::shared_ptr<passline::Instrument>>{std::make_shared<Fingerprints>()}; }},
      {"--print-changed=quiet",
       [] {
         return std::vector<std::shared_ptr<passline::Instrument>>{std::make_shared<passline::PrintChanged>(
             passline::PrintChanged::Mode::quiet, [](std::string_view) {})};
       }},
  };
  for (int round = 0; round < rounds; ++round) {
    for (Variant& variant : variants) {
      passline::PassContext ctx;
      ctx.instruments = variant.instruments();
      auto scope = ctx.enter();
      passline::ir::Module input = module;  // shares the bodies: every variant rebuilds them alike
      const auto start = std::chrono::steady_clock::now();
      const passline::ir::Module out = pipeline(std::move(input), ctx);
      const auto stop = std::chrono::steady_clock::now();
      variant.best = std::min(variant.best, std::chrono::duration<double, std::milli>(stop - start).count());
    }
  }
  // What each change costs quiet mode, against what a pass costs: a print of
  // the module, and a fingerprint of a body not hashed before.
  const std::string text = passline::ir::print(module);
  const double print_ms = best_ms(rounds, [&] { (void)passline::ir::print(module).size(); });
  double fingerprint_ms = 1e300;
  for (int round = 0; round < rounds; ++round) {
    const passline::ir::Module fresh = passline::ir::parse(text);
    fingerprint_ms = std::min(fingerprint_ms, best_ms(1, [&] { (void)passline::ir::fingerprint(fresh); }));
  }
  int runs = 0;
  {
    passline::PassContext ctx;
    auto counter = std::make_shared<CountRuns>();
    ctx.instruments = {counter};
    auto scope = ctx.enter();
    (void)pipeline(passline::ir::Module(module), ctx);
    runs = counter->runs;
  }

  std::printf("50 passes (%d runs) over %zu nodes, best of %d rounds\n", runs, nodes, rounds);
  std::printf("%-28s %10s %8s\n", "instruments", "ms", "ratio");
  for (const Variant& variant : variants) {
    std::printf("%-28s %10.2f %8.3f\n", variant.name, variant.best, variant.best / variants[0].best);
  }
  std::printf("\none pass on average %.2f ms; one print of the module (%.2f MB) %.2f ms; one fingerprint %.2f ms\n",
              variants[0].best / runs, static_cast<double>(text.size()) / 1e6, print_ms, fingerprint_ms);
  return 0;
}

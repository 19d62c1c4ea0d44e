// What instruments cost: one 50-pass pipeline over one module, with no
// instrument, with TimePasses (--time-passes), with the change detection of
// print-changed alone (a fingerprint after every pass), and with PrintChanged
// in quiet mode (--print-changed=quiet, its output dropped), side by side: the
// rounds alternate the four, and each reports its best round.
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
  std::printf("50 passes over %zu nodes, best of %d rounds\n", nodes, rounds);
  std::printf("%-28s %10s %8s\n", "instruments", "ms", "ratio");
  for (const Variant& variant : variants) {
    std::printf("%-28s %10.2f %8.3f\n", variant.name, variant.best, variant.best / variants[0].best);
  }
  return 0;
}

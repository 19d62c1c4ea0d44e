// Fuzz target: optimisation, a differential test for miscompiles. The first
// byte picks a pipeline (each pass alone, O1..O3, or three passes in a row);
// the rest is a program. A program that parses, verifies and type-checks,
// with an `@main` of i64, f64 and bool parameters, is run through the
// pipeline, verified after every pass, and must compute what it computed
// before (passline.testing.interpreter), and so must its printed text.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

import passline;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;
import passline.testing.interpreter;

namespace ir = passline::ir;
using passline::testing::OutOfFuel;

namespace {

constexpr long fuel = 2000;  // nodes a run may evaluate: enough for these programs, and a bounded stack

/// The pipeline `selector` picks.
std::string pipeline(std::uint8_t selector, const passline::Registry<ir::Module>& registry) {
  std::vector<std::string> passes;
  for (const auto& entry : registry.list()) {
    if (!entry.pipeline) passes.push_back(entry.name);
  }
  const std::vector<std::string> pipelines = {"O1", "O2", "O3"};
  const std::size_t singles = passes.size() + pipelines.size();
  if (selector < singles) return selector < passes.size() ? passes[selector] : pipelines[selector - passes.size()];
  std::string three;
  for (int k = 0; k < 3; ++k, selector /= 3) three += (k ? "," : "") + passes[selector % passes.size()];
  return three;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  ir::Module module;
  std::string expected;
  try {
    module = ir::parse(text, "fuzz.ir");
    ir::verify(module);
  } catch (const ir::IRError&) {
    return 0;
  }
  try {
    passline::PassContext check;
    module = ir::InferType{}(module, check);
  } catch (const std::runtime_error&) {
    return 0;  // type errors (reported to `check`)
  }
  try {
    expected = passline::testing::results(module, fuel);
  } catch (const OutOfFuel&) {
    return 0;
  }
  if (expected.empty()) return 0;  // no @main to run
  const auto& registry = passline::pipelines::registry();
  passline::PassContext ctx;
  ctx.opt_level = 3;
  ctx.instruments.push_back(ir::verify_each());  // a pass that breaks the IR fails the run, naming the pass
  const ir::Module out = passline::parse_pipeline(pipeline(data[0], registry), registry)(module, ctx);
  try {
    if (passline::testing::results(out, 10 * fuel) != expected) __builtin_trap();  // a miscompile
    if (passline::testing::results(ir::parse(ir::print(out), "printed.ir"), 10 * fuel) != expected) __builtin_trap();
  } catch (const OutOfFuel&) {
    __builtin_trap();  // the output runs ten times longer than the input did
  }
  return 0;
}

// Every pass and pipeline keeps the meaning of random well-typed programs.
//
// A small interpreter, written here apart from the passes, evaluates
// `@main` of each generated program on a few inputs before and after each
// pass (and each standard pipeline, and random pipelines of several passes);
// the results must be the same, traps included; every other run checks what
// each pass claims to preserve (VerifyPreserved). The output must also verify,
// and evaluate the same once printed and parsed again. Half the runs hand the
// pipeline a module of its own, rewritten in place; the others a shared one,
// which must be left as it was. The run is seeded: set
// PASSLINE_PROPERTY_SEED to replay one, PASSLINE_PROPERTY_COUNT to change how
// many programs run.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "generator.hpp"
import passline;
import passline.instruments;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;
import passline.testing.interpreter;

namespace {

namespace ir = passline::ir;
using passline::testing::results;

std::uint64_t from_env(const char* name, std::uint64_t otherwise) {
  const char* text = std::getenv(name);
  return text ? std::strtoull(text, nullptr, 10) : otherwise;
}

TEST(Property, EveryPassAndPipelineKeepsWhatProgramsCompute) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000);
  const auto& registry = passline::pipelines::registry();
  std::vector<std::string> pipelines;
  for (std::string_view name : registry.names()) pipelines.emplace_back(name);
  std::mt19937_64 pick(seed);
  std::vector<std::string> passes;
  for (const auto& entry : registry.list()) {
    if (!entry.pipeline) passes.push_back(entry.name);
  }

  std::uint64_t checked = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t program_seed = seed + i;
    const std::string text = passline::testing::random_program(program_seed);
    const std::string where = fmt::format("seed {} (PASSLINE_PROPERTY_SEED={} PASSLINE_PROPERTY_COUNT=1)\n{}",
                                          program_seed, program_seed, text);
    ir::Module module;
    try {
      module = ir::parse(text, "random.ir");
      ir::verify(module);
    } catch (const std::exception& e) {
      FAIL() << "the generator wrote a bad program: " << e.what() << "\n" << where;
    }
    const std::string expected = results(module);
    const std::string input_text = ir::print(module);
    // Each pipeline alone, then a random sequence of five passes.
    std::vector<std::string> runs = pipelines;
    std::string random;
    for (int k = 0; k < 5; ++k) random += (k ? "," : "") + passes[pick() % passes.size()];
    runs.push_back(random);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const std::string& pipeline_text = runs[r];
      passline::PassContext ctx;
      ctx.opt_level = 3;
      ir::Module out;
      // Every other run gets a module of its own, which passes rewrite in
      // place; the others share `module`, which must come out as it went in.
      const bool owned = (i + r) % 2 == 0;
      // Every other run checks what each pass claims to preserve.
      if (r % 2 == i % 2) ctx.instruments = {std::make_shared<passline::VerifyPreserved<ir::Module>>(&registry)};
      try {
        out = passline::parse_pipeline(pipeline_text, registry)(owned ? ir::parse(text, "random.ir") : module, ctx);
        ir::verify(out);
      } catch (const std::exception& e) {
        FAIL() << "'" << pipeline_text << "' failed: " << e.what() << "\n" << where;
      }
      const std::string printed = ir::print(out);
      ASSERT_EQ(results(out), expected) << "'" << pipeline_text << "' changed the results of\n" << where << "into\n" << printed;
      ASSERT_EQ(results(ir::parse(printed, "printed.ir")), expected)
          << "the output of '" << pipeline_text << "' reads back differently\n" << where << "output\n" << printed;
      ++checked;
    }
    ASSERT_EQ(ir::print(module), input_text) << "a pipeline changed the module it was given a copy of\n" << where;
  }
  RecordProperty("seed", std::to_string(seed));
  std::printf("checked %llu programs x pipelines (seed %llu)\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(seed));
}

/// The fingerprint that a print computes on the way for a body, and the
/// one that a walk computes, agree: on random programs, and on what the O3
/// pipeline makes of them (other shapes: lifted functions, fewer lets).
TEST(Property, APrintFingerprintsAsTheWalkDoes) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000) / 4;
  const passline::Pass<ir::Module> o3 = passline::parse_pipeline("O3", passline::pipelines::registry());
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t program_seed = seed + i;
    const std::string text = passline::testing::random_program(program_seed);
    passline::PassContext ctx;
    ctx.opt_level = 3;
    for (const std::string& program : {text, ir::print(o3(ir::parse(text, "random.ir"), ctx))}) {
      const ir::Module printed = ir::parse(program, "random.ir");
      const ir::Module walked = ir::parse(program, "random.ir");
      (void)ir::print(printed);
      for (std::size_t f = 0; f < printed.functions.size(); ++f) {
        ASSERT_EQ(printed.functions[f].body->cached_fingerprint(), walked.functions[f].body->fingerprint())
            << "@" << printed.functions[f].name << " of seed " << program_seed << " (PASSLINE_PROPERTY_SEED="
            << program_seed << " PASSLINE_PROPERTY_COUNT=4)\n"
            << program;
      }
    }
  }
}

}  // namespace

// One run, any number of threads: a module parsed, optimized and printed on
// 1, 2 and 4 threads gives the same bytes, and every instrument's output is
// the same; a malformed module gives the same error, at the same place.
//
// The modules are random well-typed programs (generator.hpp), many of them
// joined into one, their globals renamed apart, so that the text is large
// enough to be parsed in pieces. Seeded like property_test.cpp
// (PASSLINE_PROPERTY_SEED, PASSLINE_PROPERTY_COUNT).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "generator.hpp"
import passline;
import passline.instruments;
import passline.ir;
import passline.pipelines;

namespace {

namespace ir = passline::ir;

std::uint64_t from_env(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

/// Random programs in one module, program k's globals renamed `@name_k`,
/// until the text is `bytes` long: large enough to be parsed in pieces.
std::string big_module(std::uint64_t seed, std::size_t bytes = std::size_t{3} << 16) {
  static const std::regex global("@([A-Za-z_][A-Za-z0-9_]*)");
  std::string text;
  for (int k = 0; text.size() < bytes; ++k) {
    const std::string program = passline::testing::random_program(seed * 1000 + static_cast<std::uint64_t>(k));
    text += std::regex_replace(program, global, fmt::format("@$1_{}", k));
    text += "\n";
  }
  return text;
}

struct RunOutput {
  std::string output;
  std::string print_changed;
  std::string print_after;
  std::string statistics;
};

/// Parse, O2 and print on `threads` threads, with instruments writing to strings.
RunOutput run(const std::string& text, std::int64_t threads) {
  RunOutput out;
  const auto into = [](std::string& s) { return [&s](std::string_view piece) { s += piece; }; };
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, threads);
  ctx.instruments.push_back(std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::diff, into(out.print_changed)));
  ctx.instruments.push_back(std::make_shared<passline::PrintIR>(passline::PrintIR::Options{.after_all = true}, into(out.print_after)));
  const auto n = static_cast<std::size_t>(threads);
  ir::Module module = ir::parse(text, "big.ir", n);
  {
    auto scope = ctx.enter();
    module = passline::parse_pipeline("O2", passline::pipelines::registry())(std::move(module), ctx);
  }
  ir::print_to(module, into(out.output), n);
  out.statistics = ctx.statistics->report();
  return out;
}

TEST(Parallel, ParsePassesAndPrintGiveTheSameBytesAndInstrumentOutputOnAnyNumberOfThreads) {
  const std::uint64_t first = from_env("PASSLINE_PROPERTY_SEED", 1);
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 4);
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    SCOPED_TRACE(fmt::format("PASSLINE_PROPERTY_SEED={} PASSLINE_PROPERTY_COUNT=1", seed));
    const std::string text = big_module(seed);
    ASSERT_GT(text.size(), std::size_t{1} << 16) << "too small to be parsed in pieces";
    // The module itself, parsed in pieces, is the module parsed whole.
    EXPECT_EQ(ir::print(ir::parse(text, "big.ir", 4)), ir::print(ir::parse(text, "big.ir", 1)));
    const RunOutput one = run(text, 1);
    for (const std::int64_t threads : {2, 4}) {
      const RunOutput many = run(text, threads);
      EXPECT_EQ(many.output, one.output) << threads << " threads";
      EXPECT_EQ(many.print_changed, one.print_changed) << threads << " threads";
      EXPECT_EQ(many.print_after, one.print_after) << threads << " threads";
      EXPECT_EQ(many.statistics, one.statistics) << threads << " threads";
    }
    std::string whole;
    ir::print_to(ir::parse(one.output), [&](std::string_view piece) { whole += piece; }, 1);
    EXPECT_EQ(whole, one.output);
  }
}

/// The error of verifying `module` on `threads` threads, or "" if it is well formed.
std::string verify_error(const ir::Module& module, std::size_t threads) {
  try {
    ir::verify(module, threads);
  } catch (const ir::IRError& error) {
    return error.what();
  }
  return "";
}

TEST(Parallel, AnIllFormedModuleGivesTheOneThreadVerifierErrorOnAnyNumberOfThreads) {
  const std::uint64_t first = from_env("PASSLINE_PROPERTY_SEED", 1);
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 4);
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const ir::Module whole = ir::parse(big_module(seed));
    ASSERT_EQ(verify_error(whole, 4), "");
    std::mt19937_64 random(seed);
    for (int attempt = 0; attempt < 8; ++attempt) {
      // Functions dropped: their callers, wherever they are, name unknown functions.
      ir::Module module = whole;
      for (int drop = 0; drop < 1 + attempt; ++drop) {
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, module.functions.size() - 1)(random);
        module.functions.erase(module.functions.begin() + static_cast<std::ptrdiff_t>(at));
      }
      SCOPED_TRACE(fmt::format("seed {} attempt {}", seed, attempt));
      const std::string expected = verify_error(module, 1);
      EXPECT_EQ(verify_error(module, 2), expected);
      EXPECT_EQ(verify_error(module, 4), expected);
    }
  }
}

/// The error of parsing `text` on `threads` threads, or "" if it parses.
std::string parse_error(const std::string& text, std::size_t threads) {
  try {
    ir::parse(text, "big.ir", threads);
  } catch (const ir::IRError& error) {
    return error.what();
  }
  return "";
}

TEST(Parallel, AMalformedModuleGivesTheOneThreadErrorOnAnyNumberOfThreads) {
  const std::uint64_t first = from_env("PASSLINE_PROPERTY_SEED", 1);
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 4);
  const std::string damage[] = {"}", "{", "$", "def", "#[export]", "// }\n", "let", "@main_3", ")"};
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const std::string text = big_module(seed);
    ASSERT_GT(text.size(), std::size_t{1} << 16) << "too small to be parsed in pieces";
    std::mt19937_64 random(seed);
    for (int attempt = 0; attempt < 12; ++attempt) {
      std::string broken = text;
      // One or two edits: where two pieces break, the first in file order must win.
      const int edits = 1 + attempt % 2;
      for (int e = 0; e < edits; ++e) {
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, broken.size() - 1)(random);
        broken.insert(at, damage[std::uniform_int_distribution<std::size_t>(0, std::size(damage) - 1)(random)]);
      }
      SCOPED_TRACE(fmt::format("seed {} attempt {}", seed, attempt));
      const std::string expected = parse_error(broken, 1);
      EXPECT_EQ(parse_error(broken, 2), expected);
      EXPECT_EQ(parse_error(broken, 4), expected);
    }
    // A function defined twice, far apart: the error names the first definition's line.
    std::string twice = text + text.substr(0, text.find("\n}\n") + 3);
    const std::string expected = parse_error(twice, 1);
    EXPECT_NE(expected.find("is defined twice (first at line"), std::string::npos) << expected;
    EXPECT_EQ(parse_error(twice, 4), expected);
  }
}

}  // namespace

// Pipeline text: parsing, canonical printing, and errors with a caret.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::PipelineSyntaxError;
using passline::Registry;
using passline::Value;
using passline::testing::Step;
using passline::testing::Trace;
using Names = std::vector<std::string>;

struct Inline {
  static constexpr PassInfo info{.name = "Inline", .opt_level = 2, .summary = "inlines small functions"};
  std::int64_t max_size = 32;
  bool recursive = false;
  double ratio = 0.5;
  std::string mode = "fast";
  static constexpr auto options =
      passline::options(passline::option<&Inline::max_size>("max-size", "largest callee inlined"),
                        passline::option<&Inline::recursive>("recursive", "inline recursive calls"),
                        passline::option<&Inline::ratio>("ratio", "growth allowed"),
                        passline::option<&Inline::mode>("mode", "strategy"));
  Trace operator()(Trace trace, PassContext&) const {
    trace.ran.push_back("Inline{" + std::to_string(max_size) + "," + mode + "}");
    return trace;
  }
};

struct Unroll {
  static constexpr PassInfo info{.name = "Unroll", .opt_level = 3};
  std::int64_t factor = 4;
  static constexpr auto options = passline::options(passline::option<&Unroll::factor>("factor", "copies"));
  Trace operator()(Trace trace, PassContext&) const {
    trace.ran.push_back("Unroll" + std::to_string(factor));
    return trace;
  }
};

class PipelineText : public ::testing::Test {
 protected:
  PipelineText() {
    registry.add<Step<"InferType">>().add<Step<"FoldConstant", 1, "InferType">>();
    registry.add<Step<"SimplifyExpr">>().add<Step<"DeadCodeElimination">>().add<Inline>().add<Unroll>();
    registry.add("Cleanup", registry.sequential({registry.create("SimplifyExpr"), registry.create("DeadCodeElimination")}));
  }
  Pass<Trace> parse(std::string_view text) const { return passline::parse_pipeline(text, registry); }
  Names run(std::string_view text) const {
    PassContext ctx{.opt_level = 3};
    return parse(text)(Trace{}, ctx).ran;
  }
  Registry<Trace> registry;
};

TEST_F(PipelineText, ParsesNamesOptionsAndNestedPipelines) {
  EXPECT_EQ(run("InferType, FoldConstant ,Inline{max-size=2 mode=all},seq(SimplifyExpr,seq(DeadCodeElimination))"),
            (Names{"InferType", "FoldConstant", "Inline{2,all}", "SimplifyExpr", "DeadCodeElimination"}));
}

TEST_F(PipelineText, AFixedPointRunsItsPipelineUntilTheIRStopsChanging) {
  // Each pass of the trace changes it: every round runs.
  EXPECT_EQ(run("InferType,fixed_point<2>(SimplifyExpr,seq(DeadCodeElimination))"),
            (Names{"InferType", "SimplifyExpr", "DeadCodeElimination", "SimplifyExpr", "DeadCodeElimination"}));
  EXPECT_EQ(parse(" fixed_point< 3 >( InferType , seq( Unroll ) )").text(),
            "fixed_point<3>(InferType,seq(Unroll{factor=4}))");
  EXPECT_EQ(parse("fixed_point<3>(Cleanup)").passes()[0].info().name, "FixedPoint");
  EXPECT_EQ(passline::fixed_point(parse("InferType,Cleanup"), 5, "Loop").text(), "fixed_point<5>(InferType,Cleanup)");
}

TEST_F(PipelineText, NamedPipelinesAreUsedLikePasses) {
  EXPECT_EQ(run("Cleanup,InferType"), (Names{"SimplifyExpr", "DeadCodeElimination", "InferType"}));
  EXPECT_EQ(parse("Cleanup,InferType").text(), "Cleanup,InferType");
}

TEST_F(PipelineText, EmptyTextIsAnEmptyPipeline) {
  EXPECT_TRUE(run("").empty());
  EXPECT_TRUE(parse("  ").passes().empty());
  EXPECT_EQ(parse("seq()").text(), "seq()");
}

TEST_F(PipelineText, PrintingIsCanonicalAndShowsEveryOption) {
  EXPECT_EQ(parse(" InferType ,Inline{ mode=\"two words\" },seq( Unroll )").text(),
            "InferType,Inline{max-size=32 recursive=false ratio=0.5 mode=\"two words\"},seq(Unroll{factor=4})");
}

TEST_F(PipelineText, StringsWithQuotesAndBackslashesRoundTrip) {
  const Pass<Trace> pass = registry.create("Inline", {{"mode", Value(std::string("a\"b\\c"))}});
  EXPECT_EQ(pass.text(), R"(Inline{max-size=32 recursive=false ratio=0.5 mode="a\"b\\c"})");
  EXPECT_EQ(parse(pass.text()).passes()[0].options(), pass.options());
}

/// A malformed pipeline, the message it gets, and the column of its caret.
struct Malformed {
  std::string text;
  std::string message;
  std::size_t column;
};

TEST_F(PipelineText, ErrorsNameTheColumnAndPlaceACaret) {
  const std::vector<Malformed> cases{
      {"InferType,FoldConstnt", "pipeline:1:11: error: unknown pass 'FoldConstnt' (did you mean 'FoldConstant'?)", 11},
      {"InferType,,FoldConstant", "pipeline:1:11: error: expected a pass name after ','", 11},
      {"InferType,", "pipeline:1:11: error: expected a pass name after ','", 11},
      {",InferType", "pipeline:1:1: error: expected a pass name, found ','", 1},
      {"InferType FoldConstant", "pipeline:1:11: error: expected ',' between passes, found 'F'", 11},
      {"InferType)", "pipeline:1:10: error: unexpected ')' with no 'seq(' to close", 10},
      {"seq(InferType", "pipeline:1:4: error: 'seq(' at column 4 is never closed", 4},
      {"seq InferType", "pipeline:1:5: error: expected '(' after 'seq'", 5},
      {"fixed_point(InferType)",
       "pipeline:1:12: error: expected the number of rounds, from 1 to 1000000, as in 'fixed_point<4>(...)'", 12},
      {"fixed_point<0>(InferType)",
       "pipeline:1:13: error: expected the number of rounds, from 1 to 1000000, as in 'fixed_point<4>(...)'", 13},
      {"fixed_point<1000001>(InferType)",
       "pipeline:1:13: error: expected the number of rounds, from 1 to 1000000, as in 'fixed_point<4>(...)'", 13},
      {"fixed_point<2 InferType",
       "pipeline:1:13: error: expected the number of rounds, from 1 to 1000000, as in 'fixed_point<4>(...)'", 13},
      {"fixed_point<2>InferType", "pipeline:1:15: error: expected '(' after 'fixed_point<N>'", 15},
      {"fixed_point<2>(InferType", "pipeline:1:15: error: 'fixed_point<N>(' at column 15 is never closed", 15},
      {"seq(InferType;DeadCodeElimination)", "pipeline:1:14: error: expected ',' or ')', found ';'", 14},
      {"Inline{max-sise=2}", "pipeline:1:8: error: pass 'Inline' has no option 'max-sise' (did you mean 'max-size'?)", 8},
      {"Inline{max-size=big}", "pipeline:1:17: error: option 'max-size' of pass 'Inline' takes an int, not 'big'", 17},
      {"Inline{recursive=yes}", "pipeline:1:18: error: option 'recursive' of pass 'Inline' takes a bool, not 'yes'", 18},
      {"Inline{max-size}", "pipeline:1:16: error: expected '=' after option 'max-size'", 16},
      {"Inline{max-size=1 max-size=2}", "pipeline:1:19: error: option 'max-size' is given twice", 19},
      {"Inline{max-size=1", "pipeline:1:7: error: '{' at column 7 is never closed", 7},
      {"Inline{mode=\"fast}", "pipeline:1:13: error: unterminated string", 13},
      {"InferType{x=1}", "pipeline:1:11: error: pass 'InferType' has no option 'x'", 11},
      {"Inline{=1}", "pipeline:1:8: error: expected an option name, found '='", 8},
      {"InferType$", "pipeline:1:10: error: expected ',' between passes, found '$'", 10},
      {"Infer$Type", "pipeline:1:1: error: unknown pass 'Infer' (did you mean 'InferType'?)", 1},
  };
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      (void)parse(c.text);
      ADD_FAILURE() << "parsed";
    } catch (const PipelineSyntaxError& error) {
      EXPECT_EQ(error.what(), c.message);
      EXPECT_EQ(error.column(), c.column);
      const std::string caret = error.caret();
      const std::string caret_line = caret.substr(caret.find('\n') + 1);
      EXPECT_EQ(caret.substr(0, caret.find('\n')), c.text);
      EXPECT_EQ(caret_line.find('^'), c.column - 1);
    }
  }
}

TEST_F(PipelineText, CaretUnderlinesTheWholeName) {
  try {
    (void)parse("InferType,FoldConstnt");
    FAIL();
  } catch (const PipelineSyntaxError& error) {
    EXPECT_EQ(error.caret(), "InferType,FoldConstnt\n          ^" + std::string(10, '~'));
  }
}

/// A random pipeline over every registered name, with random option values.
Pass<Trace> random_pipeline(const Registry<Trace>& registry, std::mt19937_64& random, int depth) {
  const auto names = registry.names();
  std::vector<Pass<Trace>> passes;
  const int length = std::uniform_int_distribution(0, 4)(random);
  for (int i = 0; i < length; ++i) {
    if (depth < 2 && std::uniform_int_distribution(0, 5)(random) == 0) {
      passes.push_back(random_pipeline(registry, random, depth + 1));
      continue;
    }
    if (depth < 2 && std::uniform_int_distribution(0, 7)(random) == 0) {
      passes.push_back(passline::fixed_point(random_pipeline(registry, random, depth + 1),
                                             std::uniform_int_distribution<std::size_t>(1, 1000)(random)));
      continue;
    }
    const std::string_view name = names[std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(random)];
    std::vector<std::pair<std::string, passline::Value>> options;
    for (const passline::OptionSpec& spec : registry.options_of(name)) {
      if (std::uniform_int_distribution(0, 1)(random) == 0) continue;
      switch (spec.default_value.index()) {
        case 0: options.emplace_back(spec.name, Value(random() % 2 == 0)); break;
        case 1: options.emplace_back(spec.name, Value(static_cast<std::int64_t>(random()))); break;
        case 2: options.emplace_back(spec.name, Value(std::uniform_real_distribution(-1e9, 1e9)(random))); break;
        default: {
          std::string text;
          const std::string alphabet = "ab -_{}(),=\"\\x9";
          for (int k = std::uniform_int_distribution(0, 6)(random); k > 0; --k) {
            text += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(random)];
          }
          options.emplace_back(spec.name, Value(text));
        }
      }
    }
    passes.push_back(registry.create(name, options));
  }
  return registry.sequential(passes);
}

TEST_F(PipelineText, PrintParsePrintIsTheIdentity) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (int i = 0; i < 500; ++i) {
    const std::string printed = random_pipeline(registry, random, 0).text();
    ASSERT_EQ(parse(printed).text(), printed);
  }
}

}  // namespace

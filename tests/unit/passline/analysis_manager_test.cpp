// Analyses: computed once, kept while every pass since preserves them, dropped
// for the functions a function pass ran on only, shown to instruments.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
import passline;
import passline.instruments;
import passline.testing;

namespace {

using passline::AnalysisInfo;
using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::testing::Function;
using passline::testing::Program;
using Names = std::vector<std::string>;

/// Counts its computations.
inline std::size_t module_computations = 0;
inline std::size_t function_computations = 0;

/// A module analysis: how many module passes ran before it.
struct PassCount {
  static constexpr AnalysisInfo info{.name = "PassCount", .summary = "module passes so far"};
  std::size_t operator()(const Program& program) const {
    ++module_computations;
    return program.module_passes.size();
  }
};

/// A function analysis: the function's name, measured.
struct NameLength {
  static constexpr AnalysisInfo info{.name = "NameLength", .summary = "length of a function's name"};
  std::size_t operator()(const Function& fn, const Program&) const {
    ++function_computations;
    return fn.name.size();
  }
};

/// A module pass that asks for both analyses, records what it got, and
/// changes the IR; `Preserves...` says what stays valid.
template <passline::fixed_string Name, passline::fixed_string... Preserves>
struct User {
  static constexpr PassInfo info{.name = Name.view(), .preserves = passline::names<Preserves...>};
  Program operator()(Program program, PassContext& ctx) const {
    auto& analyses = ctx.analyses<Program>();
    const std::size_t count = analyses.get<PassCount>(program);
    std::size_t lengths = 0;
    for (std::size_t i = 0; i < program.functions.size(); ++i) lengths += analyses.get<NameLength>(program, i);
    program.module_passes.push_back(std::string(info.name) + ":" + std::to_string(count) + ":" +
                                    std::to_string(lengths));
    return program;
  }
};

/// A function pass that changes each function it runs on, preserving nothing.
struct Rename {
  static constexpr PassInfo info{.name = "Rename"};
  Function operator()(Function fn, const Program&, PassContext&) const {
    fn.name += "!";
    return fn;
  }
};

Program two_functions() {
  return Program{.functions = {Function{.name = "main"}, Function{.name = "kept", .skip = true}}};
}

struct Counted : ::testing::Test {
  void SetUp() override { module_computations = function_computations = 0; }
};

using Counting = Counted;

TEST_F(Counting, AResultIsKeptWhilePassesPreserveItAndRecomputedAfterOneThatDoesNot) {
  using Pipeline = passline::Sequential<User<"A", "PassCount", "NameLength">, User<"B", "NameLength">, User<"C">,
                                        User<"D">>;
  PassContext ctx;
  const Program out = Pipeline{}(two_functions(), ctx);
  // A computes both; A keeps them; B drops PassCount, keeps NameLength; C drops both.
  EXPECT_EQ(out.module_passes, (Names{"A:0:8", "B:0:8", "C:2:8", "D:3:8"}));
  EXPECT_EQ(module_computations, 3u);    // A, C, D
  EXPECT_EQ(function_computations, 4u);  // A and D, two functions each
}

TEST_F(Counting, EveryFormOfThePipelineComputesTheSame) {
  using A = User<"A", "PassCount", "NameLength">;
  using B = User<"B", "NameLength">;
  using C = User<"C">;
  auto counts = [](auto&& run) {
    module_computations = function_computations = 0;
    run();
    return std::pair{module_computations, function_computations};
  };
  const auto plain = counts([] {
    PassContext ctx;
    (void)passline::Sequential<A, B, C>{}(two_functions(), ctx);
  });
  const auto watched = counts([] {
    PassContext ctx;
    ctx.instruments = {std::make_shared<passline::TimePasses>()};
    (void)passline::Sequential<A, B, C>{}(two_functions(), ctx);
  });
  const auto runtime = counts([] {
    PassContext ctx;
    (void)passline::sequential<Program>({A{}, B{}, C{}})(two_functions(), ctx);
  });
  EXPECT_EQ(plain, (std::pair<std::size_t, std::size_t>{2, 2}));
  EXPECT_EQ(watched, plain);
  EXPECT_EQ(runtime, plain);
}

TEST_F(Counting, AFunctionPassDropsOnlyTheResultsOfTheFunctionsItRanOn) {
  // Rename runs on `main` only (`kept` skips optimization): NameLength of
  // `kept` stays; PassCount, which Rename does not preserve, goes.
  PassContext ctx;
  const Program out =
      passline::Sequential<User<"A", "PassCount", "NameLength">, Rename, User<"B">>{}(two_functions(), ctx);
  EXPECT_EQ(out.module_passes, (Names{"A:0:8", "B:1:9"}));
  EXPECT_EQ(function_computations, 3u);  // main, kept; then main again
  EXPECT_EQ(module_computations, 2u);
}

TEST_F(Counting, OutsideARunEveryRequestComputesAfresh) {
  PassContext ctx;
  auto& analyses = ctx.analyses<Program>();
  Program program = two_functions();
  EXPECT_EQ(analyses.get<PassCount>(program), 0u);
  program.module_passes.push_back("by hand");
  EXPECT_EQ(analyses.get<PassCount>(program), 1u);
  EXPECT_EQ(module_computations, 2u);
  // And a run leaves nothing behind for the next one.
  (void)passline::Sequential<User<"A", "*">>{}(program, ctx);
  EXPECT_EQ(analyses.cached<PassCount>(), nullptr);
}

/// Changes the IR part way, and asks again before and after forgetting.
struct Twice {
  static constexpr PassInfo info{.name = "Twice"};
  Program operator()(Program program, PassContext& ctx) const {
    auto& analyses = ctx.analyses<Program>();
    const std::size_t before = analyses.get<PassCount>(program);
    program.module_passes.push_back("step");
    EXPECT_EQ(analyses.get<PassCount>(program), before);  // cached: still the old result
    analyses.forget<PassCount>();
    EXPECT_EQ(analyses.get<PassCount>(program), before + 1);
    return program;
  }
};

TEST_F(Counting, APassThatChangedTheIRForgetsBeforeAskingAgain) {
  PassContext ctx;
  (void)passline::Sequential<Twice>{}(two_functions(), ctx);
  EXPECT_EQ(module_computations, 2u);
}

/// Records analysis computations.
struct Watcher final : passline::Instrument {
  Names events;
  void before_analysis(const AnalysisInfo& info, std::string_view unit) override {
    events.push_back("compute " + std::string(info.name) + (unit.empty() ? "" : " on " + std::string(unit)));
  }
  void after_analysis(const AnalysisInfo& info, std::string_view) override {
    events.push_back("done " + std::string(info.name));
  }
};

TEST_F(Counting, InstrumentsSeeComputationsNotLookUps) {
  auto watcher = std::make_shared<Watcher>();
  auto timings = std::make_shared<passline::PassTimings>();
  PassContext ctx;
  ctx.instruments = {watcher, std::make_shared<passline::TimePasses>(timings)};
  (void)passline::Sequential<User<"A", "*">, User<"B">>{}(Program{.functions = {Function{.name = "f"}}}, ctx);
  EXPECT_EQ(watcher->events, (Names{"compute PassCount", "done PassCount", "compute NameLength on #0",
                                    "done NameLength"}));
  // --time-passes lists them under the pass that asked, apart from passes.
  const passline::PassTimings::Entry* pipeline = timings->top().data();
  ASSERT_NE(pipeline, nullptr);
  const passline::PassTimings::Entry* a = pipeline->find("A");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->find("PassCount (analysis)"), nullptr);
  EXPECT_NE(a->find("NameLength (analysis)"), nullptr);
  EXPECT_EQ(pipeline->find("B")->children.size(), 0u);
}

}  // namespace

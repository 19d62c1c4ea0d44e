// Plan, then run: every form of a pipeline runs the same passes, with the
// same hooks and the same errors, and a plan says why each pass runs.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
import passline;
import passline.instruments;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::PassPlace;
using passline::RunReason;
using passline::testing::Preserving;
using passline::testing::Step;
using passline::testing::Trace;
using Names = std::vector<std::string>;

using Infer = Step<"InferType">;
using Fold = Preserving<Step<"FoldConstant", 1, "InferType">, "InferType">;  // keeps the types
using CSE = Step<"CSE", 2, "InferType">;                                         // says nothing: breaks them
using Simplify = Step<"SimplifyExpr", 2, "InferType">;

/// Records every hook: `before Name (why)`, `after Name`, `failed Name`.
struct Recorder final : passline::Instrument {
  Names events;
  void before_pass(const PassInfo& info, passline::IRView, const PassPlace& place) override {
    std::string why;
    if (place.reason == RunReason::required) why = " (required by " + std::string(place.required_by) + ")";
    if (place.reason == RunReason::rerun) {
      why = " (re-run for " + std::string(place.required_by) + " after " + std::string(place.invalidated_by) + ")";
    }
    events.push_back("before " + std::string(info.name) + why);
  }
  void after_pass(const PassInfo& info, passline::IRView, const PassPlace&) override {
    events.push_back("after " + std::string(info.name));
  }
  void after_failed_pass(const PassInfo& info, passline::IRView, const PassPlace&, std::exception_ptr) override {
    events.push_back("failed " + std::string(info.name));
  }
};

struct Forms {
  passline::Registry<Trace> registry;
  Forms() { registry.add<Infer>().add<Fold>().add<CSE>().add<Simplify>(); }

  /// The pipeline as each form runs it under a context like `ctx`.
  std::vector<Names> run_all(const PassContext& like) const {
    std::vector<Names> results;
    auto run = [&](auto&& pipeline) {
      PassContext ctx = like.derive();
      results.push_back(pipeline(Trace{}, ctx).ran);
    };
    run(passline::ResolvedSequential<passline::Catalog<Infer>, Fold, CSE, Simplify>{});  // static, resolved
    run(registry.sequential({Pass<Trace>(Fold{}), Pass<Trace>(CSE{}), Pass<Trace>(Simplify{})}));  // runtime
    run(passline::parse_pipeline<Trace>("FoldConstant,CSE,SimplifyExpr", registry));                  // text
    return results;
  }
};

TEST(Plan, StaticRuntimeAndTextFormsRunTheSamePasses) {
  const Forms forms;
  const Names all{"InferType", "FoldConstant", "CSE", "InferType", "SimplifyExpr"};
  for (const Names& ran : forms.run_all(PassContext{.opt_level = 2})) EXPECT_EQ(ran, all);
  // Under an instrument, the same passes.
  PassContext watched{.opt_level = 2};
  watched.instruments = {std::make_shared<Recorder>()};
  for (const Names& ran : forms.run_all(watched)) EXPECT_EQ(ran, all);
  // At level 1 CSE and SimplifyExpr do not run, and nothing breaks the types.
  for (const Names& ran : forms.run_all(PassContext{.opt_level = 1})) EXPECT_EQ(ran, (Names{"InferType", "FoldConstant"}));
  // A context that disables CSE: no re-run either.
  for (const Names& ran : forms.run_all(PassContext{.opt_level = 2, .disabled = {"CSE"}})) {
    EXPECT_EQ(ran, (Names{"InferType", "FoldConstant", "SimplifyExpr"}));
  }
}

TEST(Plan, AStaticPipelineRunsAlikeWithAndWithoutInstruments) {
  using Pipeline = passline::Sequential<Infer, Fold, CSE, Infer, Simplify>;
  PassContext plain{.opt_level = 2};
  const Names unwatched = Pipeline{}(Trace{}, plain).ran;
  PassContext watched{.opt_level = 2};
  auto recorder = std::make_shared<Recorder>();
  watched.instruments = {recorder};
  EXPECT_EQ(Pipeline{}(Trace{}, watched).ran, unwatched);
  EXPECT_EQ(Pass<Trace>(Pipeline{})(Trace{}, watched).ran, unwatched);
  // Instruments hear the pipeline around its passes.
  EXPECT_EQ(recorder->events.front(), "before Sequential");
  EXPECT_EQ(recorder->events.back(), "after Sequential");
}

TEST(Plan, InstrumentsAreToldWhyARequiredPassRuns) {
  const Forms forms;
  auto recorder = std::make_shared<Recorder>();
  PassContext ctx{.opt_level = 2};
  ctx.instruments = {recorder};
  (void)forms.registry.sequential({Pass<Trace>(Fold{}), Pass<Trace>(CSE{}), Pass<Trace>(Simplify{})})(Trace{}, ctx);
  EXPECT_EQ(recorder->events, (Names{"before Sequential", "before InferType (required by FoldConstant)",
                                     "after InferType", "before FoldConstant", "after FoldConstant", "before CSE",
                                     "after CSE", "before InferType (re-run for SimplifyExpr after CSE)",
                                     "after InferType", "before SimplifyExpr", "after SimplifyExpr",
                                     "after Sequential"}));
}

TEST(Plan, APlanPrintsWhyEachPassRuns) {
  const Forms forms;
  const Pass<Trace> pipeline = passline::parse_pipeline<Trace>("FoldConstant,seq(CSE,SimplifyExpr)", forms.registry);
  EXPECT_EQ(passline::plan_text(pipeline.plan(PassContext{.opt_level = 2})),
            "InferType  (required by FoldConstant)\n"
            "FoldConstant\n"
            "Sequential\n"
            "  CSE\n"
            "  InferType  (re-run for SimplifyExpr: CSE does not preserve it)\n"
            "  SimplifyExpr\n");
  // The plan follows the context: at level 1 the inner pipeline is empty.
  EXPECT_EQ(passline::plan_text(pipeline.plan(PassContext{.opt_level = 1})),
            "InferType  (required by FoldConstant)\n"
            "FoldConstant\n"
            "Sequential\n");
}

TEST(Plan, AListedRequiredPassRunsAtItsPlaceWhateverItsLevel) {
  // InferType at level 3 is listed; FoldConstant (level 1) requires it: it
  // runs where it is listed, as the static form decides at compile time.
  using Late = Step<"InferType", 3>;
  using Pipeline = passline::Sequential<Late, Fold>;
  PassContext plain{.opt_level = 1};
  EXPECT_EQ(Pipeline{}(Trace{}, plain).ran, (Names{"InferType", "FoldConstant"}));
  PassContext named{.opt_level = 1, .required = {"Nothing"}};  // a context that names passes plans
  EXPECT_EQ(Pipeline{}(Trace{}, named).ran, (Names{"InferType", "FoldConstant"}));
  EXPECT_EQ(Pass<Trace>(Pipeline{})(Trace{}, named).ran, (Names{"InferType", "FoldConstant"}));
}

/// A pass that throws a standard exception.
struct Broken {
  static constexpr PassInfo info{.name = "Broken"};
  Trace operator()(Trace, PassContext&) const { throw std::runtime_error("out of cheese"); }
};

TEST(Plan, TheSamePassErrorOnEveryPath) {
  using Pipeline = passline::Sequential<Infer, Broken>;
  auto error_of = [](auto&& run) -> std::pair<std::string, std::string> {
    try {
      run();
    } catch (const passline::PassError& error) {
      return {error.what(), error.path()};
    }
    return {"no error", ""};
  };
  const std::pair<std::string, std::string> expected{
      "pass 'Broken' failed (in Sequential/Broken): out of cheese", "Sequential/Broken"};
  EXPECT_EQ(error_of([] {
              PassContext ctx;
              (void)Pipeline{}(Trace{}, ctx);
            }),
            expected);
  EXPECT_EQ(error_of([] {
              PassContext ctx;
              ctx.instruments = {std::make_shared<Recorder>()};
              (void)Pipeline{}(Trace{}, ctx);
            }),
            expected);
  EXPECT_EQ(error_of([] {
              PassContext ctx;
              (void)Pass<Trace>(Pipeline{})(Trace{}, ctx);
            }),
            expected);
  EXPECT_EQ(error_of([] {
              PassContext ctx;
              (void)passline::sequential<Trace>({Pass<Trace>(Infer{}), Pass<Trace>(Broken{})})(Trace{}, ctx);
            }),
            expected);
  // The compiled form: the chain of calls, failing as every other form fails.
  EXPECT_EQ(error_of([] {
              PassContext ctx;
              (void)passline::Compiled<2, Pipeline>{}(Trace{}, ctx);
            }),
            expected);
  // Pipeline text: its list is no pipeline of its own; a seq(...) is.
  EXPECT_EQ(error_of([] {
              passline::Registry<Trace> registry;
              registry.add<Infer>().add<Broken>();
              PassContext ctx;
              (void)passline::parse_pipeline<Trace>("seq(InferType,Broken)", registry)(Trace{}, ctx);
            }),
            expected);
}

}  // namespace

namespace {

// --print-changed on an IR it cannot compare (no printer, no fingerprint):
// it says so after each pass, never "omitted because no change".
TEST(Plan, PrintChangedSaysWhenItCannotTell) {
  std::string out;
  PassContext ctx;
  ctx.instruments = {std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::full,
                                                              [&](std::string_view text) { out += text; })};
  (void)passline::Sequential<Infer, Fold>{}(Trace{}, ctx);
  EXPECT_EQ(out.find("no change"), std::string::npos) << out;
  EXPECT_NE(out.find("// *** IR Dump After FoldConstant (cannot tell whether it changed: the IR has neither a "
                     "printer nor a fingerprint) ***"),
            std::string::npos)
      << out;
}

}  // namespace

namespace {

/// A pass with an option: it records itself `times` times.
struct Tagged {
  static constexpr PassInfo info{.name = "Tagged"};
  std::int64_t times = 1;
  static constexpr auto options =
      passline::options(passline::option<&Tagged::times>("times", "how many times it records itself"));
  Trace operator()(Trace trace, PassContext&) const {
    for (std::int64_t i = 0; i < times; ++i) trace.ran.emplace_back("Tagged");
    return trace;
  }
};

/// Tagged with its option set where the pipeline is written.
using Thrice = passline::Configured<Tagged, [](Tagged& pass) { pass.times = 3; }>;

TEST(Plan, AStaticPipelineRunsAConfiguredPassWithItsValues) {
  using Pipeline = passline::Sequential<Tagged, Thrice>;  // one pass, two configurations
  PassContext plain;
  EXPECT_EQ(Pipeline{}(Trace{}, plain).ran, (Names(4, "Tagged")));
  PassContext watched;
  watched.instruments = {std::make_shared<Recorder>()};
  EXPECT_EQ(Pipeline{}(Trace{}, watched).ran, (Names(4, "Tagged")));
  // It prints, and so reproduces, with its values.
  EXPECT_EQ(Pass<Trace>(Pipeline{}).text(), "Tagged{times=1},Tagged{times=3}");
  using AtO2 = passline::Compiled<2, Pipeline>;
  EXPECT_EQ(AtO2{}(Trace{}, plain).ran, (Names(4, "Tagged")));
}

TEST(Plan, ANamedStaticPipelineStandsUnderItsName) {
  using Cleanup = passline::Named<"Cleanup", passline::Sequential<Infer, Broken>>;
  static_assert(Cleanup::info.name == "Cleanup");
  for (bool watched : {false, true}) {
    PassContext ctx;
    if (watched) ctx.instruments = {std::make_shared<Recorder>()};
    try {
      (void)Cleanup{}(Trace{}, ctx);
      FAIL() << "expected an error";
    } catch (const passline::PassError& error) {
      EXPECT_STREQ(error.what(), "pass 'Broken' failed (in Cleanup/Broken): out of cheese");
    }
  }
  EXPECT_EQ(passline::plan_text(Pass<Trace>(Cleanup{}).plan(PassContext{})), "Cleanup\n  InferType\n  Broken\n");
}

}  // namespace

namespace {

/// Records itself until the trace holds `Limit` entries, then changes nothing.
template <passline::fixed_string Name, std::size_t Limit>
struct Until {
  static constexpr PassInfo info{.name = Name.view()};
  Trace operator()(Trace trace, PassContext&) const {
    if (trace.ran.size() < Limit) trace.ran.emplace_back(info.name);
    return trace;
  }
};

TEST(Plan, AFixedPointRunsUntilTheIRStopsChanging) {
  using Body = passline::Sequential<Until<"A", 5>, Until<"B", 5>>;
  PassContext ctx;
  // Rounds: A B | A B | A -, then a round that changes nothing ends it.
  EXPECT_EQ((passline::FixedPoint<10, Body>{}(Trace{}, ctx).ran), (Names{"A", "B", "A", "B", "A"}));
  // At most N rounds.
  EXPECT_EQ((passline::FixedPoint<1, Body>{}(Trace{}, ctx).ran), (Names{"A", "B"}));
  // The runtime form runs the same.
  const Pass<Trace> runtime = passline::fixed_point(Pass<Trace>(Body{}), 10);
  EXPECT_EQ(runtime(Trace{}, ctx).ran, (Names{"A", "B", "A", "B", "A"}));
  // Inside a pipeline it is one pass.
  EXPECT_EQ((passline::Sequential<Infer, passline::FixedPoint<2, Body, "Cleanup">>{}(Trace{}, ctx).ran),
            (Names{"InferType", "A", "B", "A", "B"}));
}

}  // namespace

namespace {

/// Records each pass and pipeline with its place: `depth:sequence Name (in Parent)`.
struct Places final : passline::Instrument {
  Names events;
  void before_pass(const PassInfo& info, passline::IRView, const PassPlace& place) override {
    events.push_back(std::to_string(place.depth) + ":" + std::to_string(place.sequence) + " " +
                     std::string(info.name) + " (in " + std::string(place.parent) + ")");
  }
};

// A fixed point's rounds, and a pass that runs a pipeline under its context,
// continue the run they are in: instruments see one tree of depths and one
// sequence, in the static and the runtime forms alike.
TEST(Plan, InstrumentsSeeOneRunThroughAFixedPointsRounds) {
  using Body = passline::Sequential<Until<"A", 3>, Until<"B", 3>>;
  // After InferType the trace holds one entry: A and B record in the first
  // round, nothing in the second, which ends the loop.
  const Names expected{"0:1 Sequential (in )",        "1:2 InferType (in Sequential)", "1:3 Loop (in Sequential)",
                       "2:4 Sequential (in Loop)",    "3:5 A (in Sequential)",         "3:6 B (in Sequential)",
                       "2:7 Sequential (in Loop)",    "3:8 A (in Sequential)",         "3:9 B (in Sequential)"};
  {
    auto places = std::make_shared<Places>();
    PassContext ctx;
    ctx.instruments = {places};
    (void)passline::sequential<Trace>({Pass<Trace>(Infer{}), Pass<Trace>(passline::FixedPoint<5, Body, "Loop">{})})(
        Trace{}, ctx);
    EXPECT_EQ(places->events, expected);
  }
  {
    auto places = std::make_shared<Places>();
    PassContext ctx;
    ctx.instruments = {places};
    (void)passline::sequential<Trace>({Pass<Trace>(Infer{}), passline::fixed_point(Pass<Trace>(Body{}), 5, "Loop")})(
        Trace{}, ctx);
    EXPECT_EQ(places->events, expected);
  }
}

// A pass that fails inside a nested run is named by its whole path.
TEST(Plan, AFailureInsideAFixedPointNamesItsWholePath) {
  using Body = passline::Sequential<Until<"A", 3>, Broken>;
  PassContext ctx;
  try {
    (void)passline::Sequential<Infer, passline::FixedPoint<5, Body, "Loop">>{}(Trace{}, ctx);
    FAIL();
  } catch (const passline::PassError& error) {
    EXPECT_EQ(error.path(), "Sequential/Loop/Sequential/Broken");
  }
}

}  // namespace

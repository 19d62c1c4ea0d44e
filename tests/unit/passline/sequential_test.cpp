#include <gtest/gtest.h>

#include <string>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::PassContext;
using passline::Sequential;
using passline::testing::Step;
using passline::testing::Trace;

using Names = std::vector<std::string>;

static_assert(passline::ModulePass<Sequential<Step<"A">, Step<"B">>, Trace>);
static_assert(Sequential<Step<"A">>::info.opt_level == 0);

TEST(Sequential, RunsPassesInOrder) {
  PassContext ctx;
  Trace out = Sequential<Step<"A">, Step<"B">, Step<"C">>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"A", "B", "C"}));
}

TEST(Sequential, EmptyIsIdentity) {
  PassContext ctx;
  Trace in{.ran = {"before"}};
  EXPECT_EQ(Sequential<>{}(in, ctx), in);
}

TEST(Sequential, NestedSequentialRunsInPlace) {
  PassContext ctx;
  using Inner = Sequential<Step<"B">, Step<"C">>;
  Trace out = Sequential<Step<"A">, Inner, Step<"D">>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"A", "B", "C", "D"}));
}

TEST(Sequential, SkipsPassesAboveOptLevel) {
  PassContext ctx{.opt_level = 1};
  Trace out = Sequential<Step<"A", 0>, Step<"B", 2>, Step<"C", 1>>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"A", "C"}));
}

TEST(Sequential, RunsRequiredAndSkipsDisabled) {
  PassContext ctx{.opt_level = 0, .required = {"B"}, .disabled = {"C"}};
  Trace out = Sequential<Step<"A", 0>, Step<"B", 3>, Step<"C", 0>>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"A", "B"}));
}

}  // namespace

namespace {

struct InferType : Step<"InferType", 3> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : passline::testing::Preserving<Step<"Inline", 2>, "InferType"> {};

TEST(Sequential, RunsARequiredPassWhateverItsOptLevel) {
  // InferType alone would not run at level 2; FoldConstant requires it, so it does.
  PassContext ctx{.opt_level = 2};
  Trace out = Sequential<InferType, Inline, FoldConstant>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"InferType", "Inline", "FoldConstant"}));
  PassContext low{.opt_level = 1};
  EXPECT_EQ((Sequential<InferType, Inline, FoldConstant>{}(Trace{}, low).ran), Names{});
}

TEST(Sequential, RequiredPassOfAContextRequiredPassRuns) {
  PassContext ctx{.opt_level = 0, .required = {"FoldConstant"}};
  Trace out = Sequential<InferType, Inline, FoldConstant>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"InferType", "FoldConstant"}));
}

TEST(Sequential, DisablingARequiredPassIsAnError) {
  PassContext ctx{.opt_level = 2, .disabled = {"InferType"}};
  try {
    Sequential<InferType, FoldConstant>{}(Trace{}, ctx);
    FAIL() << "expected a PipelineError";
  } catch (const passline::PipelineError& error) {
    EXPECT_STREQ(error.what(),
                 "pass 'FoldConstant' requires 'InferType', which the pass context disables");
  }
  // Disabling the user as well is fine: nothing needs InferType any more.
  PassContext both{.opt_level = 2, .disabled = {"InferType", "FoldConstant"}};
  EXPECT_EQ((Sequential<InferType, FoldConstant, Inline>{}(Trace{}, both).ran), Names{"Inline"});
}

TEST(Sequential, InnerPipelineMayRelyOnTheOuterOne) {
  PassContext ctx{.opt_level = 3};
  Trace out = Sequential<InferType, Sequential<Inline, FoldConstant>>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"InferType", "Inline", "FoldConstant"}));
}

TEST(Sequential, RunsUnderTheCurrentContextByDefault) {
  PassContext ctx{.opt_level = 1};
  auto scope = ctx.enter();
  EXPECT_EQ((Sequential<Step<"A", 1>, Step<"B", 2>>{}(Trace{}).ran), Names{"A"});
}

// A Sequential's PassInfo: opt level 0, and it requires what its passes require
// and no earlier pass of it provides, once each, in order of first use.
using Outer = Sequential<Inline, FoldConstant, Step<"X", 0, "InferType", "Inline", "Y">>;
static_assert(Outer::info.name == "Sequential");
static_assert(Outer::info.opt_level == 0);
static_assert(Outer::info.required.size() == 2);
static_assert(Outer::info.required[0] == "InferType");
static_assert(Outer::info.required[1] == "Y");
static_assert(Sequential<InferType, FoldConstant>::info.required.empty());
static_assert(Sequential<InferType, Sequential<FoldConstant>>::info.required.empty());
static_assert(Sequential<Sequential<FoldConstant>, InferType>::info.required.size() == 1);

}  // namespace

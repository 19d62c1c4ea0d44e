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

#include <gtest/gtest.h>

#include <string>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::PassContext;
using passline::testing::FunctionStep;
using passline::testing::Program;
using passline::testing::ProgramStep;

using Names = std::vector<std::string>;

using Simplify = FunctionStep<"Simplify">;
using Lift = ProgramStep<"Lift">;

static_assert(passline::FunctionPass<Simplify, Program>);
static_assert(!passline::ModulePass<Simplify, Program>);
static_assert(passline::ModulePass<Lift, Program>);
static_assert(!passline::FunctionPass<Lift, Program>);
// An IR without IRTraits has no function passes.
static_assert(!passline::FunctionPass<Simplify, passline::testing::Trace>);

Program sample() { return {.functions = {{.name = "f"}, {.name = "g", .skip = true}, {.name = "h"}}}; }

TEST(FunctionPass, RunsOnEveryFunctionNotSkipped) {
  PassContext ctx;
  Program out = passline::Sequential<Simplify>{}(sample(), ctx);
  EXPECT_EQ(out.functions[0].ran, (Names{"Simplify@0"}));
  EXPECT_EQ(out.functions[1].ran, Names{});
  EXPECT_EQ(out.functions[2].ran, (Names{"Simplify@0"}));
}

TEST(FunctionPass, EveryCallSeesTheModuleBeforeThePass) {
  // "@0": when h ran, the module it saw had no function updated by this pass yet.
  PassContext ctx;
  Program out = passline::Sequential<Simplify, FunctionStep<"Fold">>{}(sample(), ctx);
  EXPECT_EQ(out.functions[2].ran, (Names{"Simplify@0", "Fold@0"}));
}

TEST(FunctionPass, MixesWithModulePasses) {
  PassContext ctx;
  Program out = passline::Sequential<Lift, Simplify, ProgramStep<"Verify">>{}(sample(), ctx);
  EXPECT_EQ(out.module_passes, (Names{"Lift", "Verify"}));
  EXPECT_EQ(out.functions[0].ran, (Names{"Simplify@0"}));
}

TEST(FunctionPass, IsGatedLikeAModulePass) {
  PassContext ctx{.opt_level = 1};
  Program out = passline::Sequential<FunctionStep<"Expensive", 3>, Simplify>{}(sample(), ctx);
  EXPECT_EQ(out.functions[0].ran, (Names{"Simplify@0"}));
}

TEST(FunctionPass, BecomesATypeErasedPass) {
  passline::Pass<Program> pass = Simplify{};
  PassContext ctx;
  Program out = pass(sample(), ctx);
  EXPECT_EQ(pass.info().name, "Simplify");
  EXPECT_EQ(out.functions[2].ran, (Names{"Simplify@0"}));
  EXPECT_EQ(out.functions[1].ran, Names{});
}

}  // namespace

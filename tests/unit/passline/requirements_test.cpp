// Required passes in runtime pipelines: found in the registry, run once while
// they hold (every pass since preserved them), run again where a pass since
// did not, transitively, with errors that name the chain, the cycle, or the
// context that disables them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <string>
#include <string_view>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::PipelineError;
using passline::Registry;
using passline::testing::Effect;
using passline::testing::logged;
using passline::testing::Program;
using passline::testing::RunLog;
using Names = std::vector<std::string>;

/// A registry of logged passes: `ran` lists the passes in the order they ran.
/// A pass that keeps the IR says so: it preserves everything.
struct Passes {
  RunLog ran = std::make_shared<Names>();
  Registry<Program> registry;

  Pass<Program> add(std::string_view name, std::vector<std::string_view> required = {},
                    Effect effect = Effect::keeps, std::vector<std::string_view> preserves = {}) {
    PassInfo info{.name = name, .required = required, .preserves = preserves};
    if (effect == Effect::keeps) info.preserves = passline::preserves_all;
    Pass<Program> pass = logged(ran, info, effect);
    registry.add(pass.info(), {}, [pass](const auto&) { return pass; });
    return pass;
  }
  Pass<Program> get(std::string_view name) const { return registry.create(name); }
  Program run(std::vector<std::string_view> names, PassContext ctx = {}) const {
    std::vector<Pass<Program>> pipeline;
    for (std::string_view name : names) pipeline.push_back(get(name));
    return registry.sequential(pipeline)(Program{}, ctx);
  }
};

TEST(Requirements, RequiredPassRunsFirst) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"});
  p.run({"FoldConstant"});
  EXPECT_EQ(*p.ran, (Names{"InferType", "FoldConstant"}));
}

TEST(Requirements, RunsOnceNotOncePerUserWhileEveryPassSincePreservesIt) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"});
  p.add("EliminateCommonSubexpr", {"InferType"});
  p.add("SimplifyExpr", {"InferType"});
  p.run({"FoldConstant", "EliminateCommonSubexpr", "SimplifyExpr"});
  EXPECT_EQ(*p.ran, (Names{"InferType", "FoldConstant", "EliminateCommonSubexpr", "SimplifyExpr"}));
}

TEST(Requirements, ListedEarlierCountsAsSatisfied) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"});
  p.run({"InferType", "FoldConstant"});
  EXPECT_EQ(*p.ran, (Names{"InferType", "FoldConstant"}));
}

TEST(Requirements, ReRunsAfterAPassThatDoesNotPreserveIt) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"}, Effect::changes);
  p.add("EliminateCommonSubexpr", {"InferType"});
  const Program out = p.run({"FoldConstant", "EliminateCommonSubexpr"});
  EXPECT_EQ(*p.ran, (Names{"InferType", "FoldConstant", "InferType", "EliminateCommonSubexpr"}));
  EXPECT_EQ(out.module_passes, (Names{"FoldConstant"}));
}

TEST(Requirements, APassThatPreservesItKeepsItValidThoughItChangesTheIR) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"}, Effect::changes, {"InferType"});
  p.add("EliminateCommonSubexpr", {"InferType"}, Effect::changes);
  p.add("SimplifyExpr", {"InferType"});
  p.run({"FoldConstant", "EliminateCommonSubexpr", "SimplifyExpr"});
  // FoldConstant keeps the types; EliminateCommonSubexpr does not say so.
  EXPECT_EQ(*p.ran, (Names{"InferType", "FoldConstant", "EliminateCommonSubexpr", "InferType", "SimplifyExpr"}));
}

TEST(Requirements, ThePlanDecidesNotTheRunAPassThatDoesNotPreserveItCountsAsAChange) {
  // No copy of the IR, no comparison: a pass that does not declare that it
  // preserves a requirement breaks it, whether or not it changed this IR.
  Passes p;
  p.add("InferType");
  p.add("Quiet", {}, Effect::changes);
  p.add("FoldConstant", {"InferType"});
  p.run({"InferType", "Quiet", "FoldConstant"});
  EXPECT_EQ(*p.ran, (Names{"InferType", "Quiet", "InferType", "FoldConstant"}));
}

TEST(Requirements, ConflictingRequirementsAreAnErrorNamingThePasses) {
  Passes p;
  p.add("Base", {}, Effect::changes);
  p.add("Left", {"Base"}, Effect::changes);
  p.add("Top", {"Left", "Base"});
  try {
    p.run({"Top"});
    FAIL() << "expected an error";
  } catch (const PipelineError& error) {
    EXPECT_STREQ(error.what(),
                 "pass 'Top' requires 'Left', but its other requirements run 'Base', which does not preserve it: no "
                 "order satisfies them all");
  }
  EXPECT_TRUE(p.ran->empty());
}

TEST(Requirements, Transitive) {
  Passes p;
  p.add("Parse");
  p.add("InferType", {"Parse"});
  p.add("FoldConstant", {"InferType"});
  p.run({"FoldConstant"});
  EXPECT_EQ(*p.ran, (Names{"Parse", "InferType", "FoldConstant"}));
}

TEST(Requirements, DiamondRunsTheSharedRequirementOnce) {
  Passes p;
  p.add("Base");
  p.add("Left", {"Base"});
  p.add("Right", {"Base"});
  p.add("Top", {"Left", "Right"});
  p.run({"Top"});
  EXPECT_EQ(*p.ran, (Names{"Base", "Left", "Right", "Top"}));
}

TEST(Requirements, RequiredPassRunsWhateverItsOptLevel) {
  Passes p;
  p.registry.add(PassInfo{.name = "Expensive", .opt_level = 4}, {}, [&](const auto&) {
    return logged(p.ran, PassInfo{.name = "Expensive", .opt_level = 4});
  });
  p.add("User", {"Expensive"});
  p.run({"User"}, PassContext{.opt_level = 1});
  EXPECT_EQ(*p.ran, (Names{"Expensive", "User"}));
}

TEST(Requirements, MissingPassIsAnErrorNamingTheChain) {
  Passes p;
  p.add("InferType", {"Parse"});
  p.add("FoldConstant", {"InferType"});
  try {
    p.run({"FoldConstant"});
    FAIL() << "expected an error";
  } catch (const PipelineError& error) {
    EXPECT_STREQ(error.what(),
                 "pass 'InferType' requires 'Parse', which is not registered (chain: FoldConstant -> InferType -> Parse)");
  }
  EXPECT_TRUE(p.ran->empty());
}

TEST(Requirements, MissingPassSuggestsACloseName) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferTypes"});
  try {
    p.run({"FoldConstant"});
    FAIL() << "expected an error";
  } catch (const PipelineError& error) {
    EXPECT_STREQ(error.what(),
                 "pass 'FoldConstant' requires 'InferTypes', which is not registered (did you mean 'InferType'?) "
                 "(chain: FoldConstant -> InferTypes)");
  }
}

TEST(Requirements, CycleIsAnErrorNamingTheCycle) {
  Passes p;
  p.add("A", {"B"});
  p.add("B", {"C"});
  p.add("C", {"A"});
  try {
    p.run({"A"});
    FAIL() << "expected an error";
  } catch (const PipelineError& error) {
    EXPECT_STREQ(error.what(), "required passes form a cycle: A -> B -> C -> A");
  }
  EXPECT_TRUE(p.ran->empty());
}

TEST(Requirements, DisabledRequiredPassIsAnErrorNamingBoth) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"});
  try {
    p.run({"FoldConstant"}, PassContext{.disabled = {"InferType"}});
    FAIL() << "expected an error";
  } catch (const PipelineError& error) {
    EXPECT_STREQ(error.what(), "pass 'FoldConstant' requires 'InferType', which the pass context disables");
  }
  EXPECT_TRUE(p.ran->empty());
}

TEST(Requirements, DisabledUserDoesNotPullItsRequirements) {
  Passes p;
  p.add("InferType");
  p.add("FoldConstant", {"InferType"});
  p.run({"FoldConstant"}, PassContext{.disabled = {"FoldConstant"}});
  EXPECT_TRUE(p.ran->empty());
}

TEST(Requirements, ProcessWideRegistryServesPipelinesBuiltWithoutOne) {
  auto ran = std::make_shared<Names>();
  auto& global = Registry<Program>::global();
  const std::vector<std::string_view> needs{"GlobalInferType"};
  global.add(PassInfo{.name = "GlobalInferType"}, {},
             [ran](const auto&) { return logged(ran, PassInfo{.name = "GlobalInferType"}); });
  const Pass<Program> user = logged(ran, PassInfo{.name = "GlobalUser", .required = needs});
  PassContext ctx;
  passline::sequential<Program>({user})(Program{}, ctx);
  EXPECT_EQ(*ran, (Names{"GlobalInferType", "GlobalUser"}));
}

// TVM's Sequential runs each pass's required passes before it, every time, and
// only one level deep (tvm/src/ir/transform.cc, SequentialNode::operator()).
// The same pipeline, counted both ways.
Names tvm_order(const std::vector<std::pair<std::string, Names>>& pipeline) {
  Names order;
  for (const auto& [name, required] : pipeline) {
    for (const std::string& r : required) order.push_back(r);  // no lookup of r's own requirements
    order.push_back(name);
  }
  return order;
}

TEST(Requirements, ComparedWithTVM) {
  Passes p;
  p.add("Parse");
  p.add("InferType", {"Parse"});
  p.add("FoldConstant", {"InferType"});
  p.add("EliminateCommonSubexpr", {"InferType"});
  p.add("SimplifyExpr", {"InferType"});
  p.run({"FoldConstant", "EliminateCommonSubexpr", "SimplifyExpr"});
  const std::vector<std::pair<std::string, Names>> pipeline{
      {"FoldConstant", {"InferType"}}, {"EliminateCommonSubexpr", {"InferType"}}, {"SimplifyExpr", {"InferType"}}};
  const Names tvm = tvm_order(pipeline);
  auto count = [](const Names& order, std::string_view name) { return std::ranges::count(order, name); };
  // TVM: InferType three times, and Parse, which InferType requires, never.
  EXPECT_EQ(count(tvm, "InferType"), 3);
  EXPECT_EQ(count(tvm, "Parse"), 0);
  // passline: each once, in dependency order.
  EXPECT_EQ(count(*p.ran, "InferType"), 1);
  EXPECT_EQ(count(*p.ran, "Parse"), 1);
  EXPECT_EQ(*p.ran, (Names{"Parse", "InferType", "FoldConstant", "EliminateCommonSubexpr", "SimplifyExpr"}));
  // When no user preserves InferType, passline re-runs it before each user,
  // as TVM does, and never more often.
  Passes q;
  q.add("Parse");
  q.add("InferType", {"Parse"}, Effect::changes, {"Parse"});
  q.add("FoldConstant", {"InferType"}, Effect::changes);
  q.add("EliminateCommonSubexpr", {"InferType"}, Effect::changes);
  q.add("SimplifyExpr", {"InferType"}, Effect::changes);
  q.run({"FoldConstant", "EliminateCommonSubexpr", "SimplifyExpr"});
  EXPECT_EQ(count(*q.ran, "InferType"), count(tvm, "InferType"));
  EXPECT_EQ(*q.ran, (Names{"Parse", "InferType", "FoldConstant", "Parse", "InferType", "EliminateCommonSubexpr",
                           "Parse", "InferType", "SimplifyExpr"}));
  // And where TVM would loop forever on a cycle, passline stops with an error
  // (Requirements.CycleIsAnErrorNamingTheCycle).
}

}  // namespace

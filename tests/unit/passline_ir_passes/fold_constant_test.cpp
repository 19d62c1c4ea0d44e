// FoldConstant: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

/// Runs FoldConstant (and so InferType, which it requires) over `text`.
std::string fold(const std::string& text, passline::PassContext& ctx) {
  const auto pipeline = passline::sequential<ir::Module>({ir::FoldConstant{}});
  return ir::print(pipeline(ir::parse(text, "test.ir"), ctx));
}

std::string fold(const std::string& text) {
  passline::PassContext ctx;
  return fold(text, ctx);
}

TEST(FoldConstant, FoldsThroughLets) {
  EXPECT_EQ(fold("def @f(%x: i64) {\n  let %a = mul(6, 7);\n  let %b = sub(%a, 2);\n  add(%x, %b)\n}"),
            "def @f(%x: i64) -> i64 {\n  add(%x, 40)\n}\n");
}

TEST(FoldConstant, KeepsTheBranchTaken) {
  EXPECT_EQ(fold("def @f(%x: i64) {\n  if lt(1, 2) {\n    add(%x, 1)\n  } else {\n    %x\n  }\n}"),
            "def @f(%x: i64) -> i64 {\n  add(%x, 1)\n}\n");
}

TEST(FoldConstant, IntegersWrapFloatsFollowIEEE) {
  EXPECT_EQ(fold("def @f() {\n  (add(9223372036854775807, 1), div(1.0, 0.0), neg(0.0), mod(-7, 2), div(-7, 2))\n}"),
            "def @f() -> (i64, f64, f64, i64, i64) {\n  (-9223372036854775808, inf, -0.0, -1, -3)\n}\n");
}

TEST(FoldConstant, LogicComparisonsSelectAndProjections) {
  EXPECT_EQ(fold("def @f() {\n  (and(true, false), or(true, false), not(true), eq(1.5, 1.5), ge(2, 3), select(false, 1, 2), (4, 5).1)\n}"),
            "def @f() -> (bool, bool, bool, bool, bool, i64, i64) {\n  (false, true, false, true, false, 2, 5)\n}\n");
}

TEST(FoldConstant, LeavesTrapsToTheRunWithAWarning) {
  passline::PassContext ctx;
  EXPECT_EQ(fold("def @f(%x: i64) {\n  (div(%x, 0), mod(-9223372036854775808, -1))\n}", ctx),
            "def @f(%x: i64) -> (i64, i64) {\n  (div(%x, 0), mod(-9223372036854775808, -1))\n}\n");
  const auto diagnostics = ctx.diagnostics->entries();
  ASSERT_EQ(diagnostics.size(), 2u);
  EXPECT_EQ(diagnostics[0].severity, passline::Severity::warning);
  EXPECT_EQ(diagnostics[0].location, "test.ir:2:4");
  EXPECT_EQ(diagnostics[0].message, "'div' by zero: left to trap at run time");
  EXPECT_EQ(diagnostics[1].message, "'mod' of the smallest i64 by -1 overflows: left to trap at run time");
}

TEST(FoldConstant, ChangesNothingWhereNothingIsConstant) {
  passline::PassContext ctx;
  const ir::Module typed = passline::Pass<ir::Module>(ir::InferType{})(ir::parse("def @f(%x: i64) { add(%x, %x) }"));
  const ir::Module folded = passline::Pass<ir::Module>(ir::FoldConstant{})(typed, ctx);
  EXPECT_TRUE(ir::identical(typed, folded));  // the body is shared, not rebuilt
}

TEST(FoldConstant, SkipsFunctionsMarkedNoopt) {
  EXPECT_EQ(fold("#[noopt]\ndef @f() {\n  add(1, 2)\n}"), "#[noopt]\ndef @f() -> i64 {\n  add(1, 2)\n}\n");
}

}  // namespace

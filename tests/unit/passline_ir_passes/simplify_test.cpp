// SimplifyExpr: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string simplify(const std::string& text) {
  const auto pipeline = passline::sequential<ir::Module>({ir::SimplifyExpr{}});
  return ir::print(pipeline(ir::parse(text, "test.ir")));
}

TEST(SimplifyExpr, IntegerIdentities) {
  EXPECT_EQ(simplify("def @f(%x: i64) {\n  (add(%x, 0), add(0, %x), sub(%x, 0), mul(%x, 1), mul(1, %x), div(%x, 1), "
                     "mul(%x, 0), sub(%x, %x), mod(%x, 1), neg(neg(%x)))\n}"),
            "def @f(%x: i64) -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) {\n"
            "  (%x, %x, %x, %x, %x, %x, 0, 0, 0, %x)\n}\n");
}

TEST(SimplifyExpr, BooleanIdentities) {
  EXPECT_EQ(simplify("def @f(%b: bool, %x: i64) {\n  (and(%b, true), or(false, %b), and(%b, false), or(%b, true), "
                     "not(not(%b)), and(%b, %b), eq(%x, %x), lt(%x, %x), select(%b, %x, %x))\n}"),
            "def @f(%b: bool, %x: i64) -> (bool, bool, bool, bool, bool, bool, bool, bool, i64) {\n"
            "  (%b, %b, false, true, %b, %b, true, false, %x)\n}\n");
}

TEST(SimplifyExpr, OnlyFloatIdentitiesThatKeepEveryBit) {
  EXPECT_EQ(simplify("def @f(%y: f64) {\n  (mul(%y, 1.0), div(%y, 1.0), sub(%y, 0.0), add(%y, -0.0), neg(neg(%y)))\n}"),
            "def @f(%y: f64) -> (f64, f64, f64, f64, f64) {\n  (%y, %y, %y, %y, %y)\n}\n");
  // -0.0 + 0.0 is +0.0, NaN * 0.0 is NaN, NaN == NaN is false: none of these is an identity.
  const std::string kept = "def @f(%y: f64) -> (f64, f64, f64, bool) {\n"
                           "  (add(%y, 0.0), mul(%y, 0.0), sub(%y, %y), eq(%y, %y))\n}\n";
  EXPECT_EQ(simplify(kept), kept);
}

TEST(SimplifyExpr, NeverDropsWhatMayTrap) {
  const std::string kept = "def @f(%x: i64) -> (i64, i64, i64) {\n  (mul(div(1, %x), 0), sub(@f(%x).0, @f(%x).0), mod(div(%x, 0), 1))\n}\n";
  EXPECT_EQ(simplify("def @f(%x: i64) -> (i64, i64, i64) {\n  (mul(div(1, %x), 0), sub(@f(%x).0, @f(%x).0), mod(div(%x, 0), 1))\n}"),
            kept);
}

TEST(SimplifyExpr, ChangesNothingWithoutAnIdentity) {
  const ir::Module typed = passline::Pass<ir::Module>(ir::InferType{})(ir::parse("def @f(%x: i64) { add(%x, 2) }"));
  EXPECT_TRUE(ir::identical(typed, passline::Pass<ir::Module>(ir::SimplifyExpr{})(typed)));
}

}  // namespace

// LambdaLift: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string lift(const std::string& text) {
  const auto pipeline = passline::sequential<ir::Module>({ir::LambdaLift{}});
  return ir::print(pipeline(ir::parse(text, "test.ir")));
}

TEST(LambdaLift, AClosedClosureBecomesAGlobal) {
  EXPECT_EQ(lift("def @f(%x: i64) {\n  let %g = fn(%y: i64) { mul(%y, 2) };\n  %g(%x)\n}"),
            "def @f(%x: i64) -> i64 {\n  let %g: fn(i64) -> i64 = @f_lifted0;\n  %g(%x)\n}\n\n"
            "def @f_lifted0(%y: i64) -> i64 {\n  mul(%y, 2)\n}\n");
}

TEST(LambdaLift, FreeVariablesBecomeParametersOfAGlobalThatReturnsTheClosure) {
  EXPECT_EQ(lift("def @f(%x: i64, %z: f64) {\n  let %g = fn(%y: i64) { (add(%x, %y), %z) };\n  %g(1)\n}"),
            "def @f(%x: i64, %z: f64) -> (i64, f64) {\n  let %g: fn(i64) -> (i64, f64) = @f_lifted0(%x, %z);\n  %g(1)\n}\n\n"
            "def @f_lifted0(%x: i64, %z: f64) -> fn(i64) -> (i64, f64) {\n  fn(%y: i64) -> (i64, f64) {\n    (add(%x, %y), %z)\n  }\n}\n");
}

TEST(LambdaLift, InnerClosuresFirstAndNamesDoNotClash) {
  EXPECT_EQ(lift("def @f_lifted0() {\n  0\n}\n\ndef @f(%x: i64) {\n  fn(%y: i64) { fn(%w: i64) { add(%w, %y) } }(%x)(2)\n}"),
            "def @f_lifted0() -> i64 {\n  0\n}\n\ndef @f(%x: i64) -> i64 {\n  @f_lifted2(%x)(2)\n}\n\n"
            "def @f_lifted1(%y: i64) -> fn(i64) -> i64 {\n  fn(%w: i64) -> i64 {\n    add(%w, %y)\n  }\n}\n\n"
            "def @f_lifted2(%y: i64) -> fn(i64) -> i64 {\n  @f_lifted1(%y)\n}\n");
}

TEST(LambdaLift, ChangesNothingWithoutClosures) {
  const ir::Module typed = passline::Pass<ir::Module>(ir::InferType{})(ir::parse("def @f(%x: i64) { add(%x, 1) }"));
  EXPECT_TRUE(ir::identical(typed, passline::Pass<ir::Module>(ir::LambdaLift{})(typed)));
}

}  // namespace

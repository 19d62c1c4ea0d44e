// ToANormalForm: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string anf(const std::string& text) {
  return ir::print(passline::Pass<ir::Module>(ir::ToANormalForm{})(ir::parse(text, "test.ir")));
}

TEST(ToANormalForm, NamesOperandsInEvaluationOrder) {
  EXPECT_EQ(anf("def @f(%x: i64) -> i64 {\n  add(mul(%x, 2), @g(neg(%x)))\n}"),
            "def @f(%x: i64) -> i64 {\n  let %t = mul(%x, 2);\n  let %t_1 = neg(%x);\n  let %t_2 = @g(%t_1);\n  add(%t, %t_2)\n}\n");
}

TEST(ToANormalForm, FlattensLetsInValuesAndOperands) {
  EXPECT_EQ(anf("def @f(%x: i64) -> i64 {\n  let %a = (let %b = add(%x, 1); mul(%b, 2));\n  sub(%a, (let %c = 3; %c))\n}"),
            "def @f(%x: i64) -> i64 {\n  let %b = add(%x, 1);\n  let %a = mul(%b, 2);\n  let %c = 3;\n  sub(%a, %c)\n}\n");
}

TEST(ToANormalForm, BranchesAndClosuresAreScopesOfTheirOwn) {
  EXPECT_EQ(anf("def @f(%c: bool, %x: i64) -> i64 {\n  if not(%c) { add(neg(%x), 1) } else { fn(%y: i64) { mul(neg(%y), 2) }(%x) }\n}"),
            "def @f(%c: bool, %x: i64) -> i64 {\n  let %t = not(%c);\n  if %t {\n    let %t_1 = neg(%x);\n    add(%t_1, 1)\n"
            "  } else {\n    let %t_2 = fn(%y: i64) {\n      let %t_3 = neg(%y);\n      mul(%t_3, 2)\n    };\n    %t_2(%x)\n  }\n}\n");
}

TEST(ToANormalForm, KeepsAFunctionAlreadyInNormalForm) {
  const ir::Module module = ir::parse("def @f(%x: i64) { let %a = add(%x, 1); mul(%a, 2) }");
  EXPECT_TRUE(ir::identical(module, passline::Pass<ir::Module>(ir::ToANormalForm{})(module)));
}

}  // namespace

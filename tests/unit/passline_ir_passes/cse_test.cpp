// EliminateCommonSubexpr: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string cse(const std::string& text) {
  const auto pipeline = passline::sequential<ir::Module>({ir::EliminateCommonSubexpr{}});
  return ir::print(pipeline(ir::parse(text, "test.ir")));
}

TEST(EliminateCommonSubexpr, ReusesAnEqualLetInScope) {
  EXPECT_EQ(cse("def @f(%x: i64, %y: i64) {\n  let %a = add(%x, %y);\n  let %b = add(%x, %y);\n  mul(%a, %b)\n}"),
            "def @f(%x: i64, %y: i64) -> i64 {\n  let %a: i64 = add(%x, %y);\n  mul(%a, %a)\n}\n");
}

TEST(EliminateCommonSubexpr, ReplacesNestedExpressionsByTheVariable) {
  EXPECT_EQ(cse("def @f(%x: i64) {\n  let %a = mul(add(%x, 1), 2);\n  sub(mul(add(%x, 1), 2), %a)\n}"),
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = mul(add(%x, 1), 2);\n  sub(%a, %a)\n}\n");
}

TEST(EliminateCommonSubexpr, TypesTellEqualConstantsApart) {
  // 1 and 1.0 are different values; so are the two adds.
  EXPECT_EQ(cse("def @f(%x: i64, %y: f64) {\n  let %a = add(%x, 1);\n  let %b = add(%y, 1.0);\n  (%a, %b)\n}"),
            "def @f(%x: i64, %y: f64) -> (i64, f64) {\n  let %a: i64 = add(%x, 1);\n  let %b: f64 = add(%y, 1.0);\n  (%a, %b)\n}\n");
}

TEST(EliminateCommonSubexpr, EqualLiteralsMakeEqualExpressionsAndOthersDoNot) {
  // Each literal is its own node: they are equal by what they are.
  EXPECT_EQ(cse("def @f(%x: i64, %y: f64) {\n  let %a = add(%x, 7840);\n  let %b = mul(%y, 1.5);\n  let %c = add(2, 3);\n"
                "  (add(%x, 7840), mul(%y, 1.5), add(2, 3), add(%x, 7841), mul(%y, -1.5), add(3, 2))\n}"),
            "def @f(%x: i64, %y: f64) -> (i64, f64, i64, i64, f64, i64) {\n  let %a: i64 = add(%x, 7840);\n  let %b: f64 = mul(%y, 1.5);\n"
            "  let %c: i64 = add(2, 3);\n  (%a, %b, %c, add(%x, 7841), mul(%y, -1.5), add(3, 2))\n}\n");
}

TEST(EliminateCommonSubexpr, ALiteralIsNeverReplacedByAVariable) {
  // A literal is not computed: a variable holding it saves nothing.
  EXPECT_EQ(cse("def @f(%x: i64) {\n  let %a = 5;\n  let %b = 5;\n  add(%a, add(%b, add(%x, 5)))\n}"),
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = 5;\n  let %b: i64 = 5;\n  add(%a, add(%b, add(%x, 5)))\n}\n");
}

TEST(EliminateCommonSubexpr, DoesNotReachOutOfABranch) {
  EXPECT_EQ(cse("def @f(%c: bool, %x: i64) {\n  let %r = if %c {\n    let %a = add(%x, 1);\n    %a\n  } else {\n    0\n  };\n"
                "  let %b = add(%x, 1);\n  add(%r, %b)\n}"),
            "def @f(%c: bool, %x: i64) -> i64 {\n  let %r: i64 = if %c {\n    let %a: i64 = add(%x, 1);\n    %a\n  } else {\n    0\n  };\n"
            "  let %b: i64 = add(%x, 1);\n  add(%r, %b)\n}\n");
}

TEST(EliminateCommonSubexpr, AliasesAreReplaced) {
  EXPECT_EQ(cse("def @f(%x: i64) {\n  let %a = %x;\n  add(%a, %x)\n}"), "def @f(%x: i64) -> i64 {\n  add(%x, %x)\n}\n");
}

TEST(EliminateCommonSubexpr, ChangesNothingWithoutRepeats) {
  const ir::Module typed = passline::Pass<ir::Module>(ir::InferType{})(ir::parse("def @f(%x: i64) { (add(%x, 1), add(%x, 1)) }"));
  // Equal operands outside lets have nothing to reuse: the body stays shared.
  EXPECT_TRUE(ir::identical(typed, passline::Pass<ir::Module>(ir::EliminateCommonSubexpr{})(typed)));
}

// Values are kept with their latest operand, a few to each: fifteen values
// of %x and %y (more than are kept with %y itself) are each found again.
TEST(EliminateCommonSubexpr, FindsEveryValueOfOperandsThatManyValuesShare) {
  std::string lets, again, firsts;
  int i = 0;
  for (const char* operands : {"%x, %y", "%y, %x", "%y, %y"}) {
    for (const char* op : {"add", "sub", "mul", "div", "mod"}) {
      lets += fmt::format("  let %a{}: i64 = {}({});\n", i, op, operands);
      again += fmt::format("  let %b{}: i64 = {}({});\n", i, op, operands);
      firsts += fmt::format("{}%a{}", i ? ", " : "", i);
      ++i;
    }
  }
  std::string seconds = firsts;
  for (std::size_t at = seconds.find("%a"); at != std::string::npos; at = seconds.find("%a", at)) seconds[at + 1] = 'b';
  const std::string head = "def @f(%x: i64, %y: i64) -> (" + fmt::format("{}", fmt::join(std::vector<std::string>(15, "i64"), ", ")) + ", " +
                           fmt::format("{}", fmt::join(std::vector<std::string>(15, "i64"), ", ")) + ") {\n";
  EXPECT_EQ(cse(head + lets + again + "  (" + firsts + ", " + seconds + ")\n}"),
            head + lets + "  (" + firsts + ", " + firsts + ")\n}\n");
}

TEST(EliminateCommonSubexpr, RequiresInferType) {
  EXPECT_EQ(ir::EliminateCommonSubexpr::info.required.size(), 1u);
  EXPECT_EQ(ir::EliminateCommonSubexpr::info.required[0], "InferType");
}

}  // namespace

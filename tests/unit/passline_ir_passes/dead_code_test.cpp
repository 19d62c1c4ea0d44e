// DeadCodeElimination: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string dce(const std::string& text) {
  const auto pipeline = passline::sequential<ir::Module>({ir::InferType{}, ir::DeadCodeElimination{}});
  return ir::print(pipeline(ir::parse(text, "test.ir")));
}

TEST(DeadCodeElimination, DropsUnusedPureLetsTransitively) {
  EXPECT_EQ(dce("def @f(%x: i64) {\n  let %a = add(%x, 1);\n  let %b = mul(%a, 2);\n  let %c = sub(%x, 3);\n  %c\n}"),
            "def @f(%x: i64) -> i64 {\n  let %c: i64 = sub(%x, 3);\n  %c\n}\n");
}

TEST(DeadCodeElimination, KeepsLetsThatMayTrap) {
  // div by a variable may trap; div by 2 cannot; the call may not return.
  EXPECT_EQ(dce("def @f(%x: i64) -> i64 {\n  let %a = div(1, %x);\n  let %b = div(%x, 2);\n  let %c = @f(%x);\n  %x\n}"),
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = div(1, %x);\n  let %c: i64 = @f(%x);\n  %x\n}\n");
}

TEST(DeadCodeElimination, DropsCallsOfPureNonRecursiveGlobals) {
  EXPECT_EQ(dce("def @g(%y: i64) {\n  mul(%y, %y)\n}\n\ndef @f(%x: i64) {\n  let %a = @g(%x);\n  %x\n}"),
            "def @g(%y: i64) -> i64 {\n  mul(%y, %y)\n}\n\ndef @f(%x: i64) -> i64 {\n  %x\n}\n");
}

TEST(DeadCodeElimination, KeepsOnlyTheBranchTaken) {
  EXPECT_EQ(dce("def @f(%x: i64) {\n  let %u = add(%x, 1);\n  if false {\n    %u\n  } else {\n    %x\n  }\n}"),
            "def @f(%x: i64) -> i64 {\n  %x\n}\n");
}

TEST(DeadCodeElimination, DropsGlobalsNoExportReaches) {
  EXPECT_EQ(dce("#[export]\ndef @main(%x: i64) {\n  @used(%x)\n}\n\ndef @used(%x: i64) {\n  %x\n}\n\n"
                "def @unused(%x: i64) {\n  %x\n}\n\n#[noopt]\ndef @kept(%x: i64) {\n  %x\n}"),
            "#[export]\ndef @main(%x: i64) -> i64 {\n  @used(%x)\n}\n\ndef @used(%x: i64) -> i64 {\n  %x\n}\n\n"
            "#[noopt]\ndef @kept(%x: i64) -> i64 {\n  %x\n}\n");
}

TEST(DeadCodeElimination, AModuleThatExportsNothingKeepsItsGlobals) {
  EXPECT_EQ(dce("def @a() {\n  1\n}\n\ndef @b() {\n  2\n}"), "def @a() -> i64 {\n  1\n}\n\ndef @b() -> i64 {\n  2\n}\n");
}

TEST(DeadCodeElimination, ChangesNothingWhenNothingIsDead) {
  const ir::Module typed = passline::Pass<ir::Module>(ir::InferType{})(ir::parse("def @f(%x: i64) { let %a = add(%x, 1); %a }"));
  EXPECT_TRUE(ir::identical(typed, passline::Pass<ir::Module>(ir::DeadCodeElimination{})(typed)));
}

TEST(DeadCodeElimination, UsesInsideClosuresCount) {
  EXPECT_EQ(dce("def @f(%x: i64) {\n  let %a = add(%x, 1);\n  let %g = fn(%y: i64) { add(%y, %a) };\n  %g(2)\n}"),
            "def @f(%x: i64) -> i64 {\n  let %a: i64 = add(%x, 1);\n  let %g: fn(i64) -> i64 = fn(%y: i64) -> i64 {\n"
            "    add(%y, %a)\n  };\n  %g(2)\n}\n");
}

}  // namespace

// Inline: before/after pairs in the text format.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string inline_calls(const std::string& text, const std::string& pipeline = "InferType,Inline") {
  passline::PassContext ctx;
  ctx.opt_level = 3;
  return ir::print(passline::parse_pipeline(pipeline, ir::registry())(ir::parse(text, "test.ir"), ctx));
}

TEST(Inline, ArgumentsAreBoundOnceInOrderBeforeTheBody) {
  EXPECT_EQ(inline_calls("def @sq(%n: i64) {\n  mul(%n, %n)\n}\n\ndef @f(%x: i64) {\n  @sq(add(%x, 1))\n}"),
            "def @sq(%n: i64) -> i64 {\n  mul(%n, %n)\n}\n\ndef @f(%x: i64) -> i64 {\n  let %n: i64 = add(%x, 1);\n  mul(%n, %n)\n}\n");
}

TEST(Inline, CalleesFirstSoInlinedBodiesAreInlinedToo) {
  EXPECT_EQ(inline_calls("def @f(%x: i64) {\n  @g(%x)\n}\n\ndef @g(%y: i64) {\n  @h(%y)\n}\n\ndef @h(%z: i64) {\n  neg(%z)\n}",
                         "InferType,Inline,DeadCodeElimination"),
            "def @f(%x: i64) -> i64 {\n  let %y: i64 = %x;\n  let %z: i64 = %y;\n  neg(%z)\n}\n\n"
            "def @g(%y: i64) -> i64 {\n  let %z: i64 = %y;\n  neg(%z)\n}\n\ndef @h(%z: i64) -> i64 {\n  neg(%z)\n}\n");
}

TEST(Inline, NeverRecursiveFunctionsNorWhatCallsIntoThem) {
  const std::string text =
      "def @fact(%n: i64) -> i64 {\n  if le(%n, 1) {\n    1\n  } else {\n    mul(%n, @fact(sub(%n, 1)))\n  }\n}\n\n"
      "def @wrap(%n: i64) -> i64 {\n  @fact(%n)\n}\n\n"
      "def @main(%x: i64) -> i64 {\n  @wrap(%x)\n}\n";
  EXPECT_EQ(inline_calls(text), text);
}

TEST(Inline, MaxSizeBoundsTheCallee) {
  const std::string text = "def @g(%n: i64) -> i64 {\n  add(mul(%n, %n), 1)\n}\n\ndef @f(%x: i64) -> i64 {\n  @g(%x)\n}\n";
  EXPECT_EQ(inline_calls(text, "InferType,Inline{max-size=3}"), text);  // @g is 4 nodes: add, mul, %n, 1
  EXPECT_NE(inline_calls(text, "InferType,Inline{max-size=4}"), text);
}

TEST(Inline, LeavesNooptFunctionsAlone) {
  const std::string text = "#[noopt]\ndef @g(%n: i64) -> i64 {\n  %n\n}\n\n#[noopt]\ndef @f(%x: i64) -> i64 {\n  @g(%x)\n}\n\n"
                           "def @h(%x: i64) -> i64 {\n  @g(%x)\n}\n";
  EXPECT_EQ(inline_calls(text), text);
}

TEST(Inline, EachCopyGetsItsOwnVariables) {
  EXPECT_EQ(inline_calls("def @sq(%n: i64) {\n  mul(%n, %n)\n}\n\ndef @f(%x: i64) {\n  add(@sq(%x), @sq(2))\n}"),
            "def @sq(%n: i64) -> i64 {\n  mul(%n, %n)\n}\n\ndef @f(%x: i64) -> i64 {\n  add((\n    let %n: i64 = %x;\n"
            "    mul(%n, %n)\n  ), (\n    let %n_1: i64 = 2;\n    mul(%n_1, %n_1)\n  ))\n}\n");
}

}  // namespace

// The text format: parse, print, and the fixed point of the two.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>
import passline;
import passline.ir;
import passline.testing;

namespace {

namespace ir = passline::ir;

constexpr const char* sample = R"(// every kind of expression
#[export]
def @main(%x: i64, %y: f64) -> i64 {
  let %a: i64 = add(%x, 1);
  let %t = (%a, %y, true);
  let %f = fn(%z: i64) -> i64 {
    mul(%z, %a)
  };
  let %b = if lt(%a, 0) {
    neg(%a)
  } else {
    %f(%t.0)
  };
  select(not(false), @helper(%b), -9223372036854775808)
}

#[noopt]
def @helper(%n: i64) -> i64 {
  %n
}
)";

TEST(Text, ParsesEveryKindOfExpression) {
  const ir::Module m = ir::parse(sample, "sample.ir");
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].name, "main");
  EXPECT_TRUE(m.functions[0].exported);
  EXPECT_FALSE(m.functions[0].skip_optimization);
  EXPECT_TRUE(m.functions[1].skip_optimization);
  const ir::Body& body = *m.functions[0].body;
  EXPECT_EQ(body.params().size(), 2u);
  EXPECT_EQ(body.result(), ir::types::i64);
  EXPECT_EQ(body[body.root()].kind, ir::Kind::let);
  EXPECT_EQ(body.name(body.params()[1]), "y");
  EXPECT_EQ(body[body.params()[1]].type, ir::types::f64);
}

TEST(Text, PrintsWhatItParsed) {
  const std::string printed = ir::print(ir::parse(sample));
  // The comment goes; everything else is printed as written.
  EXPECT_EQ(printed, std::string(sample).substr(std::string(sample).find('\n') + 1));
}

// Lets of an operator on vars and integers, or of a var or an integer, the
// commonest lines, are written in one go: every arity, typed or not,
// negative and extreme integers, at every depth.
TEST(Text, OperatorLinesPrintAsWritten) {
  const std::string text = R"(def @f(%x: i64, %c: bool) -> i64 {
  let %a: i64 = add(%x, 1);
  let %b = neg(%a);
  let %c2: i64 = select(%c, -9223372036854775808, 9223372036854775807);
  let %d = mul(-3, 0);
  let %z = -5;
  let %w: i64 = %z;
  let %g = fn(%y: i64) -> i64 {
    let %e = sub(%y, %a);
    if %c {
      let %h: bool = lt(%e, 10);
      %e
    } else {
      let %k = div(%e, %y);
      %k
    }
  };
  let %n = not(%c);
  add(%b, %w)
}
)";
  EXPECT_EQ(ir::print(ir::parse(text)), text);
}

TEST(Text, PrintingIntoAStringReplacesWhatItHeld) {
  const ir::Module m = ir::parse(sample);
  std::string out = "stale text that is longer than nothing";
  ir::print(m, out);
  EXPECT_EQ(out, ir::print(m));
  std::string through_view = "stale";
  passline::IRView(m).print(through_view);
  EXPECT_EQ(through_view, out);
  static_assert(requires(std::string& into) { passline::IRTraits<ir::Module>::print_into(m, into); });
}

TEST(Text, PrintParseIsAFixedPointAfterOneRound) {
  const char* text = R"(def @f(%x: i64) {
    let %x = add(%x, 1); let %x_1 = 2; let %x = mul(%x, %x_1);
    (%x, ((1.5, 2e3, inf, -inf, nan), (%x,)), ()).1.0.0
  })";
  const std::string once = ir::print(ir::parse(text));
  EXPECT_EQ(ir::print(ir::parse(once)), once);
  EXPECT_NE(once.find("let %x_2 = mul(%x_1, %x_1_1)"), std::string::npos) << once;
  EXPECT_NE(once.find("1.5, 2000.0, inf, -inf, nan"), std::string::npos) << once;
}

TEST(Text, ShadowedNamesStayApartWhenPrinted) {
  const ir::Module m = ir::parse("def @f(%x: i64) { let %x = add(%x, 1); %x }");
  const ir::Module again = ir::parse(ir::print(m));
  EXPECT_TRUE(ir::structurally_equal(m, again));
}

TEST(Text, LongLetChainsNeedNoStack) {
  std::string text = "def @long(%v0: i64) -> i64 {\n";
  constexpr int lets = 200000;
  for (int i = 1; i <= lets; ++i) text += "  let %v" + std::to_string(i) + " = add(%v" + std::to_string(i - 1) + ", 1);\n";
  text += "  %v" + std::to_string(lets) + "\n}\n";
  const ir::Module m = ir::parse(text);
  EXPECT_EQ(ir::print(m), text);
  EXPECT_NO_THROW(ir::verify(m));
}

TEST(Text, ErrorsPointAtTheSpotWithACaret) {
  try {
    (void)ir::parse("def @f(%x: i64) {\n  add(%x, %y)\n}\n", "bad.ir");
    FAIL() << "parsed";
  } catch (const ir::IRError& e) {
    EXPECT_EQ(std::string(e.what()), "bad.ir:2:11: error: unknown variable '%y'\n  add(%x, %y)\n          ^");
  }
}

/// A file in a temporary directory of the test's own holding `text`.
std::string write_file(const passline::testing::TemporaryDirectory& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// A chain of `lets` lets, several megabytes of text: the parser hands
/// pages of a mapped file back as it goes.
std::string long_chain(int lets, const std::string& last) {
  std::string text = "def @long(%v0: i64) -> i64 {\n";
  for (int i = 1; i <= lets; ++i) text += "  let %v" + std::to_string(i) + " = add(%v" + std::to_string(i - 1) + ", 1);\n";
  return text + "  " + last + "\n}\n";
}

TEST(Text, ALetThatACallOrProjectionAppliesToHasOneSetOfParentheses) {
  const std::string text =
      "def @f(%x: i64) -> i64 {\n"
      "  (\n"
      "    let %g = fn(%y: i64) -> i64 {\n"
      "      %y\n"
      "    };\n"
      "    %g\n"
      "  )(%x)\n"
      "}\n"
      "\n"
      "def @t(%x: i64) -> i64 {\n"
      "  (\n"
      "    let %p = (%x, 1);\n"
      "    %p\n"
      "  ).0\n"
      "}\n";
  EXPECT_EQ(ir::print(ir::parse(text)), text);
}

TEST(Text, AFileParsesAsItsText) {
  const std::string text = long_chain(150000, "%v150000");
  const passline::testing::TemporaryDirectory dir;
  const std::string path = write_file(dir, "text_file.ir", text);
  const ir::Module from_file = ir::parse_file(path, "long.ir");
  EXPECT_TRUE(ir::structurally_equal(from_file, ir::parse(text)));
  EXPECT_EQ(ir::print(from_file), text);
  std::filesystem::remove(path);
}

TEST(Text, AnErrorInALargeFileShowsItsLine) {
  // By the error, the text before it has left memory; the snippet reads it back.
  const passline::testing::TemporaryDirectory dir;
  const std::string path = write_file(dir, "text_error.ir", long_chain(150000, "%v1 + %nope"));
  try {
    (void)ir::parse_file(path, "long.ir");
    FAIL() << "parsed";
  } catch (const ir::IRError& e) {
    EXPECT_EQ(std::string(e.what()), "long.ir:150002:7: error: unexpected character '+'\n  %v1 + %nope\n      ^")
        << e.what();
  }
  std::filesystem::remove(path);
}

TEST(Text, AMissingFileIsASystemError) {
  try {
    (void)ir::parse_file("/nonexistent/x.ir", "x.ir");
    FAIL() << "parsed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open '/nonexistent/x.ir': No such file or directory");
  }
}

// A function of more names than the parser keeps its tables of names for
// (they go once its body is read, before its lets are built): the lets
// come out whole, and the function after it parses as it would alone, its
// names apart from those of the large one.
TEST(Text, AFunctionAfterOneOfManyNamesParsesAsItWouldAlone) {
  constexpr int lets = 70000;
  std::string large = "def @large(%v0: i64) -> i64 {\n";
  for (int i = 1; i <= lets; ++i) {
    large += "  let %v" + std::to_string(i) + " = add(%v" + std::to_string(i - 1) + ", %v" + std::to_string(i / 2) + ");\n";
  }
  large += "  %v" + std::to_string(lets) + "\n}\n";
  const std::string small = "def @small(%v2: i64) -> i64 {\n  let %v1 = mul(%v2, %v2);\n  sub(%v1, %v2)\n}\n";
  const ir::Module m = ir::parse(large + "\n" + small);
  EXPECT_EQ(ir::print(m), large + "\n" + small);
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_TRUE(ir::structurally_equal(*m.functions[1].body, *ir::parse(small).functions[0].body));
  try {
    (void)ir::parse(large + "\ndef @g(%x: i64) -> i64 {\n  %v3\n}\n", "two.ir");
    FAIL() << "parsed";
  } catch (const ir::IRError& e) {
    EXPECT_EQ(std::string(e.what()), "two.ir:" + std::to_string(lets + 6) + ":3: error: unknown variable '%v3'\n  %v3\n  ^");
  }
}

TEST(Text, InnerBindersHideOuterOnesOnlyInTheirScope) {
  const ir::Module m = ir::parse(
      "def @f(%x: i64) -> i64 { let %y = fn(%x: i64) -> i64 { mul(%x, 2) }; let %x = add(%x, 1); sub(%x, %y(%x)) }");
  const std::string printed = ir::print(m);
  EXPECT_NE(printed.find("mul(%x_1, 2)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("let %x_2 = add(%x, 1);\n  sub(%x_2, %y(%x_2))"), std::string::npos) << printed;
  EXPECT_TRUE(ir::structurally_equal(m, ir::parse(printed)));
}

/// `m` rebuilt with a name stored per var, as passes that add vars by name
/// store them: its bodies do not have distinct names.
ir::Module names_per_var(const ir::Module& m) {
  ir::Module out = m;
  for (ir::Function& fn : out.functions) {
    const ir::Body& body = *fn.body;
    ir::BodyBuilder b;
    std::vector<ir::ExprId> map(body.size(), ir::no_expr);
    std::vector<ir::ExprId> params;
    for (ir::ExprId p : body.params()) params.push_back(map[p] = b.var(body.name(p), body[p].type, body[p].loc));
    const ir::ExprId root = ir::copy_tree(b, body, body.root(), map);
    fn.body = b.finish(params, root, body.result());
  }
  return out;
}

// The parser stores each name once, so the printer tells names taken by
// their slots; it prints what it prints when it must compare names.
TEST(Text, NamesStoredOnceArePrintedAsNamesStoredPerVar) {
  for (const char* text : {
           sample,
           "def @f(%x: i64) { let %x = add(%x, 1); let %x_1 = 2; let %x = mul(%x, %x_1); (%x, %x_1) }",
           "def @f(%x: i64) -> i64 { let %y = fn(%x: i64) -> i64 { mul(%x, 2) }; let %x = add(%x, 1); %y(%x) }",
           "def @f(%c: bool) -> i64 { if %c { let %t = 1; %t } else { let %t = 2; let %t_1 = 3; add(%t, %t_1) } }",
           "def @f(%a: i64, %b: i64) { let %c = add(%a, %b); let %d = mul(%c, %c); sub(%d, %a) }",
       }) {
    const ir::Module parsed = ir::parse(text);
    const ir::Module rebuilt = names_per_var(parsed);
    for (std::size_t i = 0; i < parsed.functions.size(); ++i) {
      EXPECT_TRUE(parsed.functions[i].body->distinct_names()) << text;
      EXPECT_FALSE(rebuilt.functions[i].body->distinct_names()) << text;
    }
    const std::string printed = ir::print(parsed);
    EXPECT_EQ(printed, ir::print(rebuilt)) << text;
    EXPECT_EQ(ir::print(ir::parse(printed)), printed) << text;
    EXPECT_TRUE(ir::structurally_equal(parsed, ir::parse(printed))) << text;
  }
}

}  // namespace

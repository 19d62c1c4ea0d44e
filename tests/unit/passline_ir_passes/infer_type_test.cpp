// InferType: before/after pairs in the text format, and type errors with their places.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

std::string infer(const std::string& text, passline::PassContext& ctx) {
  return ir::print(passline::Pass<ir::Module>(ir::InferType{})(ir::parse(text, "test.ir"), ctx));
}

std::string infer(const std::string& text) {
  passline::PassContext ctx;
  return infer(text, ctx);
}

TEST(InferType, WritesTypesOnLetsAndResults) {
  EXPECT_EQ(infer("def @f(%x: i64, %y: f64) {\n"
                  "  let %a = add(%x, 1);\n"
                  "  let %t = (%a, lt(%y, 0.5));\n"
                  "  let %g = fn(%z: bool) { not(%z) };\n"
                  "  %g(%t.1)\n"
                  "}\n"),
            "def @f(%x: i64, %y: f64) -> bool {\n"
            "  let %a: i64 = add(%x, 1);\n"
            "  let %t: (i64, bool) = (%a, lt(%y, 0.5));\n"
            "  let %g: fn(bool) -> bool = fn(%z: bool) -> bool {\n"
            "    not(%z)\n"
            "  };\n"
            "  %g(%t.1)\n"
            "}\n");
}

TEST(InferType, CalleesBeforeCallers) {
  EXPECT_EQ(infer("def @main(%x: i64) { @twice(@twice(%x)) }\n"
                  "def @twice(%n: i64) { mul(%n, 2) }\n"),
            "def @main(%x: i64) -> i64 {\n  @twice(@twice(%x))\n}\n\n"
            "def @twice(%n: i64) -> i64 {\n  mul(%n, 2)\n}\n");
}

TEST(InferType, RecursionWithADeclaredResult) {
  const std::string text = "def @fact(%n: i64) -> i64 {\n  if le(%n, 1) {\n    1\n  } else {\n    mul(%n, @fact(sub(%n, 1)))\n  }\n}\n";
  EXPECT_EQ(infer(text), text);
}

TEST(InferType, LeavesTypedFunctionsShared) {
  const ir::Module typed = passline::Pass<ir::Module>(ir::InferType{})(ir::parse("def @f(%x: i64) { neg(%x) }"));
  const ir::Module again = passline::Pass<ir::Module>(ir::InferType{})(typed);
  EXPECT_TRUE(ir::identical(typed, again));
}

TEST(InferType, EveryLetOfAChainHasTheTypeOfItsLastBody) {
  const passline::Pass<ir::Module> infer_type(ir::InferType{});
  const std::string text =
      "def @f(%x: i64) {\n"
      "  let %a = (let %b = lt(%x, 1); let %c = not(%b); %c);\n"
      "  let %g = fn(%y: i64) { let %z = add(%y, 1); let %w = mul(%z, %z); %w };\n"
      "  let %t = (%a, %g(%x));\n"
      "  %t\n"
      "}\n";
  for (const bool shared : {false, true}) {
    ir::Module module = ir::parse(text, "test.ir");
    const ir::Module holder = shared ? module : ir::Module{};
    const ir::Module typed = infer_type(std::move(module));
    const ir::Body& body = *typed.functions[0].body;
    int lets = 0;
    for (ir::ExprId id = 0; id < body.size(); ++id) {
      if (body[id].kind != ir::Kind::let) continue;
      ++lets;
      ir::ExprId last = id;
      while (body[last].kind == ir::Kind::let) last = body[last].c;
      EXPECT_TRUE(body[id].type.known()) << "let " << id << (shared ? ", shared" : ", in place");
      EXPECT_EQ(body[id].type, body[last].type) << "let " << id << (shared ? ", shared" : ", in place");
    }
    EXPECT_EQ(lets, 7);
    EXPECT_EQ(ir::print(typed),
              "def @f(%x: i64) -> (bool, i64) {\n"
              "  let %a: bool = (\n"
              "    let %b: bool = lt(%x, 1);\n"
              "    let %c: bool = not(%b);\n"
              "    %c\n"
              "  );\n"
              "  let %g: fn(i64) -> i64 = fn(%y: i64) -> i64 {\n"
              "    let %z: i64 = add(%y, 1);\n"
              "    let %w: i64 = mul(%z, %z);\n"
              "    %w\n"
              "  };\n"
              "  let %t: (bool, i64) = (%a, %g(%x));\n"
              "  %t\n"
              "}\n");
  }
}

TEST(InferType, TypesABodyNothingElseHoldsInPlaceAndASharedOneOnACopy) {
  const std::string text = "def @f(%x: i64) {\n  let %y = add(%x, 1);\n  lt(%y, 2)\n}\n";
  const passline::Pass<ir::Module> infer_type(ir::InferType{});
  ir::Module module = ir::parse(text, "test.ir");
  const ir::Body* const original = module.functions[0].body.get();

  const ir::Module shared = module;  // the bodies have two holders
  const ir::Module typed_copy = infer_type(ir::Module(shared));
  EXPECT_NE(typed_copy.functions[0].body.get(), original);
  EXPECT_EQ(ir::print(shared), text) << "a body someone else holds is not written on";

  const ir::Module typed = infer_type(std::move(module));  // `shared` still holds the bodies
  EXPECT_NE(typed.functions[0].body.get(), original);

  ir::Module alone = ir::parse(text, "test.ir");
  const ir::Body* const alone_body = alone.functions[0].body.get();
  const ir::Module typed_alone = infer_type(std::move(alone));
  EXPECT_EQ(typed_alone.functions[0].body.get(), alone_body) << "typed in place";
  EXPECT_EQ(ir::print(typed_alone), ir::print(typed_copy));
  EXPECT_EQ(ir::print(typed_alone),
            "def @f(%x: i64) -> bool {\n  let %y: i64 = add(%x, 1);\n  lt(%y, 2)\n}\n");
}

TEST(InferType, ABodyTypedInPlaceKeepsItsFingerprintOnlyIfNoTypeChanged) {
  const passline::Pass<ir::Module> infer_type(ir::InferType{});
  ir::Module untyped = ir::parse("def @f(%x: i64) { add(%x, 1) }", "test.ir");
  const std::uint64_t before = untyped.functions[0].body->fingerprint();
  ir::Module typed = infer_type(std::move(untyped));
  EXPECT_FALSE(typed.functions[0].body->cached_fingerprint().has_value()) << "types changed: the old fingerprint is wrong";
  const std::uint64_t after = typed.functions[0].body->fingerprint();
  EXPECT_NE(after, before);

  const ir::Body* const body = typed.functions[0].body.get();
  const ir::Module again = infer_type(std::move(typed));
  EXPECT_EQ(again.functions[0].body.get(), body);
  EXPECT_EQ(again.functions[0].body->cached_fingerprint(), after) << "nothing changed: the fingerprint stays";
}

/// The diagnostics of InferType on `text` on `threads` threads, one line each.
std::string type_errors(const std::string& text, std::int64_t threads) {
  passline::PassContext ctx;
  ctx.config.set(passline::config::threads, threads);
  try {
    (void)infer(text, ctx);
  } catch (const passline::PassError& e) {
    std::string out = std::string(e.what()) + "\n";
    for (const auto& d : ctx.diagnostics->entries()) out += d.location + ": " + d.message + "\n";
    return out;
  }
  return "";
}

TEST(InferType, ErrorsAreTheSameAndInTheSameOrderOnAnyNumberOfThreads) {
  // Many functions that call each other: some with errors, callers of those,
  // and recursion without a declared result, met from either end.
  std::string text;
  for (int k = 0; k < 120; ++k) {
    std::string body = "add(%x, 1)";
    if (k % 7 == 3) body = "add(%x, true)";                                   // an error of its own
    if (k % 5 == 1 && k > 0) body = "@f" + std::to_string(k - 1) + "(%x)";    // calls the one before
    if (k % 11 == 4) body = "@f" + std::to_string(k + 1) + "(%x)";            // calls the one after
    if (k % 13 == 6) body = "@f" + std::to_string(k) + "(%x)";                // itself
    if (k % 17 == 9) body = "@f" + std::to_string((k * 31) % 120) + "(@f" + std::to_string(k / 2) + "(%x))";
    text += "def @f" + std::to_string(k) + "(%x: i64) {\n  " + body + "\n}\n";
  }
  const std::string one = type_errors(text, 1);
  ASSERT_NE(one, "");
  EXPECT_NE(one.find("is called recursively"), std::string::npos);
  EXPECT_NE(one.find("has a type error, so this call has no type"), std::string::npos);
  for (const std::int64_t threads : {2, 4}) {
    for (int round = 0; round < 10; ++round) EXPECT_EQ(type_errors(text, threads), one) << threads << " threads";
  }
}

TEST(InferType, ErrorsComeInTheOrderOfADepthFirstWalkOfTheCalls) {
  // @a calls @b, which is typed (and fails) first; @c calls itself; @d and @e
  // call each other: @e is typed first, while @d is still in progress.
  const std::string text =
      "def @a(%x: i64) {\n  @b(%x)\n}\n"
      "def @b(%x: i64) {\n  add(%x, true)\n}\n"
      "def @c(%x: i64) {\n  @c(%x)\n}\n"
      "def @d(%x: i64) {\n  @e(%x)\n}\n"
      "def @e(%x: i64) {\n  @d(%x)\n}\n";
  for (const std::int64_t threads : {1, 2}) {
    const std::string errors = type_errors(text, threads);
    EXPECT_EQ(errors.substr(errors.find('\n') + 1),
              "test.ir:5:3: 'add' needs operands of one type, not i64 and bool\n"
              "test.ir:2:3: '@b' has a type error, so this call has no type\n"
              "test.ir:8:3: '@c' is called recursively, so it must declare its result type ('-> i64')\n"
              "test.ir:14:3: '@d' is called recursively, so it must declare its result type ('-> i64')\n"
              "test.ir:11:3: '@e' has a type error, so this call has no type\n")
        << threads << " threads";
    EXPECT_NE(errors.find("5 type errors"), std::string::npos) << errors;
  }
}

struct Case {
  const char* text;
  const char* location;
  const char* message;
};

class TypeErrors : public testing::TestWithParam<Case> {};

TEST_P(TypeErrors, AreReportedWhereTheyAre) {
  passline::PassContext ctx;
  EXPECT_THROW((void)infer(GetParam().text, ctx), passline::PassError);
  const auto diagnostics = ctx.diagnostics->entries();
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].severity, passline::Severity::error);
  EXPECT_EQ(diagnostics[0].location, GetParam().location);
  EXPECT_EQ(diagnostics[0].message, GetParam().message);
  EXPECT_TRUE(diagnostics[0].snippet.ends_with("^"));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TypeErrors,
    testing::Values(
        Case{"def @f(%x: i64) {\n  add(%x, 1.0)\n}", "test.ir:2:3", "'add' needs operands of one type, not i64 and f64"},
        Case{"def @f(%x: i64) {\n  if %x { 1 } else { 2 }\n}", "test.ir:2:3", "the condition of 'if' is i64, not bool"},
        Case{"def @f(%c: bool) {\n  if %c { 1 } else { true }\n}", "test.ir:2:3", "the branches of 'if' differ: i64 and bool"},
        Case{"def @f(%x: i64) -> bool {\n  %x\n}", "test.ir:1:1", "'@f' is declared to return bool but returns i64"},
        Case{"def @f(%x: i64) {\n  let %y: f64 = %x;\n  %y\n}", "test.ir:2:3", "'%y' is declared f64 but its value is i64"},
        Case{"def @f(%t: (i64, i64)) {\n  %t.2\n}", "test.ir:2:3", "'.2' is out of range for (i64, i64)"},
        Case{"def @f(%x: i64) {\n  %x(1)\n}", "test.ir:2:3", "cannot call a value of type i64"},
        Case{"def @f(%x: i64) {\n  @g(true)\n}\ndef @g(%y: i64) { %y }", "test.ir:2:6",
             "argument 1 is bool, but the callee takes i64"},
        Case{"def @f(%n: i64) {\n  @f(%n)\n}", "test.ir:2:3",
             "'@f' is called recursively, so it must declare its result type ('-> i64')"},
        Case{"def @f(%x: f64) {\n  mod(%x, 2.0)\n}", "test.ir:2:3", "'mod' needs i64, not f64"},
        Case{"def @f(%x: i64) {\n  and(%x, %x)\n}", "test.ir:2:3", "'and' needs bool, not i64"}));

}  // namespace

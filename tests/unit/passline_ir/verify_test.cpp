// The verifier, on modules the parser cannot produce: built node by node.
#include <gtest/gtest.h>

#include <memory>
#include <cstdint>
#include <string>
#include <vector>
import passline.ir;

namespace {

namespace ir = passline::ir;

ir::Module one_function(std::shared_ptr<const ir::Body> body) {
  ir::Module m;
  m.functions.push_back({.name = "f", .body = std::move(body)});
  return m;
}

std::string error_of(const ir::Module& m) {
  try {
    ir::verify(m);
  } catch (const ir::IRError& e) {
    return e.message();
  }
  return "no error";
}

TEST(Verify, AcceptsWhatTheParserBuilds) {
  EXPECT_NO_THROW(ir::verify(ir::parse("def @f(%x: i64) { let %g = fn(%y: i64) { add(%x, %y) }; %g(@f(1)) }")));
}

TEST(Verify, VariableUsedOutsideItsScope) {
  ir::BodyBuilder b;
  const ir::ExprId x = b.var("x", ir::types::i64, 0);
  const ir::ExprId one = b.int_const(1, 0);
  const ir::ExprId let = b.let(x, one, x, {}, 0);
  const ir::ExprId both = b.tuple(std::vector<ir::ExprId>{let, x}, {}, 0);  // the second x is out of scope
  EXPECT_EQ(error_of(one_function(b.finish({}, both, {}))), "in '@f': variable '%x' is used outside its scope");
}

TEST(Verify, VariableBoundTwice) {
  ir::BodyBuilder b;
  const ir::ExprId x = b.var("x", ir::types::i64, 0);
  const ir::ExprId one = b.int_const(1, 0);
  const ir::ExprId inner = b.let(x, one, x, {}, 0);
  const ir::ExprId outer = b.let(x, one, inner, {}, 0);
  EXPECT_EQ(error_of(one_function(b.finish({}, outer, {}))), "in '@f': variable '%x' is bound twice");
}

TEST(Verify, OperatorArity) {
  ir::BodyBuilder b;
  const ir::ExprId one = b.int_const(1, 0);
  const ir::ExprId add = b.op(ir::Op::add, std::vector<ir::ExprId>{one}, {}, 0);
  EXPECT_EQ(error_of(one_function(b.finish({}, add, {}))), "in '@f': operator 'add' takes 2 operands, not 1");
}

TEST(Verify, DuplicateGlobalNames) {
  ir::Module m = ir::parse("def @f(%x: i64) { %x }");
  m.functions.push_back(m.functions.front());
  EXPECT_EQ(error_of(m), "function '@f' is defined twice");
}

}  // namespace

// The node reported is the first, in the order built, that nests more than
// max_nesting deep; a let's body does not nest, its value does.
TEST(Verify, ReportsTheFirstNodeThatNestsTooDeep) {
  for (const std::uint32_t negs : {ir::max_nesting - 1, ir::max_nesting}) {
    ir::BodyBuilder b;
    const ir::ExprId x = b.var("x", ir::types::i64, 0);
    ir::ExprId e = x;
    for (std::uint32_t i = 1; i <= negs; ++i) e = b.op(ir::Op::neg, std::vector<ir::ExprId>{e}, {}, 2 * i);  // line i + 1
    ir::ExprId body = b.var("y", ir::types::i64, 0);
    const ir::ExprId chain_var = body;
    for (std::uint32_t i = 0; i < 2 * ir::max_nesting; ++i) {  // a long chain of lets nests no deeper
      const ir::ExprId v = b.var("z" + std::to_string(i), ir::types::i64, 0);
      body = b.let(v, b.int_const(1, 0), body, {}, 0);
    }
    const ir::ExprId root = b.let(chain_var, e, body, {}, 2 * (negs + 1));
    ir::Module m = one_function(b.finish(std::vector<ir::ExprId>{x}, root, {}));
    std::string text;
    for (std::uint32_t line = 0; line < negs + 2; ++line) text += "-\n";
    m.source = std::make_shared<const ir::Source>("deep.ir", text);
    if (negs < ir::max_nesting) {
      EXPECT_EQ(error_of(m), "no error");
      continue;
    }
    try {
      ir::verify(m);
      ADD_FAILURE() << "no error";
    } catch (const ir::IRError& e) {
      EXPECT_EQ(e.message(), "in '@f': expression nested more than 256 deep");
      EXPECT_EQ(e.position().line, negs + 2);  // the let, whose value is max_nesting negs deep
    }
  }
}

namespace {

TEST(Verify, NamesAreNamesTheTextFormatReads) {
  // A function name that would print as more text: an exported @evil.
  ir::Module evil = ir::parse("def @f(%x: i64) -> i64 { %x }");
  evil.functions[0].name = "f() -> i64 { 1 }\n#[export]\ndef @evil";
  EXPECT_EQ(error_of(evil), "function name '@f() -> i64 { 1 }\\x0A#[export]\\x0Adef @evil' is not a name (letters, digits and '_')");
  evil.functions[0].name = "";
  EXPECT_EQ(error_of(evil), "function name '@' is not a name (letters, digits and '_')");
  ir::BodyBuilder b;
  const ir::ExprId x = b.var("x y", ir::types::i64, 0);
  const std::vector<ir::ExprId> params{x};
  EXPECT_EQ(error_of(one_function(b.finish(params, x, ir::types::i64))),
            "in '@f': variable name '%x y' is not a name (letters, digits and '_')");
}

TEST(Print, ABodyNestedDeeperThanTheVerifierAcceptsIsAnErrorNotAStackOverflow) {
  ir::BodyBuilder b;
  ir::ExprId e = b.var("x", ir::types::i64, 0);
  const ir::ExprId x = e;
  for (int i = 0; i < 100000; ++i) e = b.op(ir::Op::neg, std::vector<ir::ExprId>{e}, {}, 0);
  const std::vector<ir::ExprId> params{x};
  const ir::Module deep = one_function(b.finish(params, e, ir::types::i64));
  EXPECT_EQ(error_of(deep), "in '@f': expression nested more than 256 deep");
  EXPECT_THROW((void)ir::print(deep), ir::IRError);
}

}  // namespace

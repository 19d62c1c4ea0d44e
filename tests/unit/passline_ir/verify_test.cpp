// The verifier, on modules the parser cannot produce: built node by node.
#include <gtest/gtest.h>

#include <memory>
#include <string>
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

// Rewriting in place: a body that nothing else holds is rewritten over its own
// nodes; one that is shared is left as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;

constexpr const char* program = R"(def @f(%x: i64) -> i64 {
  let %a = add(%x, 0);
  let %b = mul(add(2, 3), %a);
  let %c = mul(add(2, 3), %a);
  sub(%b, %c)
}
)";

/// Puts an unused constant before every operator: more nodes out than in, so
/// an in-place rewrite must set aside input nodes it has not read yet.
struct Padding final : ir::Rewrite {
  ir::ExprId node(ir::BodyBuilder& out, ir::ExprId old_id, const ir::Node& n, std::vector<ir::ExprId>& list) override {
    if (n.kind == ir::Kind::op) {
      (void)out.int_const(7, n.loc);
      changed = true;
    }
    return Rewrite::node(out, old_id, n, list);
  }
};

ir::Module run(const char* pipeline, ir::Module module) {
  passline::PassContext ctx;
  return passline::parse_pipeline(pipeline, ir::registry())(std::move(module), ctx);
}

/// A static pipeline: it tracks no requirements at run time, so it holds no
/// copy of the IR to compare with, and its passes own what they transform.
using Cleanup = passline::Sequential<ir::InferType, ir::FoldConstant, ir::SimplifyExpr, ir::EliminateCommonSubexpr,
                                     ir::DeadCodeElimination>;

TEST(Rewrite, ABodyNothingElseHoldsIsRewrittenOverItsOwnNodes) {
  passline::PassContext ctx;
  const ir::Module shared = ir::parse(program);
  const ir::Module expected = Cleanup{}(shared, ctx);

  ir::Module owned = ir::parse(program);
  const ir::Node* storage = owned.functions[0].body->nodes().data();
  owned = Cleanup{}(std::move(owned), ctx);
  EXPECT_EQ(owned.functions[0].body->nodes().data(), storage);  // no second copy of the nodes
  EXPECT_EQ(ir::print(owned), ir::print(expected));
  EXPECT_EQ(ir::print(owned), "def @f(%x: i64) -> i64 {\n  let %b: i64 = mul(%x, 5);\n  sub(%b, %b)\n}\n");
}

TEST(Rewrite, ASharedBodyIsLeftAsItWas) {
  const ir::Module input = ir::parse(program);
  const std::string before = ir::print(input);
  const ir::Module output = run("InferType,FoldConstant,SimplifyExpr,EliminateCommonSubexpr,DeadCodeElimination", input);
  EXPECT_EQ(ir::print(input), before);
  EXPECT_NE(ir::print(output), before);
}

TEST(Rewrite, InPlaceAndCopyingAgreeWhenTheOutputOutgrowsTheInput) {
  const ir::Module module = ir::parse(program);
  Padding copying;
  const std::shared_ptr<const ir::Body> copied = ir::rewrite(module.functions[0].body, copying);

  ir::Module owned = ir::parse(program);
  Padding in_place;
  const std::shared_ptr<const ir::Body> rewritten = ir::rewrite(std::move(owned.functions[0].body), in_place);
  owned.functions[0].body = rewritten;
  ir::Module expected = module;
  expected.functions[0].body = copied;
  EXPECT_GT(rewritten->size(), module.functions[0].body->size());
  EXPECT_TRUE(ir::structurally_equal(owned, expected)) << ir::print(owned) << "\nvs\n" << ir::print(expected);
  EXPECT_NO_THROW(ir::verify(owned));
}

TEST(Rewrite, AnInPlaceRewriteThatChangesNothingKeepsItsBody) {
  ir::Module module = run("InferType", ir::parse("def @g(%x: i64) -> i64 { let %y = add(%x, 1); mul(%y, %x) }"));
  const ir::Body* body = module.functions[0].body.get();
  const std::uint64_t fingerprint = ir::fingerprint(module);
  passline::PassContext ctx;
  module = Cleanup{}(std::move(module), ctx);
  EXPECT_EQ(module.functions[0].body.get(), body);  // the identity test still says "unchanged"
  EXPECT_EQ(ir::fingerprint(module), fingerprint);
}

/// Records, at the start of the walk, the input as the pass sees it.
struct Looker final : ir::Rewrite {
  void start(const ir::detail::RewriteInput& in) override {
    for (ir::ExprId id = 0; id < in.size(); ++id) {
      kinds.push_back(in.kind(id));
      nodes.push_back(in[id]);
    }
    root = in.root();
  }
  std::vector<ir::Kind> kinds;
  std::vector<ir::Node> nodes;
  ir::ExprId root = ir::no_expr;
};

TEST(Rewrite, StartSeesTheWholeInputBeforeTheWalkInPlaceOrNot) {
  const ir::Module module = ir::parse(program);
  const ir::Body& body = *module.functions[0].body;
  Looker shared;
  (void)ir::rewrite(module.functions[0].body, shared);  // the module holds it too: not in place
  ir::Module owned = ir::parse(program);
  Looker in_place;
  (void)ir::rewrite(std::move(owned.functions[0].body), in_place);
  for (const Looker* looker : {&shared, &in_place}) {
    ASSERT_EQ(looker->kinds.size(), body.size());
    EXPECT_EQ(looker->root, body.root());
    for (ir::ExprId id = 0; id < body.size(); ++id) {
      EXPECT_EQ(looker->kinds[id], body[id].kind) << id;
      EXPECT_EQ(looker->nodes[id].a, body[id].a) << id;  // not yet written over
      EXPECT_EQ(looker->nodes[id].kind, body[id].kind) << id;
    }
  }
}

}  // namespace

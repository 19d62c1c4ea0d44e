// What the printer writes, the parser reads back: on random modules built
// with the library's own builder (not from text, so shapes the generator of
// well-typed programs never makes: untyped, oddly named, nested right up to
// and past ir::max_nesting, numbers called and projected), and on what every
// pass and pipeline makes of the random well-typed programs.
//
// For each module: it verifies exactly when its printed text parses; when it
// does, the text parses to a module with the same fingerprint, which prints
// the same text again. Seeded like property_test.cpp (PASSLINE_PROPERTY_SEED,
// PASSLINE_PROPERTY_COUNT).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "generator.hpp"
import passline;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;

namespace {

namespace ir = passline::ir;

std::uint64_t from_env(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

/// A random body: a tree of every kind of node, whose nesting is drawn to
/// fall below, at and just past max_nesting.
class RandomBody {
 public:
  RandomBody(std::mt19937_64& random, const std::vector<std::string>& globals, std::uint32_t target)
      : random_(random), globals_(globals), target_(target) {}

  std::shared_ptr<const ir::Body> make() {
    std::vector<ir::ExprId> params;
    const int count = pick(3);
    for (int i = 0; i < count; ++i) params.push_back(bind(name(), true));
    const ir::ExprId root = expr(0);
    return builder_.finish(params, root, ir::types::unknown);
  }

 private:
  int pick(int n) { return static_cast<int>(random_() % static_cast<std::uint64_t>(n)); }
  /// Names that collide, are empty, or look like the printer's own renamings.
  std::string name() {
    static const char* names[] = {"x", "x", "x_1", "v", "", "a", "v_1", "t"};
    return names[pick(8)];
  }
  /// A binder: a let's var, untyped; a parameter, typed (but once in a
  /// while, which the verifier refuses).
  ir::ExprId bind(const std::string& n, bool param = false) {
    static const ir::Type types[] = {ir::types::i64, ir::types::f64, ir::types::boolean,
                                     ir::TypeTable::global().tuple(std::vector<ir::Type>{ir::types::i64})};
    const ir::Type type = !param || pick(50) == 0 ? ir::types::unknown : types[pick(4)];
    const ir::ExprId v = builder_.var(n, type, 0);
    scope_.push_back(v);
    return v;
  }

  ir::ExprId leaf() {
    switch (pick(7)) {
      case 0:
        if (!scope_.empty()) return scope_[static_cast<std::size_t>(pick(static_cast<int>(scope_.size())))];
        [[fallthrough]];
      case 1: {
        static const std::int64_t ints[] = {0, 7, -7, std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max()};
        return builder_.int_const(ints[pick(5)], 0);
      }
      case 2: {
        static const double floats[] = {0.5, -0.0, 1e300, -2.5e-300, INFINITY, -INFINITY, NAN, -NAN};
        return builder_.float_const(floats[pick(8)], 0);
      }
      case 3: return builder_.bool_const(pick(2) == 1, 0);
      case 4:
        if (!globals_.empty()) return builder_.global(globals_[static_cast<std::size_t>(pick(static_cast<int>(globals_.size())))], ir::types::unknown, 0);
        [[fallthrough]];
      default: return builder_.int_const(pick(100), 0);
    }
  }

  /// A node at `depth`: one branch goes on down to about the target depth,
  /// the others stay shallow, so the tree stays small.
  ir::ExprId expr(std::uint32_t depth) {
    const bool deep = depth < target_;
    if (!deep && (depth > target_ + 2 || pick(3) == 0)) return leaf();
    auto child = [&](bool main) { return main ? expr(depth + 1) : (pick(4) == 0 ? expr(target_ + 1) : leaf()); };
    switch (pick(9)) {
      case 0: {
        const ir::Op op = ir::all_ops[pick(static_cast<int>(std::size(ir::all_ops)))];
        std::vector<ir::ExprId> operands;
        const int arity = ir::op_arity(op);
        const int main = pick(arity);
        for (int i = 0; i < arity; ++i) operands.push_back(child(i == main));
        return builder_.op(op, operands, ir::types::unknown, 0);
      }
      case 1: {  // a call of a closure, a number or an expression; never of a global (arity is checked)
        const ir::ExprId callee = child(true);
        std::vector<ir::ExprId> args;
        for (int i = pick(3); i > 0; --i) args.push_back(child(false));
        if (builder_[callee].kind == ir::Kind::global) return callee;
        return builder_.call(callee, args, ir::types::unknown, 0);
      }
      case 2: {
        std::vector<ir::ExprId> elements;
        const int count = pick(4);
        const int main = count > 0 ? pick(count) : -1;
        for (int i = 0; i < count; ++i) elements.push_back(child(i == main));
        return builder_.tuple(elements, ir::types::unknown, 0);
      }
      case 3: return builder_.proj(child(true), static_cast<std::uint32_t>(pick(3)), ir::types::unknown, 0);
      case 4: {
        const int main = pick(3);
        const ir::ExprId c = child(main == 0), t = child(main == 1), e = child(main == 2);
        return builder_.if_(c, t, e, ir::types::unknown, 0);
      }
      case 5: {  // a let: its value nests, its body does not
        const ir::ExprId value = child(pick(2) == 0);
        const std::size_t mark = scope_.size();
        const ir::ExprId var = bind(name());
        const ir::ExprId body = pick(2) == 0 ? expr(depth) : child(false);
        scope_.resize(mark);
        return builder_.let(var, value, body, ir::types::unknown, 0);
      }
      case 6: {
        const std::size_t mark = scope_.size();
        std::vector<ir::ExprId> params;
        for (int i = pick(3); i > 0; --i) params.push_back(bind(name(), true));
        const ir::ExprId body = child(true);
        scope_.resize(mark);
        return builder_.fn(params, body, ir::types::unknown, 0);
      }
      default: return child(true);
    }
  }

  std::mt19937_64& random_;
  const std::vector<std::string>& globals_;
  std::uint32_t target_;
  ir::BodyBuilder builder_;
  std::vector<ir::ExprId> scope_;
};

/// `module` with InferType's types on every node.
ir::Module typed(const ir::Module& module) {
  passline::PassContext ctx;
  return ir::InferType{}(module, ctx);
}

/// Checks the round trip of `module`; "" when it holds, else what failed.
/// The text carries the types of binders only: a `typed` module (every node
/// typed by InferType) is compared once its text is typed again.
std::string round_trip(const ir::Module& module, bool is_typed = false) {
  bool verifies = true;
  std::string why;
  try {
    ir::verify(module);
  } catch (const ir::IRError& e) {
    verifies = false;
    why = e.message();
  }
  const std::string text = ir::print(module);
  ir::Module back;
  try {
    back = ir::parse(text, "printed.ir");
  } catch (const ir::IRError& e) {
    if (verifies) return fmt::format("it verifies, but its text does not parse: {}", e.what());
    // The same message, up to the names of variables (the printer names an unnamed one).
    const std::regex var("%[A-Za-z0-9_]*");
    if (!std::regex_replace(why, var, "%").ends_with(std::regex_replace(e.message(), var, "%"))) {
      return fmt::format("verify says '{}', the parser '{}'", why, e.message());
    }
    return "";
  }
  if (!verifies) return fmt::format("it does not verify ({}), but its text parses", why);
  if (ir::fingerprint(is_typed ? typed(back) : back) != ir::fingerprint(module)) {
    return "its text parses to another module (fingerprint)";
  }
  if (ir::print(back) != text) return "its text, parsed and printed, is another text";
  return "";
}

TEST(Property, EveryModuleThatVerifiesPrintsTextThatReadsBackToIt) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000);
  std::uint64_t too_deep = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::mt19937_64 random(seed + i);
    ir::Module module;
    const std::vector<std::string> globals = {"f0", "f1"};
    for (std::size_t f = 0; f < globals.size(); ++f) {
      // Most near the limit: below it, at it, one past it.
      const std::uint32_t target = random() % 2 == 0 ? static_cast<std::uint32_t>(random() % 8)
                                                     : ir::max_nesting - 2 + static_cast<std::uint32_t>(random() % 4);
      RandomBody body(random, globals, target);
      module.functions.push_back({.name = globals[f], .body = body.make(), .exported = f == 0});
    }
    const std::string failure = round_trip(module);
    ASSERT_EQ(failure, "") << "seed " << seed + i << " (PASSLINE_PROPERTY_SEED=" << seed + i
                           << " PASSLINE_PROPERTY_COUNT=1)\n"
                           << ir::print(module);
    try {
      ir::verify(module);
    } catch (const ir::IRError&) {
      ++too_deep;
    }
  }
  // Both sides of the limit were tried.
  EXPECT_GT(too_deep, 0u);
  EXPECT_LT(too_deep, count);
}

TEST(Property, EveryPassesOutputPrintsTextThatReadsBackToIt) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000) / 4;
  const auto& registry = passline::pipelines::registry();
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::string text = passline::testing::random_program(seed + i);
    for (std::string_view name : registry.names()) {
      passline::PassContext ctx;
      ctx.opt_level = 3;
      const ir::Module out = typed(passline::parse_pipeline(name, registry)(ir::parse(text, "random.ir"), ctx));
      const std::string failure = round_trip(out, true);
      ASSERT_EQ(failure, "") << "the output of " << name << " on seed " << seed + i << " (PASSLINE_PROPERTY_SEED="
                             << seed + i << " PASSLINE_PROPERTY_COUNT=4)\n"
                             << ir::print(out);
    }
  }
}

// A pass that declares it preserves InferType leaves every node typed, with
// the types InferType gives: its output, printed, read back and typed again,
// is the same module, types included.
TEST(Property, APassThatPreservesInferTypeLeavesTheTypesInferTypeWouldWrite) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000) / 4;
  const auto& registry = passline::pipelines::registry();
  std::size_t checked = 0;
  for (const auto& listing : registry.list()) {
    const passline::Pass<ir::Module> pass = registry.create(listing.name);
    if (listing.pipeline || !pass.info().keeps("InferType")) continue;
    ++checked;
    for (std::uint64_t i = 0; i < count; ++i) {
      const ir::Module in = typed(ir::parse(passline::testing::random_program(seed + i), "random.ir"));
      passline::PassContext ctx;
      ctx.opt_level = 3;
      const ir::Module out = pass(in, ctx);
      const ir::Module again = typed(ir::parse(ir::print(out), "printed.ir"));
      ASSERT_EQ(ir::fingerprint(out), ir::fingerprint(again))
          << listing.name << " declares that it preserves InferType, but on seed " << seed + i
          << " (PASSLINE_PROPERTY_SEED=" << seed + i << " PASSLINE_PROPERTY_COUNT=4) its output is typed otherwise:\n"
          << ir::print(out);
    }
  }
  EXPECT_GT(checked, 0u);
}

// A pass that declares it preserves an analysis leaves the IR with the result
// the analysis had before it: the cache may keep it.
template <class Analysis>
void check_preserved(std::string_view name) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000) / 4;
  const auto& registry = passline::pipelines::registry();
  std::size_t checked = 0;
  for (const auto& listing : registry.list()) {
    const passline::Pass<ir::Module> pass = registry.create(listing.name);
    if (listing.pipeline || !pass.info().keeps(name) || pass.info().preserves_everything()) continue;
    ++checked;
    for (std::uint64_t i = 0; i < count; ++i) {
      const ir::Module in = typed(ir::parse(passline::testing::random_program(seed + i), "random.ir"));
      passline::PassContext ctx;
      ctx.opt_level = 3;
      const ir::Module out = pass(in, ctx);
      ASSERT_TRUE(Analysis{}(in) == Analysis{}(out))
          << listing.name << " declares that it preserves " << name << ", but on seed " << seed + i
          << " (PASSLINE_PROPERTY_SEED=" << seed + i << " PASSLINE_PROPERTY_COUNT=4) it changes it:\n"
          << ir::print(in) << "\nbecomes\n" << ir::print(out);
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(Property, APassThatPreservesCallGraphLeavesItAsItWas) { check_preserved<ir::CallGraph>("CallGraph"); }
TEST(Property, APassThatPreservesPurityLeavesItAsItWas) { check_preserved<ir::Purity>("Purity"); }

}  // namespace

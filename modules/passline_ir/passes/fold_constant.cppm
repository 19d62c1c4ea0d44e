// FoldConstant: evaluates what can be evaluated before the program runs.
//
// Operators on constants become constants, with the IR's own semantics (i64
// wraps, f64 is IEEE 754), so folding never changes a result. A `let` bound to
// a constant is substituted into its uses, and an `if` on a constant keeps
// only the branch taken, so folding goes on through both. What would trap at
// run time (an i64 division by zero, or of the smallest i64 by -1) is left for
// the run to trap on, and reported as a warning where it stands.
module;
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>
export module passline.ir.passes:fold_constant;
import passline;
import passline.ir;

namespace passline::ir::detail {

/// A constant operand, as the folder sees it.
struct Constant {
  Kind kind;
  std::uint64_t bits;
  std::int64_t i() const { return static_cast<std::int64_t>(bits); }
  double f() const { return std::bit_cast<double>(bits); }
  bool b() const { return bits != 0; }
};

class Folder final : public Rewrite {
 public:
  /// Without a context, what cannot be folded is not reported.
  Folder(const Module* module, PassContext* ctx) : module_(module), ctx_(ctx) {}
  /// Operators and projections folded.
  std::int64_t folded = 0;

  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind == Kind::op) {
      if (auto result = fold(out, n)) {
        changed = true;
        ++folded;
        return *result;
      }
    } else if (n.kind == Kind::proj && out[n.a].kind == Kind::tuple) {
      const std::span<const ExprId> elements = out.list(out[n.a].b, out[n.a].c);
      if (std::ranges::all_of(elements, [&](ExprId e) { return constant(out, e).has_value(); })) {
        changed = true;
        ++folded;
        return elements[n.b];
      }
    }
    return list_node(out, n, list);
  }

  int branch(const BodyBuilder& out, ExprId cond) override {
    const auto c = constant(out, cond);
    return c ? (c->b() ? 0 : 1) : -1;
  }

  ExprId bind(BodyBuilder& out, ExprId, ExprId value) override {
    return constant(out, value) ? value : no_expr;
  }

  static std::optional<Constant> constant(const BodyBuilder& out, ExprId id) {
    const Node& n = out[id];
    switch (n.kind) {
      case Kind::int_const:
      case Kind::float_const: return Constant{n.kind, (static_cast<std::uint64_t>(n.b) << 32) | n.a};
      case Kind::bool_const: return Constant{n.kind, n.a};
      default: return std::nullopt;
    }
  }

  /// The constant an operator node evaluates to, when its operands are constants.
  std::optional<ExprId> fold(BodyBuilder& out, const Node& n) {
    std::optional<Constant> x = constant(out, n.a);
    std::optional<Constant> y = n.b != no_expr ? constant(out, n.b) : std::nullopt;
    std::optional<Constant> z = n.c != no_expr ? constant(out, n.c) : std::nullopt;
    const int arity = op_arity(n.op);
    const std::uint32_t loc = n.loc;
    if ((n.op == Op::div || n.op == Op::mod) && y && y->kind == Kind::int_const && y->i() == 0) {
      return warn(loc, fmt::format("'{}' by zero: left to trap at run time", op_name(n.op)));
    }
    if (!x || (arity > 1 && !y) || (arity > 2 && !z)) return std::nullopt;
    auto integer = [&](std::int64_t v) { return out.int_const(v, loc); };
    auto real = [&](double v) { return out.float_const(v, loc); };
    auto boolean = [&](bool v) { return out.bool_const(v, loc); };
    const bool is_float = x->kind == Kind::float_const;
    const bool is_int = x->kind == Kind::int_const;
    auto wrap = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
    switch (n.op) {
      case Op::add: return is_float ? real(x->f() + y->f()) : integer(wrap(x->bits + y->bits));
      case Op::sub: return is_float ? real(x->f() - y->f()) : integer(wrap(x->bits - y->bits));
      case Op::mul: return is_float ? real(x->f() * y->f()) : integer(wrap(x->bits * y->bits));
      case Op::div:
      case Op::mod: {
        if (is_float) return n.op == Op::div ? std::optional<ExprId>(real(x->f() / y->f())) : std::nullopt;
        if (y->i() == -1 && x->i() == std::numeric_limits<std::int64_t>::min()) {
          return warn(loc, fmt::format("'{}' of the smallest i64 by -1 overflows: left to trap at run time",
                                          op_name(n.op)));
        }
        return integer(n.op == Op::div ? x->i() / y->i() : x->i() % y->i());
      }
      case Op::neg: return is_float ? real(-x->f()) : integer(wrap(0 - x->bits));
      case Op::eq: return boolean(is_float ? x->f() == y->f() : x->bits == y->bits);
      case Op::ne: return boolean(is_float ? x->f() != y->f() : x->bits != y->bits);
      case Op::lt: return boolean(is_float ? x->f() < y->f() : is_int ? x->i() < y->i() : x->bits < y->bits);
      case Op::le: return boolean(is_float ? x->f() <= y->f() : is_int ? x->i() <= y->i() : x->bits <= y->bits);
      case Op::gt: return boolean(is_float ? x->f() > y->f() : is_int ? x->i() > y->i() : x->bits > y->bits);
      case Op::ge: return boolean(is_float ? x->f() >= y->f() : is_int ? x->i() >= y->i() : x->bits >= y->bits);
      case Op::and_: return boolean(x->b() && y->b());
      case Op::or_: return boolean(x->b() || y->b());
      case Op::not_: return boolean(!x->b());
      case Op::select: return x->b() ? n.b : n.c;
    }
    return std::nullopt;
  }

 private:
  std::nullopt_t warn(std::uint32_t loc, std::string message) {
    if (!ctx_) return std::nullopt;
    ctx_->diagnostics->report({.severity = Severity::warning,
                               .location = module_->source->location(loc),
                               .message = std::move(message),
                               .snippet = module_->source->snippet(loc)});
    return std::nullopt;
  }

  const Module* module_;
  PassContext* ctx_;
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Folds constant subexpressions, through lets and ifs on constants.
struct FoldConstant {
  static constexpr PassInfo info{
      .name = "FoldConstant",
      .opt_level = 2,
      .required = needs<"InferType">,
      .summary = "evaluates operators on constants, through lets and ifs on constants",
      .preserves = names<"InferType">,
  };

  Function operator()(Function fn, const Module& module, PassContext& ctx) const {
    detail::Folder folder(&module, &ctx);
    fn.body = rewrite(std::move(fn.body), folder);
    ctx.statistics->add(info.name, "expressions folded", folder.folded);
    return fn;
  }
};

}  // namespace passline::ir

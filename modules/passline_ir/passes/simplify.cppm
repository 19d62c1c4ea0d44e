// SimplifyExpr: algebraic identities that hold for every value of the type.
//
// On i64 (which wraps) and bool the usual identities hold exactly. On f64 only
// those that IEEE 754 keeps bit for bit do: `x * 1.0`, `x / 1.0`, `x - 0.0`,
// `x + -0.0` and `neg(neg(x))` are `x`, but `x + 0.0` is not (-0.0 + 0.0 is
// +0.0) and `x * 0.0` is not (NaN, infinities and signs). An identity that
// drops an operand (`mul(x, 0)` is 0) applies only when that operand is pure,
// so a trap or a call is never lost.
module;
#include <cstdint>
#include <vector>
export module passline.ir.passes:simplify;
import passline;
import passline.ir;
import :effects;

namespace passline::ir::detail {

class Simplifier final : public Rewrite {
 public:
  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind == Kind::op) {
      const ExprId simpler = simplify(out, n);
      if (simpler != no_expr) {
        changed = true;
        return simpler;
      }
    }
    return list_node(out, n, list);
  }

 private:
  static bool is_int(const BodyBuilder& out, ExprId id, std::int64_t v) {
    const Node& n = out[id];
    return n.kind == Kind::int_const && n.a == static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)) &&
           n.b == static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) >> 32);
  }
  /// Compares bits, so 0.0 and -0.0 differ.
  static bool is_float(const BodyBuilder& out, ExprId id, std::uint64_t bits) {
    const Node& n = out[id];
    return n.kind == Kind::float_const && n.a == static_cast<std::uint32_t>(bits) &&
           n.b == static_cast<std::uint32_t>(bits >> 32);
  }
  static bool is_bool(const BodyBuilder& out, ExprId id, bool v) {
    return out[id].kind == Kind::bool_const && (out[id].a != 0) == v;
  }
  /// Whether evaluating `id` is certainly pure, looking a few levels down.
  static bool pure(const BodyBuilder& out, ExprId id, int depth = 4) {
    const Node& n = out[id];
    switch (n.kind) {
      case Kind::var:
      case Kind::int_const:
      case Kind::float_const:
      case Kind::bool_const:
      case Kind::global:
      case Kind::fn: return true;
      case Kind::op:
        return depth > 0 && !may_trap(out, n) && pure(out, n.a, depth - 1) &&
               (n.b == no_expr || pure(out, n.b, depth - 1)) && (n.c == no_expr || pure(out, n.c, depth - 1));
      case Kind::proj: return depth > 0 && pure(out, n.a, depth - 1);
      default: return false;
    }
  }
  static bool is_op(const BodyBuilder& out, ExprId id, Op op) { return out[id].kind == Kind::op && out[id].op == op; }

  ExprId simplify(BodyBuilder& out, const Node& n) {
    const ExprId x = n.a;
    const ExprId y = n.b;
    const std::uint32_t loc = n.loc;
    if (n.type == types::i64) {
      switch (n.op) {
        case Op::add:
          if (is_int(out, y, 0)) return x;
          if (is_int(out, x, 0)) return y;
          break;
        case Op::sub:
          if (is_int(out, y, 0)) return x;
          if (x == y && pure(out, x)) return out.int_const(0, loc);
          break;
        case Op::mul:
          if (is_int(out, y, 1)) return x;
          if (is_int(out, x, 1)) return y;
          if ((is_int(out, y, 0) && pure(out, x)) || (is_int(out, x, 0) && pure(out, y))) return out.int_const(0, loc);
          break;
        case Op::div:
          if (is_int(out, y, 1)) return x;
          break;
        case Op::mod:
          if (is_int(out, y, 1) && pure(out, x)) return out.int_const(0, loc);
          break;
        case Op::neg:
          if (is_op(out, x, Op::neg)) return out[x].a;
          break;
        default: break;
      }
    } else if (n.type == types::f64) {
      constexpr std::uint64_t one = 0x3ff0000000000000ull, zero = 0, minus_zero = 0x8000000000000000ull;
      switch (n.op) {
        case Op::add:
          if (is_float(out, y, minus_zero)) return x;
          if (is_float(out, x, minus_zero)) return y;
          break;
        case Op::sub:
          if (is_float(out, y, zero)) return x;
          break;
        case Op::mul:
          if (is_float(out, y, one)) return x;
          if (is_float(out, x, one)) return y;
          break;
        case Op::div:
          if (is_float(out, y, one)) return x;
          break;
        case Op::neg:
          if (is_op(out, x, Op::neg)) return out[x].a;
          break;
        default: break;
      }
    } else if (n.type == types::boolean) {
      const bool exact = x != no_expr && (out[x].type == types::i64 || out[x].type == types::boolean);
      switch (n.op) {
        case Op::and_:
          if (is_bool(out, y, true) || x == y) return x;
          if (is_bool(out, x, true)) return y;
          if ((is_bool(out, y, false) && pure(out, x)) || (is_bool(out, x, false) && pure(out, y))) {
            return out.bool_const(false, loc);
          }
          break;
        case Op::or_:
          if (is_bool(out, y, false) || x == y) return x;
          if (is_bool(out, x, false)) return y;
          if ((is_bool(out, y, true) && pure(out, x)) || (is_bool(out, x, true) && pure(out, y))) {
            return out.bool_const(true, loc);
          }
          break;
        case Op::not_:
          if (is_op(out, x, Op::not_)) return out[x].a;
          break;
        case Op::eq:
        case Op::le:
        case Op::ge:
          if (exact && x == y && pure(out, x)) return out.bool_const(true, loc);
          break;
        case Op::ne:
        case Op::lt:
        case Op::gt:
          if (exact && x == y && pure(out, x)) return out.bool_const(false, loc);
          break;
        default: break;
      }
    }
    if (n.op == Op::select && y == n.c && pure(out, x)) return y;
    return no_expr;
  }
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Applies algebraic identities that hold exactly for the operands' type.
struct SimplifyExpr {
  static constexpr PassInfo info{
      .name = "SimplifyExpr",
      .opt_level = 1,
      .required = needs<"InferType">,
      .summary = "algebraic identities exact for the type (x+0, x*1, x-x, not(not(b)), ...)",
  };

  Function operator()(Function fn, const Module&, PassContext&) const {
    detail::Simplifier simplifier;
    fn.body = rewrite(fn.body, simplifier);
    return fn;
  }
};

}  // namespace passline::ir

// SimplifyExpr: algebraic identities that hold for every value of the type.
//
// On i64 (which wraps) and bool the usual identities hold exactly. On f64 only
// those that IEEE 754 keeps bit for bit do: `x * 1.0`, `x / 1.0`, `x - 0.0`,
// `x + -0.0` and `neg(neg(x))` are `x`, but `x + 0.0` is not (-0.0 + 0.0 is
// +0.0) and `x * 0.0` is not (NaN, infinities and signs). An identity that
// drops an operand (`mul(x, 0)` is 0) applies only when that operand is pure,
// so a trap or a call is never lost. i64 constants regroup, since wrapping
// arithmetic is a ring: (x + 1) + 2 is x + 3. What identities leave constant
// folds at once (FoldConstant's rules), and a let bound to a variable or a
// constant is substituted, so identities go on through lets.
module;
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>
export module passline.ir.passes:simplify;
import passline;
import passline.ir;
import :effects;
import :fold_constant;

namespace passline::ir::detail {

class Simplifier final : public Rewrite {
 public:
  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind == Kind::op) {
      // Identities leave constants behind (x - x is 0): what they leave folds
      // here. A let-bound variable is no constant, so there is nothing to fold.
      const bool may_fold = !let_bound(n.a) && !let_bound(n.b) && !let_bound(n.c);
      if (const auto folded = may_fold ? folder_.fold(out, n) : std::nullopt) {
        changed = true;
        return *folded;
      }
      ExprId simpler = simplify(out, n);
      if (simpler != no_expr) {
        changed = true;
        // A regrouped node may simplify again: (a + 1) + -1 is a + 0, which is a.
        for (int again = 0; again < 2 && out[simpler].kind == Kind::op; ++again) {
          const ExprId further = simplify(out, Node(out[simpler]));
          if (further == no_expr) break;
          simpler = further;
        }
        return simpler;
      }
    }
    return list_node(out, n, list);
  }

  ExprId bind(BodyBuilder& out, ExprId, ExprId value) override {
    // `let %b = %a` (what `add(%a, 0)` leaves) makes %b %a; `let %z = 0` (what
    // `sub(%a, %a)` leaves) makes %z the constant, so that identities go on.
    const Kind k = out[value].kind;
    const bool atom = k == Kind::var || k == Kind::int_const || k == Kind::float_const || k == Kind::bool_const;
    return atom ? value : no_expr;
  }

  void bound(ExprId, ExprId new_var, ExprId value) override {
    grow_to(defs_, std::size_t{new_var} + 1, no_expr);
    defs_[new_var] = value;
  }

 private:
  /// Whether `id` is a variable bound by a let of this walk: known from
  /// defs_ alone, without reading its node, which may be far back. Such a
  /// variable is never a constant (bind substitutes those).
  bool let_bound(ExprId id) const { return id < defs_.size() && defs_[id] != no_expr; }
  /// What `id` stands for: the value of a let-bound variable, else itself.
  ExprId def(const BodyBuilder&, ExprId id) const { return let_bound(id) ? defs_[id] : id; }
  bool atom(const BodyBuilder& out, ExprId id) const {
    if (let_bound(id)) return true;
    const Kind k = out[id].kind;
    return k == Kind::var || k == Kind::int_const;
  }
  bool is_int_const(const BodyBuilder& out, ExprId id) const { return !let_bound(id) && out[id].kind == Kind::int_const; }
  /// The i64 constant `id` is (a let-bound variable never is one).
  std::optional<std::int64_t> constant(const BodyBuilder& out, ExprId id) const {
    if (!is_int_const(out, id)) return std::nullopt;
    const Node& n = out[id];
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(n.b) << 32) | n.a);
  }
  /// `id` (through its variable) as `op(a, c)` or `op(c, a)` with an atom `a`
  /// and a constant `c`; `constant_first` tells which.
  struct WithConstant {
    Op op;
    ExprId a;
    std::uint64_t c;
    bool constant_first;
  };
  std::optional<WithConstant> with_constant(const BodyBuilder& out, ExprId id) const {
    const Node& n = out[def(out, id)];
    if (n.kind != Kind::op || n.type != types::i64 || (n.op != Op::add && n.op != Op::sub && n.op != Op::mul)) {
      return std::nullopt;
    }
    if (auto c = constant(out, n.b); c && atom(out, n.a)) return WithConstant{n.op, n.a, static_cast<std::uint64_t>(*c), false};
    if (auto c = constant(out, n.a); c && atom(out, n.b)) return WithConstant{n.op, n.b, static_cast<std::uint64_t>(*c), true};
    return std::nullopt;
  }
  /// `id` (through its variable) as `op(a, b)` with atoms.
  std::optional<std::pair<ExprId, ExprId>> atoms_of(const BodyBuilder& out, ExprId id, Op op) const {
    const Node& n = out[def(out, id)];
    if (n.kind != Kind::op || n.op != op || n.type != types::i64 || !atom(out, n.a) || !atom(out, n.b)) return std::nullopt;
    return std::pair{n.a, n.b};
  }

  /// i64 arithmetic is a ring (it wraps), so constants regroup exactly:
  /// (a + c1) + c2 is a + (c1 + c2), c - (a - c1) is (c + c1) - a, and so on;
  /// and (a - b) + b is a, (a + b) - b is a, a - (a - b) is b.
  ExprId regroup(BodyBuilder& out, const Node& n) {
    const std::uint32_t loc = n.loc;
    auto make = [&](Op op, ExprId a, std::uint64_t c, bool constant_first) {
      const ExprId k = out.int_const(static_cast<std::int64_t>(c), loc);
      const ExprId operands[] = {constant_first ? k : a, constant_first ? a : k};
      return out.op(op, operands, types::i64, loc);
    };
    const ExprId x = n.a, y = n.b;
    if (n.op == Op::mul) {
      auto [inner, c] = split(out, x, y);
      if (inner && inner->op == Op::mul) return make(Op::mul, inner->a, inner->c * c, false);
      return no_expr;
    }
    if (n.op == Op::add) {
      if (auto d = atoms_of(out, x, Op::sub); d && d->second == y) return d->first;  // (a - b) + b
      if (auto d = atoms_of(out, y, Op::sub); d && d->second == x) return d->first;  // b + (a - b)
      auto [inner, c] = split(out, x, y);
      if (!inner) return no_expr;
      if (inner->op == Op::add) return make(Op::add, inner->a, inner->c + c, false);
      if (inner->op == Op::sub) {
        return inner->constant_first ? make(Op::sub, inner->a, inner->c + c, true)  // (c1 - a) + c
                                     : make(Op::add, inner->a, c - inner->c, false);  // (a - c1) + c
      }
      return no_expr;
    }
    if (n.op == Op::sub) {
      if (auto d = atoms_of(out, x, Op::add); d && d->second == y) return d->first;  // (a + b) - b
      if (auto d = atoms_of(out, x, Op::add); d && d->first == y) return d->second;  // (a + b) - a
      if (auto d = atoms_of(out, y, Op::sub); d && d->first == x) return d->second;  // a - (a - b)
      auto negate = [&](ExprId b) {
        const ExprId operands[] = {out.int_const(0, loc), b};
        return out.op(Op::sub, operands, types::i64, loc);
      };
      if (auto d = atoms_of(out, x, Op::sub); d && d->first == y) return negate(d->second);  // (a - b) - a
      if (auto d = atoms_of(out, y, Op::add); d && d->first == x) return negate(d->second);  // a - (a + b)
      if (auto d = atoms_of(out, y, Op::add); d && d->second == x) return negate(d->first);  // a - (b + a)
      if (auto c = constant(out, y)) {  // (...) - c
        auto inner = with_constant(out, x);
        if (!inner || inner->op == Op::mul) return no_expr;
        const auto k = static_cast<std::uint64_t>(*c);
        if (inner->op == Op::add) return make(Op::add, inner->a, inner->c - k, false);
        return inner->constant_first ? make(Op::sub, inner->a, inner->c - k, true)  // (c1 - a) - c
                                     : make(Op::sub, inner->a, inner->c + k, false);  // (a - c1) - c
      }
      if (auto c = constant(out, x)) {  // c - (...)
        auto inner = with_constant(out, y);
        if (!inner || inner->op == Op::mul) return no_expr;
        const auto k = static_cast<std::uint64_t>(*c);
        if (inner->op == Op::add) return make(Op::sub, inner->a, k - inner->c, true);
        return inner->constant_first ? make(Op::add, inner->a, k - inner->c, false)  // c - (c1 - a)
                                     : make(Op::sub, inner->a, k + inner->c, true);  // c - (a - c1)
      }
    }
    return no_expr;
  }

  /// For a commutative `x op y` with one constant side: the other side as
  /// `op(a, c1)`, and the constant.
  std::pair<std::optional<WithConstant>, std::uint64_t> split(const BodyBuilder& out, ExprId x, ExprId y) const {
    if (auto c = constant(out, y)) return {with_constant(out, x), static_cast<std::uint64_t>(*c)};
    if (auto c = constant(out, x)) return {with_constant(out, y), static_cast<std::uint64_t>(*c)};
    return {std::nullopt, 0};
  }

  bool is_int(const BodyBuilder& out, ExprId id, std::int64_t v) const {
    if (let_bound(id)) return false;
    const Node& n = out[id];
    return n.kind == Kind::int_const && n.a == static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)) &&
           n.b == static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) >> 32);
  }
  /// Compares bits, so 0.0 and -0.0 differ.
  bool is_float(const BodyBuilder& out, ExprId id, std::uint64_t bits) const {
    if (let_bound(id)) return false;
    const Node& n = out[id];
    return n.kind == Kind::float_const && n.a == static_cast<std::uint32_t>(bits) &&
           n.b == static_cast<std::uint32_t>(bits >> 32);
  }
  bool is_bool(const BodyBuilder& out, ExprId id, bool v) const {
    return !let_bound(id) && out[id].kind == Kind::bool_const && (out[id].a != 0) == v;
  }
  /// Whether evaluating `id` is certainly pure, looking a few levels down.
  bool pure(const BodyBuilder& out, ExprId id, int depth = 4) const {
    if (let_bound(id)) return true;
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
  bool is_op(const BodyBuilder& out, ExprId id, Op op) const { return !let_bound(id) && out[id].kind == Kind::op && out[id].op == op; }

  std::vector<ExprId> defs_;  // let-bound variable -> its value
  Folder folder_{nullptr, nullptr};

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
      if (const ExprId regrouped = regroup(out, n); regrouped != no_expr) return regrouped;
      // The constant of an add or a mul goes on the right, so equal ones look equal.
      if ((n.op == Op::add || n.op == Op::mul) && is_int_const(out, x) && !is_int_const(out, y)) {
        const ExprId swapped[] = {y, x};
        return out.op(n.op, swapped, n.type, loc);
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
      .preserves = names<"InferType">,
  };

  Function operator()(Function fn, const Module&, PassContext&) const {
    detail::Simplifier simplifier;
    fn.body = rewrite(std::move(fn.body), simplifier);
    return fn;
  }
};

}  // namespace passline::ir

// EliminateCommonSubexpr: computes each value once where it is in scope.
//
// Each expression gets a value number: the first node built with the same
// operator, type and operand numbers (global value numbering on the rewritten
// body), so "equal" is one integer compare and the body stays a tree. When an expression
// equals the value of a `let` whose variable is in scope, the variable takes
// its place; a `let` bound to another variable is replaced by it. Evaluation
// is strict, so the earlier `let` has run by then whatever the expression
// does, and no trap or call moves.
module;
#include <algorithm>
#include <utility>
#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>
export module passline.ir.passes:cse;
import passline;
import passline.ir;

namespace passline::ir::detail {

class CommonSubexpr final : public Rewrite {
 public:
  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind == Kind::let || n.kind == Kind::fn || n.kind == Kind::var) return list_node(out, n, list);
    const std::uint64_t h = hash(out, n, list);
    ExprId number = no_expr;
    const auto first = numbered_.find(h);
    for (ExprId candidate = first == numbered_.end() ? no_expr : first->second; candidate != no_expr && number == no_expr;
         candidate = next_[candidate]) {
      if (same(out, candidate, n, list)) number = candidate;
    }
    if (number != no_expr) {
      if (auto held = in_scope_.find(number); held != in_scope_.end()) {
        changed = true;
        return held->second;
      }
    }
    const ExprId id = list_node(out, n, list);
    if (number_.size() <= id) {
      number_.resize(std::max<std::size_t>(id + 1, number_.size() * 2), no_expr);
      next_.resize(number_.size(), no_expr);
    }
    if (number == no_expr) {  // a new value: first in its hash's chain
      number = id;
      auto [slot, inserted] = numbered_.try_emplace(h, id);
      if (!inserted) next_[id] = std::exchange(slot->second, id);
    }
    number_[id] = number;
    return id;
  }

  ExprId bind(BodyBuilder& out, ExprId, ExprId value) override {
    return out[value].kind == Kind::var ? value : no_expr;  // `let %b = %a` : %b is %a
  }

  void bound(ExprId old_var, ExprId new_var, ExprId value) override {
    // The variable stands for the value's number, while it is in scope.
    const ExprId number = number_of(value);
    if (in_scope_.contains(number)) return;
    in_scope_.emplace(number, new_var);
    scopes_.push_back({old_var, number});
  }

  void unbind(ExprId old_var) override {
    if (!scopes_.empty() && scopes_.back().var == old_var) {
      in_scope_.erase(scopes_.back().number);
      scopes_.pop_back();
    }
  }

 private:
  /// The first node built with the same value as `id` (itself if none was).
  ExprId number_of(ExprId id) const { return id < number_.size() && number_[id] != no_expr ? number_[id] : id; }

  static bool has_list(Kind k) { return k == Kind::call || k == Kind::tuple; }

  std::uint64_t hash(const BodyBuilder& out, const Node& n, std::span<const ExprId> list) const {
    std::uint64_t h = mix(static_cast<std::uint64_t>(n.kind) << 8 | static_cast<std::uint64_t>(n.op), n.type.id);
    switch (n.kind) {
      case Kind::global:
        for (char c : out.name_of(n)) h = mix(h, static_cast<unsigned char>(c));
        return h;
      case Kind::int_const:
      case Kind::float_const:
      case Kind::bool_const: return mix(h, static_cast<std::uint64_t>(n.b) << 32 | n.a);
      case Kind::proj: return mix(mix(h, number_of(n.a)), n.b);
      default: break;
    }
    for (ExprId o : {n.a, has_list(n.kind) ? no_expr : n.b, has_list(n.kind) ? no_expr : n.c}) {
      h = mix(h, o == no_expr ? o : number_of(o));
    }
    for (ExprId e : list) h = mix(h, number_of(e));
    return h;
  }

  /// Whether the node numbered `number` has the value `n` would have.
  bool same(const BodyBuilder& out, ExprId number, const Node& n, std::span<const ExprId> list) const {
    const Node& m = out[number];
    if (m.kind != n.kind || m.op != n.op || m.type != n.type) return false;
    auto same_operand = [&](ExprId x, ExprId y) { return x == y || (x != no_expr && y != no_expr && number_of(x) == number_of(y)); };
    switch (n.kind) {
      case Kind::global: return out.name_of(m) == out.name_of(n);
      case Kind::int_const:
      case Kind::float_const:
      case Kind::bool_const: return m.a == n.a && m.b == n.b;
      case Kind::proj: return m.b == n.b && same_operand(m.a, n.a);
      case Kind::call:
      case Kind::tuple: {
        if (n.kind == Kind::call && !same_operand(m.a, n.a)) return false;
        const std::span<const ExprId> elements = out.list(m.b, m.c);
        return std::ranges::equal(elements, list, same_operand);
      }
      default: return same_operand(m.a, n.a) && same_operand(m.b, n.b) && same_operand(m.c, n.c);
    }
  }

  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    v *= 0x9e3779b97f4a7c15ull;
    return (h ^ (v ^ (v >> 29))) * 0x100000001b3ull;
  }

  struct Scope {
    ExprId var;
    ExprId number;
  };
  std::unordered_map<std::uint64_t, ExprId> numbered_;       // hash -> latest value with that hash
  std::vector<ExprId> next_;                                    // value -> the previous one with its hash
  std::vector<ExprId> number_;                                  // node -> first node of its value
  std::unordered_map<ExprId, ExprId> in_scope_;                   // value number -> variable holding it
  std::vector<Scope> scopes_;
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Replaces expressions equal to the value of an in-scope let by its variable.
struct EliminateCommonSubexpr {
  static constexpr PassInfo info{
      .name = "EliminateCommonSubexpr",
      .opt_level = 2,
      .required = needs<"InferType">,
      .summary = "replaces an expression equal to an in-scope let's value by its variable",
  };

  Function operator()(Function fn, const Module&, PassContext&) const {
    detail::CommonSubexpr cse;
    fn.body = rewrite(fn.body, cse);
    return fn;
  }
};

}  // namespace passline::ir

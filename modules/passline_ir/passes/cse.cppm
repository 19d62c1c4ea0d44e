// EliminateCommonSubexpr: computes each value once where it is in scope.
//
// Equal expressions are built once (hash-consing on the rewritten operands,
// types included), so "equal" is one integer compare. When an expression
// equals the value of a `let` whose variable is in scope, the variable takes
// its place; a `let` bound to another variable is replaced by it. Evaluation
// is strict, so the earlier `let` has run by then whatever the expression
// does, and no trap or call moves.
module;
#include <algorithm>
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
    ExprId id = no_expr;
    for (auto [it, end] = built_.equal_range(h); it != end && id == no_expr; ++it) {
      if (same(out, it->second, n, list)) id = it->second;
    }
    if (id == no_expr) {
      id = list_node(out, n, list);
      built_.emplace(h, id);
    }
    if (auto held = in_scope_.find(id); held != in_scope_.end()) {
      changed = true;
      return held->second;
    }
    return id;
  }

  ExprId bind(BodyBuilder& out, ExprId, ExprId value) override {
    return out[value].kind == Kind::var ? value : no_expr;  // `let %b = %a` : %b is %a
  }

  void bound(ExprId old_var, ExprId new_var, ExprId value) override {
    if (in_scope_.contains(value)) return;
    in_scope_.emplace(value, new_var);
    scopes_.push_back({old_var, value});
  }

  void unbind(ExprId old_var) override {
    if (!scopes_.empty() && scopes_.back().var == old_var) {
      in_scope_.erase(scopes_.back().value);
      scopes_.pop_back();
    }
  }

 private:
  static bool has_list(Kind k) { return k == Kind::call || k == Kind::tuple; }

  static std::uint64_t hash(const BodyBuilder& out, const Node& n, std::span<const ExprId> list) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(n.kind) << 8 | static_cast<std::uint64_t>(n.op), n.type.id);
    if (n.kind == Kind::global) {
      for (char c : out.name_of(n)) h = mix(h, static_cast<unsigned char>(c));
      return h;
    }
    h = mix(mix(h, n.a), has_list(n.kind) ? 0 : (static_cast<std::uint64_t>(n.b) << 32 | n.c));
    for (ExprId e : list) h = mix(h, e);
    return h;
  }

  static bool same(const BodyBuilder& out, ExprId id, const Node& n, std::span<const ExprId> list) {
    const Node& m = out[id];
    if (m.kind != n.kind || m.op != n.op || m.type != n.type) return false;
    if (n.kind == Kind::global) return out.name_of(m) == out.name_of(n);
    if (m.a != n.a) return false;
    if (!has_list(n.kind)) return m.b == n.b && m.c == n.c;
    return std::ranges::equal(out.list(m.b, m.c), list);
  }

  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    v *= 0x9e3779b97f4a7c15ull;
    return (h ^ (v ^ (v >> 29))) * 0x100000001b3ull;
  }

  struct Scope {
    ExprId var;
    ExprId value;
  };
  std::unordered_multimap<std::uint64_t, ExprId> built_;
  std::unordered_map<ExprId, ExprId> in_scope_;
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

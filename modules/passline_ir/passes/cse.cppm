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
#include <vector>

#include <boost/unordered/unordered_flat_set.hpp>
export module passline.ir.passes:cse;
import passline;
import passline.ir;

namespace passline::ir::detail {

class CommonSubexpr final : public Rewrite {
 public:
  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind == Kind::let || n.kind == Kind::fn || n.kind == Kind::var) return list_node(out, n, list);
    out_ = &out;
    const Probe probe{n, list, static_cast<std::uint32_t>(hash(out, n, list))};
    const auto first = values_.find(probe);
    const ExprId number = first == values_.end() ? no_expr : *first;
    if (number != no_expr && holder_[number] != no_expr) {
      changed = true;
      ++reused;
      return holder_[number];
    }
    const ExprId id = list_node(out, n, list);
    grow_to(number_, id + 1, no_expr);
    grow_to(holder_, id + 1, no_expr);
    grow_to(hash_, id + 1, std::uint32_t{0});
    number_[id] = number == no_expr ? id : number;
    if (number == no_expr) {  // a new value, numbered by its first node
      hash_[id] = probe.hash;
      values_.insert(id);
    }
    return id;
  }

  /// Expressions replaced by the variable of an equal one.
  std::int64_t reused = 0;

  ExprId bind(BodyBuilder& out, ExprId, ExprId value) override {
    return out[value].kind == Kind::var ? value : no_expr;  // `let %b = %a` : %b is %a
  }

  void bound(ExprId old_var, ExprId new_var, ExprId value) override {
    // The variable stands for the value's number, while it is in scope.
    const ExprId number = number_of(value);
    grow_to(holder_, std::size_t{number} + 1, no_expr);
    if (holder_[number] != no_expr) return;
    holder_[number] = new_var;
    scopes_.push_back({old_var, number});
  }

  void unbind(ExprId old_var) override {
    if (!scopes_.empty() && scopes_.back().var == old_var) {
      holder_[scopes_.back().number] = no_expr;
      scopes_.pop_back();
    }
  }

 private:
  /// The first node built with the same value as `id` (itself if none was).
  ExprId number_of(ExprId id) const { return id < number_.size() && number_[id] != no_expr ? number_[id] : id; }

  static bool has_list(Kind k) { return k == Kind::call || k == Kind::tuple; }

  /// An expression looked up among the values: a node, its list, and the
  /// hash of what it computes.
  struct Probe {
    const Node& node;
    std::span<const ExprId> list;
    std::uint32_t hash;
  };
  /// The set holds each value's number, the first node that computes it,
  /// and `hash_` the hash of what it computes: so the set grows without
  /// reading a node, and a probe reads one only where the hashes agree.
  struct ValueHash {
    using is_transparent = void;  // the set mixes the bits further
    const CommonSubexpr* cse;
    std::size_t operator()(const Probe& p) const { return p.hash; }
    std::size_t operator()(ExprId number) const { return cse->hash_[number]; }
  };
  struct SameValue {
    using is_transparent = void;
    const CommonSubexpr* cse;
    bool operator()(ExprId a, ExprId b) const { return a == b; }  // the set holds distinct values
    bool operator()(const Probe& p, ExprId number) const {
      return p.hash == cse->hash_[number] && cse->same(*cse->out_, number, p.node, p.list);
    }
    bool operator()(ExprId number, const Probe& p) const { return (*this)(p, number); }
  };

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
  const BodyBuilder* out_ = nullptr;
  boost::unordered_flat_set<ExprId, ValueHash, SameValue> values_{0, ValueHash{this}, SameValue{this}};
  std::vector<ExprId> number_;  // node -> first node of its value
  std::vector<ExprId> holder_;  // value number -> the variable in scope holding it, or no_expr
  std::vector<std::uint32_t> hash_;  // value number -> the hash of what it computes
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
      .preserves = names<"InferType", "CallGraph">,
  };

  Function operator()(Function fn, const Module&, PassContext& ctx) const {
    detail::CommonSubexpr cse;
    fn.body = rewrite(std::move(fn.body), cse);
    ctx.statistics->add(info.name, "expressions reused", cse.reused);
    return fn;
  }
};

}  // namespace passline::ir

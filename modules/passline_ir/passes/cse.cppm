// EliminateCommonSubexpr: computes each value once where it is in scope.
//
// Each expression gets a value number, shared by every node built with the
// same operator, type and operand numbers (global value numbering on the
// rewritten body, values numbered in the order first met), so "equal" is one
// integer compare and the body stays a tree. When an expression
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
    const auto found = values_.find(probe);
    ValueIndex value = found == values_.end() ? no_value : *found;
    if (value != no_value && info_[value].holder != no_expr) {
      changed = true;
      ++reused;
      return info_[value].holder;
    }
    const ExprId id = list_node(out, n, list);
    if (value == no_value) {  // a new value, first computed by this node
      value = static_cast<ValueIndex>(info_.size());
      info_.push_back({.first = id, .hash = probe.hash, .holder = no_expr});
      values_.insert(value);
    }
    grow_to(value_of_, std::size_t{id} + 1, no_value);
    value_of_[id] = value;
    return id;
  }

  /// Expressions replaced by the variable of an equal one.
  std::int64_t reused = 0;

  ExprId bind(BodyBuilder& out, ExprId, ExprId value) override {
    return out[value].kind == Kind::var ? value : no_expr;  // `let %b = %a` : %b is %a
  }

  void bound(ExprId old_var, ExprId new_var, ExprId value) override {
    // The variable stands for the value, while it is in scope. (A let of a
    // closure or of a let binds no value: nothing is ever found equal to it.)
    const ValueIndex v = value < value_of_.size() ? value_of_[value] : no_value;
    if (v == no_value || info_[v].holder != no_expr) return;
    info_[v].holder = new_var;
    scopes_.push_back({old_var, v});
  }

  void unbind(ExprId old_var) override {
    if (!scopes_.empty() && scopes_.back().var == old_var) {
      info_[scopes_.back().value].holder = no_expr;
      scopes_.pop_back();
    }
  }

 private:
  /// Values are numbered densely, in the order first met, so that what is
  /// kept of each (`info_`) takes room by value, not by node.
  using ValueIndex = std::uint32_t;
  static constexpr ValueIndex no_value = 0xffffffffu;
  struct ValueInfo {
    ExprId first;        // the first node that computes it
    std::uint32_t hash;  // of what it computes: the set grows without reading a node
    ExprId holder;       // the variable in scope holding it, or no_expr
  };

  /// What stands for `id` in a comparison: its value, or, for a node with
  /// none (a variable, a let, a closure), the node itself, apart from every
  /// value.
  std::uint64_t number_of(ExprId id) const {
    const ValueIndex v = id < value_of_.size() ? value_of_[id] : no_value;
    return v != no_value ? v : (std::uint64_t{1} << 32) | id;
  }

  static bool has_list(Kind k) { return k == Kind::call || k == Kind::tuple; }

  /// An expression looked up among the values: a node, its list, and the
  /// hash of what it computes.
  struct Probe {
    const Node& node;
    std::span<const ExprId> list;
    std::uint32_t hash;
  };
  /// The set holds the values; a probe reads a value's first node only
  /// where the hashes agree.
  struct ValueHash {
    using is_transparent = void;  // the set mixes the bits further
    const CommonSubexpr* cse;
    std::size_t operator()(const Probe& p) const { return p.hash; }
    std::size_t operator()(ValueIndex v) const { return cse->info_[v].hash; }
  };
  struct SameValue {
    using is_transparent = void;
    const CommonSubexpr* cse;
    bool operator()(ValueIndex a, ValueIndex b) const { return a == b; }  // the set holds distinct values
    bool operator()(const Probe& p, ValueIndex v) const {
      const ValueInfo& info = cse->info_[v];
      return p.hash == info.hash && cse->same(*cse->out_, info.first, p.node, p.list);
    }
    bool operator()(ValueIndex v, const Probe& p) const { return (*this)(p, v); }
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

  /// Whether node `first` has the value `n` would have.
  bool same(const BodyBuilder& out, ExprId first, const Node& n, std::span<const ExprId> list) const {
    const Node& m = out[first];
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

  const BodyBuilder* out_ = nullptr;
  boost::unordered_flat_set<ValueIndex, ValueHash, SameValue> values_{0, ValueHash{this}, SameValue{this}};
  std::vector<ValueIndex> value_of_;  // node -> its value, or no_value
  std::vector<ValueInfo> info_;       // per value
  struct Scope {
    ExprId var;  // the let's variable (input) that holds the value
    ValueIndex value;
  };
  std::vector<Scope> scopes_;  // values held by a variable, the innermost last
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

// EliminateCommonSubexpr: computes each value once where it is in scope.
//
// Each expression gets a value number, shared by every node built with the
// same operator, type and operand numbers (global value numbering on the
// rewritten body, values numbered in the order first met), so "equal" is one
// integer compare and the body stays a tree. A literal is not computed: it
// gets no value number, equal literals make equal operands, and a literal is
// never replaced by a variable. When an expression
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
    if (is_literal(n.kind)) {
      // Marked with the hash of what it is, so that an expression using it
      // is keyed without reading the literal again.
      const ExprId id = list_node(out, n, list);
      grow_to(value_of_, std::size_t{id} + 1, nothing);
      value_of_[id] = literal_mark | (literal_hash(n) & chain_end);
      return id;
    }
    const auto [hash, anchor] = key(out, n, list);
    const Probe probe{n, list, hash};
    auto [value, crowded] = find(probe, anchor);
    if (value != no_value && info_[value].holder != no_expr) {
      changed = true;
      ++reused;
      return info_[value].holder;
    }
    const ExprId id = list_node(out, n, list);
    grow_to(value_of_, std::size_t{id} + 1, nothing);
    if (value == no_value && info_.size() < chain_end) {  // a new value, first computed by this node
      value = static_cast<ValueIndex>(info_.size());
      room_for_one_more(info_);
      info_.push_back({.first = id, .hash = probe.hash, .holder = no_expr, .next = chain_end, .users = chain_end});
      if (crowded) {
        by_hash_.insert(value);
      } else {
        info_[value].next = users(anchor);
        set_users(anchor, value);
      }
    }
    if (value != no_value) value_of_[id] = value;
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
    const ValueIndex v = value_at(value);
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
  /// The end of a list of values, and one more than the last value index.
  static constexpr ValueIndex chain_end = 0x3fffffffu;
  /// An entry of value_of_ is a value index, or, with these two top bits,
  /// no value (and, for a variable, the values kept with it: a list of
  /// users), or a literal (and its hash).
  static constexpr ValueIndex no_value_mark = 0x80000000u;
  static constexpr ValueIndex literal_mark = 0xc0000000u;
  /// The entry of a node with no value and no users.
  static constexpr ValueIndex nothing = no_value_mark | chain_end;
  struct ValueInfo {
    ExprId first;        // the first node that computes it
    std::uint32_t hash;  // of what it computes: the set grows without reading a node
    ExprId holder;       // the variable in scope holding it, or no_expr
    ValueIndex next;     // the value before it with the same anchor, or chain_end
    ValueIndex users;    // the last value anchored at this one, or chain_end
  };
  /// An expression looked up among the values: a node, its list, and the
  /// hash of what it computes.
  struct Probe {
    const Node& node;
    std::span<const ExprId> list;
    std::uint32_t hash;
  };

  // -- Where a value is looked for ---------------------------------------------
  //
  // A value with operands is kept with its anchor: the latest of its
  // operands, each counted as the first node that computes its value (or
  // itself, if it has none), so that equal expressions have the same anchor.
  // The anchor is most often a few nodes back, so the values kept with it
  // are in cache, where a table of every value of a function of 10^6
  // operations is not. Once an anchor holds chain_limit values, the next go
  // to a table by hash, as do values with no operand (constants, globals):
  // a look-up costs at most chain_limit compares whatever the program.

  static constexpr std::size_t chain_limit = 8;

  /// The values kept with `anchor`, the last first. A node that has a value
  /// keeps them with its value; one that has none (a variable) in its own
  /// entry of value_of_, beside the mark of no value.
  ValueIndex users(ExprId anchor) const {
    const ValueIndex v = value_at(anchor);
    if (v != no_value) return info_[v].users;
    return anchor < value_of_.size() ? value_of_[anchor] & chain_end : chain_end;  // never a literal
  }
  void set_users(ExprId anchor, ValueIndex last) {
    const ValueIndex v = value_at(anchor);
    if (v != no_value) {
      info_[v].users = last;
    } else {
      grow_to(value_of_, std::size_t{anchor} + 1, nothing);
      value_of_[anchor] = no_value_mark | last;
    }
  }

  /// The value `p` computes, if one is known, and whether a new one would go
  /// to the table by hash.
  std::pair<ValueIndex, bool> find(const Probe& p, ExprId anchor) const {
    std::size_t length = 0;
    if (anchor != no_expr) {
      for (ValueIndex v = users(anchor); v != chain_end; v = info_[v].next, ++length) {
        if (info_[v].hash == p.hash && same(*out_, info_[v].first, p.node, p.list)) return {v, false};
      }
      if (length < chain_limit) return {no_value, false};
    }
    const auto found = by_hash_.find(p);
    return {found == by_hash_.end() ? no_value : *found, true};
  }

  /// The value of node `id`, or no_value.
  ValueIndex value_at(ExprId id) const {
    const ValueIndex v = id < value_of_.size() ? value_of_[id] : no_value;
    return v < chain_end ? v : no_value;
  }

  /// What stands for `id` in a comparison: its value; for a literal, its
  /// hash (equal for equal literals, but two literals may share it); for
  /// a node with neither (a variable, a let, a closure), the node itself.
  /// The three kinds of number are apart.
  std::uint64_t number_of(ExprId id) const {
    const ValueIndex entry = id < value_of_.size() ? value_of_[id] : nothing;
    if (entry < chain_end) return entry;
    if ((entry & literal_mark) == literal_mark) return std::uint64_t{literal_number} << 32 | (entry & chain_end);
    return std::uint64_t{1} << 32 | id;
  }
  static constexpr std::uint32_t literal_number = 2;

  static bool has_list(Kind k) { return k == Kind::call || k == Kind::tuple; }
  static bool is_literal(Kind k) { return k == Kind::int_const || k == Kind::float_const || k == Kind::bool_const; }
  static std::uint64_t literal_hash(const Node& n) {
    const std::uint64_t h = mix(static_cast<std::uint64_t>(n.kind), n.type.id);
    return mix(h, static_cast<std::uint64_t>(n.b) << 32 | n.a);
  }

  /// The table by hash holds values; a probe reads a value's first node
  /// only where the hashes agree.
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

  /// The hash of what `n` computes, and its anchor (no_expr if it has no
  /// operand), from one walk over its operands.
  struct Key {
    std::uint32_t hash;
    ExprId anchor;
  };
  Key key(const BodyBuilder& out, const Node& n, std::span<const ExprId> list) const {
    std::uint64_t h = mix(static_cast<std::uint64_t>(n.kind) << 8 | static_cast<std::uint64_t>(n.op), n.type.id);
    ExprId anchor = no_expr;
    auto operand = [&](ExprId o) {
      if (o == no_expr) {
        h = mix(h, o);
        return;
      }
      const std::uint64_t number = number_of(o);
      h = mix(h, number);
      if (number >> 32 == literal_number) return;  // found among the values of the other operands
      const ExprId canonical = number >> 32 ? o : info_[number].first;
      if (anchor == no_expr || canonical > anchor) anchor = canonical;
    };
    switch (n.kind) {
      case Kind::global:
        for (char c : out.name_of(n)) h = mix(h, static_cast<unsigned char>(c));
        return {static_cast<std::uint32_t>(h), no_expr};
      case Kind::proj: operand(n.a); return {static_cast<std::uint32_t>(mix(h, n.b)), anchor};
      default: break;
    }
    for (ExprId o : {n.a, has_list(n.kind) ? no_expr : n.b, has_list(n.kind) ? no_expr : n.c}) operand(o);
    for (ExprId e : list) operand(e);
    return {static_cast<std::uint32_t>(h), anchor};
  }

  /// Whether node `first` has the value `n` would have.
  bool same(const BodyBuilder& out, ExprId first, const Node& n, std::span<const ExprId> list) const {
    const Node& m = out[first];
    if (m.kind != n.kind || m.op != n.op || m.type != n.type) return false;
    auto same_operand = [&](ExprId x, ExprId y) {
      if (x == y) return true;
      if (x == no_expr || y == no_expr) return false;
      const std::uint64_t number = number_of(x);
      if (number != number_of(y)) return false;
      if (number >> 32 != literal_number) return true;
      const Node& a = out[x];
      const Node& b = out[y];
      return a.kind == b.kind && a.type == b.type && a.a == b.a && a.b == b.b;
    };
    switch (n.kind) {
      case Kind::global: return out.name_of(m) == out.name_of(n);
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
  boost::unordered_flat_set<ValueIndex, ValueHash, SameValue> by_hash_{0, ValueHash{this}, SameValue{this}};
  std::vector<ValueIndex> value_of_;  // node -> its value; or no_value_mark and, for a variable, its users
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

// Modules and functions of the reference IR, and their structural identity.
//
// A module is a list of global functions, each holding its body by shared
// pointer. Copying a module copies those pointers, never a body, and a pass
// that changes one function leaves the others shared with its input. Structural
// hashing and equality compare bodies up to the names of variables (alpha
// equivalence), types included; a body caches its hash, so fingerprinting a
// module re-hashes only the functions a pass rebuilt.
module;
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
export module passline.ir:functions;
import :types;
import :body;
import :source;

export namespace passline::ir {

/// The operands of node `n`, in order, list elements included; `lists` (a
/// Body, a BodyBuilder) holds its list.
template <class Lists, class F>
void for_each_operand(const Node& n, const Lists& lists, F&& f) {
  const auto& body = lists;
  switch (n.kind) {
    case Kind::var:
    case Kind::int_const:
    case Kind::float_const:
    case Kind::bool_const:
    case Kind::global: return;
    case Kind::op:
      f(n.a);
      if (n.b != no_expr) f(n.b);
      if (n.c != no_expr) f(n.c);
      return;
    case Kind::call:
      f(n.a);
      for (ExprId arg : body.list(n.b, n.c)) f(arg);
      return;
    case Kind::let:
    case Kind::if_:
      f(n.a);
      f(n.b);
      f(n.c);
      return;
    case Kind::tuple:
      for (ExprId e : body.list(n.b, n.c)) f(e);
      return;
    case Kind::proj: f(n.a); return;
    case Kind::fn:
      for (ExprId p : body.list(n.a, n.b)) f(p);
      f(n.c);
      return;
  }
}

/// The operands of node `id` of `body` (a Body or a BodyBuilder), in order,
/// list elements included.
template <class Nodes, class F>
void for_each_child(const Nodes& body, ExprId id, F&& f) {
  for_each_operand(body[id], body, std::forward<F>(f));
}

struct Function {
  std::string name;
  std::shared_ptr<const Body> body;
  /// Kept by DeadCodeElimination even when nothing calls it.
  bool exported = false;
  /// Function passes leave it as it is.
  bool skip_optimization = false;
  std::uint32_t loc = 0;
};

/// A module: named global functions, and the source they came from.
struct Module {
  std::vector<Function> functions;
  std::shared_ptr<const Source> source = std::make_shared<const Source>("<memory>", "");

  /// Each function's position, by name.
  std::unordered_map<std::string_view, std::size_t> index() const {
    std::unordered_map<std::string_view, std::size_t> positions;
    for (std::size_t i = 0; i < functions.size(); ++i) positions.emplace(functions[i].name, i);
    return positions;
  }

  /// The index of the function named `name`, or -1.
  std::ptrdiff_t find(std::string_view name) const {
    for (std::size_t i = 0; i < functions.size(); ++i) {
      if (functions[i].name == name) return static_cast<std::ptrdiff_t>(i);
    }
    return -1;
  }
};

namespace detail {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  v *= 0x9e3779b97f4a7c15ull;
  v ^= v >> 32;
  return (h ^ v) * 0x100000001b3ull + 0x7f4a7c15ull;
}

inline std::uint64_t hash_text(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

/// The payload of a node that is not an operand: constants, names of globals, indices.
inline std::uint64_t payload(const Body& body, ExprId id) {
  const Node& n = body[id];
  switch (n.kind) {
    case Kind::int_const:
    case Kind::float_const: return (static_cast<std::uint64_t>(n.b) << 32) | n.a;
    case Kind::bool_const: return n.a;
    case Kind::global: return hash_text(body.name(id));
    case Kind::proj: return n.b;
    default: return 0;
  }
}

/// Visits the tree under `root` in pre-order, without recursion; vars are
/// numbered in the order they are first met (binders come before uses).
template <class Visit>
void walk_numbered(const Body& body, Visit&& visit) {
  constexpr std::uint32_t unnumbered = 0xffffffffu;
  std::vector<ExprId> stack;
  std::vector<std::uint32_t> numbers(body.size(), unnumbered);
  std::uint32_t next = 0;
  auto number = [&](ExprId var) {
    if (numbers[var] == unnumbered) numbers[var] = next++;
    return numbers[var];
  };
  for (ExprId p : body.params()) visit(p, number(p));
  stack.push_back(body.root());
  while (!stack.empty()) {
    const ExprId id = stack.back();
    stack.pop_back();
    visit(id, body[id].kind == Kind::var ? number(id) : 0u);
    const std::size_t first = stack.size();  // children go on last-first, to come off in order
    for_each_child(body, id, [&](ExprId c) { stack.push_back(c); });
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  }
}

}  // namespace detail

inline std::uint64_t Body::fingerprint() const {
  if (const std::uint64_t cached = fingerprint_.load(std::memory_order_relaxed)) return cached;
  std::uint64_t h = detail::mix(0x51ed2701, result_.id);
  detail::walk_numbered(*this, [&](ExprId id, std::uint32_t var_number) {
    const Node& n = nodes_[id];
    h = detail::mix(h, (static_cast<std::uint64_t>(n.kind) << 40) | (static_cast<std::uint64_t>(n.op) << 32) | n.type.id);
    h = detail::mix(h, n.kind == Kind::var ? var_number : detail::payload(*this, id));
  });
  if (h == 0) h = 1;
  fingerprint_.store(h, std::memory_order_relaxed);
  return h;
}

/// Whether two bodies are the same up to the names of their variables.
inline bool structurally_equal(const Body& x, const Body& y) {
  if (&x == &y) return true;
  if (x.fingerprint() != y.fingerprint()) return false;
  std::vector<std::pair<ExprId, std::uint32_t>> left;
  std::vector<std::pair<ExprId, std::uint32_t>> right;
  detail::walk_numbered(x, [&](ExprId id, std::uint32_t n) { left.emplace_back(id, n); });
  detail::walk_numbered(y, [&](ExprId id, std::uint32_t n) { right.emplace_back(id, n); });
  if (left.size() != right.size() || x.result() != y.result()) return false;
  for (std::size_t i = 0; i < left.size(); ++i) {
    const Node& a = x[left[i].first];
    const Node& b = y[right[i].first];
    if (a.kind != b.kind || a.op != b.op || a.type != b.type) return false;
    if (a.kind == Kind::var ? left[i].second != right[i].second
                            : detail::payload(x, left[i].first) != detail::payload(y, right[i].first)) {
      return false;
    }
    if (a.kind == Kind::global && x.name(left[i].first) != y.name(right[i].first)) return false;
    if ((a.kind == Kind::call || a.kind == Kind::tuple) && a.c != b.c) return false;
    if (a.kind == Kind::fn && a.b != b.b) return false;
  }
  return true;
}

inline bool same_attributes(const Function& a, const Function& b) {
  return a.name == b.name && a.exported == b.exported && a.skip_optimization == b.skip_optimization;
}

/// The module's structural hash: each function's name, attributes and body.
inline std::uint64_t fingerprint(const Module& m) {
  std::uint64_t h = 0x6d6f64;
  for (const Function& f : m.functions) {
    h = detail::mix(h, detail::hash_text(f.name));
    h = detail::mix(h, (f.exported ? 1u : 0u) | (f.skip_optimization ? 2u : 0u));
    h = detail::mix(h, f.body->fingerprint());
  }
  return h;
}

/// Structural equality of modules: the same functions, in order, with equal bodies.
inline bool structurally_equal(const Module& a, const Module& b) {
  if (a.functions.size() != b.functions.size()) return false;
  for (std::size_t i = 0; i < a.functions.size(); ++i) {
    if (!same_attributes(a.functions[i], b.functions[i]) ||
        !structurally_equal(*a.functions[i].body, *b.functions[i].body)) {
      return false;
    }
  }
  return true;
}

/// The cheap identity test: the same functions holding the very same bodies.
inline bool identical(const Module& a, const Module& b) {
  if (a.functions.size() != b.functions.size()) return false;
  for (std::size_t i = 0; i < a.functions.size(); ++i) {
    if (a.functions[i].body != b.functions[i].body || !same_attributes(a.functions[i], b.functions[i])) return false;
  }
  return true;
}

}  // namespace passline::ir

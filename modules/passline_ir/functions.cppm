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
#include <optional>
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

/// Whether `c` may be part of a name (`%x1`, `@main`) in the text format.
constexpr bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Whether the text format can write `name` and read it back: one or more
/// letters, digits and underscores. The parser reads no other names, and
/// the verifier accepts no other.
constexpr bool is_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

/// How deep expressions and types may nest. The parser reads no deeper, the
/// verifier accepts no deeper, and the passes build no deeper, so whatever
/// the printer writes reads back. Deep enough for any program a person or a
/// pass writes; shallow enough for the recursive walks (the printer) to
/// stay in a small stack.
inline constexpr std::uint32_t max_nesting = 256;

/// Each node's nesting: how deep the expressions under it nest, as the text
/// format writes them, up to max_nesting + 1 (anything deeper counts as
/// that, so that two bytes hold it). A let's body continues its block and
/// does not nest; every other operand does, so a chain of a million lets
/// nests 1 deep. Operands come before their users in a well-formed body; one
/// that does not counts as a leaf here.
template <class Nodes>
std::vector<std::uint16_t> nesting(const Nodes& body) {
  static_assert(max_nesting < 0xffff);
  std::vector<std::uint16_t> height = detail::node_table(body.size(), std::uint16_t{0});
  for (ExprId id = 0; id < body.size(); ++id) {
    const Node& n = body[id];
    std::uint32_t h = 0;
    auto below = [&](ExprId c) -> std::uint32_t { return c < id ? height[c] : 0; };  // an ill-formed operand: left to the verifier
    if (n.kind == Kind::let) {
      h = std::max(below(n.b) + 1, below(n.c));
    } else {
      for_each_child(body, id, [&](ExprId c) { h = std::max(h, below(c) + 1); });
    }
    height[id] = static_cast<std::uint16_t>(std::min(h, max_nesting + 1));
  }
  return height;
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

/// A value's bits spread over the word (so that two values can be combined
/// by xor before one mix).
inline std::uint64_t spread(std::uint64_t v) {
  v *= 0xbf58476d1ce4e5b9ull;
  return v ^ (v >> 31);
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

/// The tree under a body's root in pre-order, after the parameters, without
/// recursion; vars are numbered in the order they are first met (binders come
/// before uses). A pull loop, so that what a caller accumulates stays in
/// registers.
class NumberedWalk {
 public:
  explicit NumberedWalk(const Body& body) : body_(body), numbers_(body.size(), unnumbered) {
    stack_.reserve(64);
    stack_.push_back(body.root());
    const std::span<const ExprId> params = body.params();
    stack_.insert(stack_.end(), params.rbegin(), params.rend());
  }

  /// The next node, and for a var its number (else 0); false at the end.
  inline bool next(ExprId& id, std::uint32_t& number) {
    if (stack_.empty()) return false;
    id = stack_.back();
    stack_.pop_back();
    const Node& n = body_[id];
    number = 0;
    if (n.kind == Kind::var) {
      if (numbers_[id] == unnumbered) numbers_[id] = next_++;
      number = numbers_[id];
      return true;
    }
    const std::size_t first = stack_.size();  // children go on last-first, to come off in order
    for_each_operand(n, body_, [&](ExprId c) { stack_.push_back(c); });
    std::reverse(stack_.begin() + static_cast<std::ptrdiff_t>(first), stack_.end());
    return true;
  }

 private:
  static constexpr std::uint32_t unnumbered = 0xffffffffu;
  const Body& body_;
  std::vector<ExprId> stack_;
  std::vector<std::uint32_t> numbers_;
  std::uint32_t next_ = 0;
};

/// A body's fingerprint, from its nodes in the order NumberedWalk meets them:
/// fed by that walk, or by any walk in the same order (the printer's), and
/// kept in the body. Each node's hash is salted with its place in the order,
/// and the hashes are summed: the sum is all that each step waits for, so the
/// steps of nodes in a row overlap.
class Fingerprinter {
 public:
  explicit Fingerprinter(const Body& body) : body_(body), h_(spread(0x51ed2701 ^ body.result().id)) {}

  /// Node `id`, and for a var its number (else 0).
  inline void node(ExprId id, std::uint32_t var_number) {
    const Node& n = body_[id];
    add(shape(n) ^ spread(n.kind == Kind::var ? var_number : payload(body_, id)));
  }
  /// Var `id`, numbered `number`.
  inline void var(ExprId id, std::uint32_t number) { add(shape(body_[id]) ^ spread(number)); }

  /// The fingerprint of all the nodes given, now kept in the body.
  std::uint64_t finish() {
    std::uint64_t h = mix(h_, place_);
    if (h == 0) h = 1;  // 0 means "not computed"
    body_.fingerprint_.store(h, std::memory_order_relaxed);
    return h;
  }

 private:
  static inline std::uint64_t shape(const Node& n) {
    return (static_cast<std::uint64_t>(n.kind) << 40) | (static_cast<std::uint64_t>(n.op) << 32) | n.type.id;
  }
  inline void add(std::uint64_t value) {
    place_ += 0x9e3779b97f4a7c15ull;  // the next place in the order
    h_ += spread(value + place_);
  }
  const Body& body_;
  std::uint64_t h_;
  std::uint64_t place_ = 0;
};

}  // namespace detail

inline std::uint64_t Body::fingerprint() const {
  if (const std::uint64_t cached = fingerprint_.load(std::memory_order_relaxed)) return cached;
  detail::Fingerprinter hash(*this);
  detail::NumberedWalk walk(*this);
  ExprId id = no_expr;
  std::uint32_t var_number = 0;
  while (walk.next(id, var_number)) hash.node(id, var_number);
  return hash.finish();
}

inline std::optional<std::uint64_t> Body::cached_fingerprint() const {
  if (const std::uint64_t cached = fingerprint_.load(std::memory_order_relaxed)) return cached;
  return std::nullopt;
}

/// Whether two bodies are the same up to the names of their variables.
inline bool structurally_equal(const Body& x, const Body& y) {
  if (&x == &y) return true;
  if (x.fingerprint() != y.fingerprint()) return false;
  std::vector<std::pair<ExprId, std::uint32_t>> left;
  std::vector<std::pair<ExprId, std::uint32_t>> right;
  ExprId id = no_expr;
  std::uint32_t number = 0;
  for (detail::NumberedWalk walk(x); walk.next(id, number);) left.emplace_back(id, number);
  for (detail::NumberedWalk walk(y); walk.next(id, number);) right.emplace_back(id, number);
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

/// The module's structural hash when every body's is computed already (so
/// that it costs no walk), else none.
inline std::optional<std::uint64_t> cached_fingerprint(const Module& m) {
  for (const Function& f : m.functions) {
    if (!f.body->cached_fingerprint()) return std::nullopt;
  }
  return fingerprint(m);
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

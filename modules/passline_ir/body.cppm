// Function bodies: an immutable arena of compact nodes.
//
// A body holds every node of one function in a vector of 24-byte nodes that
// refer to each other by 32-bit index. A variable use is a reference to its
// binder (a `var` node), so uses cost nothing. Bodies never change once built:
// a pass that leaves a function alone hands the same body back, so "did this
// pass change anything?" is a pointer comparison and keeping the IR from
// before a pass costs no copy. Lists (call arguments, tuple elements,
// parameters) live in one side vector, names in one string.
module;
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>
export module passline.ir:body;
import :types;

export namespace passline::ir {

/// Index of a node in its body.
using ExprId = std::uint32_t;
inline constexpr ExprId no_expr = 0xffffffffu;

enum class Kind : std::uint8_t {
  var,        // a binder; uses refer to it. a, b: name
  int_const,  // a, b: low and high 32 bits
  float_const,
  bool_const,  // a: 0 or 1
  op,          // op; a, b, c: operands (as many as the operator takes)
  call,        // a: callee; b, c: arguments in the list
  global,      // a, b: name of a global function
  let,         // a: var; b: value; c: body
  if_,         // a: condition; b: then; c: else
  tuple,       // b, c: elements in the list
  proj,        // a: tuple; b: index
  fn,          // a, b: parameters (vars) in the list; c: body; type: the function type
};

/// Variables, constants and globals: nodes with no operands, which may have
/// several users (every other node has one).
constexpr bool is_leaf(Kind k) {
  return k == Kind::var || k == Kind::int_const || k == Kind::float_const || k == Kind::bool_const ||
         k == Kind::global;
}

enum class Op : std::uint8_t { add, sub, mul, div, mod, neg, eq, ne, lt, le, gt, ge, and_, or_, not_, select };

inline constexpr Op all_ops[] = {Op::add, Op::sub, Op::mul, Op::div, Op::mod, Op::neg, Op::eq, Op::ne,
                                 Op::lt,  Op::le,  Op::gt,  Op::ge,  Op::and_, Op::or_, Op::not_, Op::select};

constexpr std::string_view op_name(Op op) {
  constexpr std::string_view names[] = {"add", "sub", "mul", "div", "mod", "neg", "eq",  "ne",
                                        "lt",  "le",  "gt",  "ge",  "and", "or",  "not", "select"};
  return names[static_cast<int>(op)];
}

constexpr int op_arity(Op op) {
  switch (op) {
    case Op::neg:
    case Op::not_: return 1;
    case Op::select: return 3;
    default: return 2;
  }
}

/// One node: 24 bytes. `loc` is a byte offset into the module's source.
struct Node {
  Kind kind;
  Op op = Op::add;
  std::uint16_t flags = 0;
  Type type = {};
  std::uint32_t a = no_expr;
  std::uint32_t b = no_expr;
  std::uint32_t c = no_expr;
  std::uint32_t loc = 0;
};
static_assert(sizeof(Node) == 24);

class BodyBuilder;

namespace detail {
class Fingerprinter;
class TypeWriter;

/// Asks the system to back the room of a large table with 2 MiB pages,
/// before it is written: a pass reads a large body's nodes and tables all
/// over, and with 4 KiB pages most of those reads also miss the TLB (one
/// function of 10^6 operations takes some 80 MB). A hint: where the system
/// says no (transparent huge pages off), nothing changes; memory is taken
/// only as pages are written, as before, 2 MiB at a time.
inline void prefer_huge_pages(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) / huge * huge;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / huge * huge;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}
template <class T>
void prefer_huge_pages(const std::vector<T>& table) {
  prefer_huge_pages(table.data(), table.capacity() * sizeof(T));
}

/// Room in `table` for at least `size` entries: where it has less, its
/// room doubles (or goes to `size`, if more), as a vector's does, and is
/// asked for in 2 MiB pages once large.
template <class T>
void reserve_at_least(std::vector<T>& table, std::size_t size) {
  if (table.capacity() >= size) return;
  table.reserve(std::max(size, 2 * table.capacity()));
  prefer_huge_pages(table);
}

/// Room in `table` for one more entry (reserve_at_least).
template <class T>
void room_for_one_more(std::vector<T>& table) {
  reserve_at_least(table, table.size() + 1);
}

/// The stack of an iterative walk over a body of `nodes` nodes, holding
/// `first`. Its room is a frame per node, reserved (address space only): a
/// let chain holds a frame per let, and the stack never regrows and copies
/// itself.
template <class Frame>
std::vector<Frame> walk_stack(std::size_t nodes, Frame first) {
  std::vector<Frame> stack;
  stack.reserve(nodes + 1);
  stack.push_back(first);
  return stack;
}

/// A per-node table of `size` entries, all `fill`, in 2 MiB pages if large.
template <class T>
std::vector<T> node_table(std::size_t size, T fill) {
  std::vector<T> table;
  table.reserve(size);
  prefer_huge_pages(table);
  table.resize(size, fill);
  return table;
}

/// Grows a per-node table to `size` entries, new ones `fill`. Its room
/// doubles, as a vector's does, but only the entries up to `size` are
/// written: a table filled up to twice its use would take memory (the
/// pages written) for the room it has not used.
template <class T>
void grow_to(std::vector<T>& table, std::size_t size, T fill) {
  if (table.size() >= size) return;
  reserve_at_least(table, size);
  table.resize(size, fill);
}

/// What a builder that writes over the body it rewrites knows of that body.
struct Overlay {
  static constexpr std::uint8_t kind_bits = 0x0f, done = 0x10, shared = 0x20;
  Overlay(std::size_t size, std::vector<std::uint8_t> node_state)
      : input_size(size), state(std::move(node_state)), slot(std::allocator<std::uint32_t>().allocate(size)) {
    prefer_huge_pages(slot, size * sizeof(std::uint32_t));
  }
  ~Overlay() { std::allocator<std::uint32_t>().deallocate(slot, input_size); }
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  std::size_t input_size = 0;
  std::size_t written = 0;
  /// Per input node: its kind, whether the rewrite is done reading it, and
  /// whether it is a leaf with several users (never done: it is read again).
  std::vector<std::uint8_t> state;
  /// Input nodes written over before the rewrite was done with them, in the
  /// order written over, which is the order of their indices.
  std::vector<Node> displaced;
  /// Per input node written over before it was done with: its place in
  /// `displaced`. Only those entries are ever written (the room is address
  /// space, and only its pages in the stretch of the displaced nodes take
  /// memory), and a look-up is an index. A table of the displaced nodes
  /// themselves at their own indices took a page for every 170 nodes of
  /// that stretch, though about one node in seven is displaced there (some
  /// 40 MB for a function of 10^6 operations); a hash map of them missed
  /// the cache once a rewrite that grows its body ran far ahead of its input.
  std::uint32_t* slot;
};
}  // namespace detail

/// The body of a function: its parameters, result type, and expression.
class Body {
 public:
  inline const Node& operator[](ExprId id) const { return nodes_[id]; }
  inline std::size_t size() const { return nodes_.size(); }
  inline std::span<const Node> nodes() const { return nodes_; }

  inline std::span<const ExprId> params() const { return list(params_start_, params_count_); }
  inline ExprId root() const { return root_; }
  inline Type result() const { return result_; }

  /// The elements of a node's list: call arguments, tuple elements, fn parameters.
  inline std::span<const ExprId> list(std::uint32_t start, std::uint32_t count) const {
    return std::span<const ExprId>(lists_).subspan(start, count);
  }
  inline std::span<const ExprId> args(ExprId call) const { return list(nodes_[call].b, nodes_[call].c); }
  inline std::span<const ExprId> elements(ExprId tuple) const { return list(nodes_[tuple].b, nodes_[tuple].c); }
  inline std::span<const ExprId> fn_params(ExprId fn) const { return list(nodes_[fn].a, nodes_[fn].b); }
  /// The name of a var or global node.
  inline std::string_view name(ExprId id) const { return std::string_view(names_).substr(nodes_[id].a, nodes_[id].b); }

  inline std::int64_t int_value(ExprId id) const {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(nodes_[id].a) |
                                     (static_cast<std::uint64_t>(nodes_[id].b) << 32));
  }
  inline double float_value(ExprId id) const { return std::bit_cast<double>(static_cast<std::uint64_t>(int_value(id))); }
  inline bool bool_value(ExprId id) const { return nodes_[id].a != 0; }

  /// Whether vars of different name slots have different names: true when
  /// each name was stored once (as the parser does) and kept since, so that a
  /// printer needs compare no names, only slots. A var added by name makes it
  /// false for the body it goes in, and those built from it.
  inline bool distinct_names() const { return distinct_names_; }
  /// How many bytes the names take: a bound on the offset of a name.
  inline std::size_t names_size() const { return names_.size(); }

  /// The structural hash of the body, computed once (by this, or by a print).
  std::uint64_t fingerprint() const;
  /// The structural hash if it is computed already.
  std::optional<std::uint64_t> cached_fingerprint() const;

 private:
  friend class BodyBuilder;
  friend class detail::Fingerprinter;
  friend class detail::TypeWriter;
  std::vector<Node> nodes_;
  std::vector<ExprId> lists_;
  std::string names_;
  std::uint32_t params_start_ = 0;
  std::uint32_t params_count_ = 0;
  ExprId root_ = no_expr;
  Type result_ = {};
  bool distinct_names_ = false;
  mutable std::atomic<std::uint64_t> fingerprint_{0};
};

namespace detail {

/// Writes types on the nodes of a body that nothing else holds, in place:
/// how type inference annotates a large body without a table of its types
/// beside it and a second pass to copy them over. A body whose types change
/// loses its cached fingerprint; one whose types stay as they were keeps it.
class TypeWriter {
 public:
  explicit TypeWriter(Body& body) : body_(body) {}
  TypeWriter(const TypeWriter&) = delete;
  TypeWriter& operator=(const TypeWriter&) = delete;
  ~TypeWriter() {
    if (changed_) body_.fingerprint_.store(0, std::memory_order_relaxed);
  }
  inline Type operator[](ExprId id) const { return body_.nodes_[id].type; }
  inline void set(ExprId id, Type type) {
    Type& at = body_.nodes_[id].type;
    changed_ |= at != type;
    at = type;
  }
  void set_result(Type type) {
    changed_ |= body_.result_ != type;
    body_.result_ = type;
  }

 private:
  Body& body_;
  bool changed_ = false;
};

}  // namespace detail

/// Builds a body node by node. Started from an existing body, it keeps that
/// body's names, so vars copied from it keep theirs for free.
class BodyBuilder {
 public:
  BodyBuilder() = default;
  explicit BodyBuilder(const Body& names_from) : distinct_names_(names_from.distinct_names_) {
    names_ = names_from.names_;
  }

  /// A builder holding every node of `body`, to annotate in place: the
  /// body's own storage when nothing else holds it (it is left empty), else
  /// a copy. `body` is reset either way.
  static BodyBuilder take(std::shared_ptr<const Body>& body) {
    BodyBuilder b;
    b.distinct_names_ = body->distinct_names_;
    if (body.use_count() == 1) {
      // The only owner: nobody can see the body change. Bodies are made
      // mutable (make_shared<Body>), so casting the const away is sound.
      auto& owned = const_cast<Body&>(*body);
      b.nodes_ = std::move(owned.nodes_);
      b.lists_ = std::move(owned.lists_);
      b.names_ = std::move(owned.names_);
    } else {
      b.nodes_ = body->nodes_;
      b.lists_ = body->lists_;
      b.names_ = body->names_;
    }
    body.reset();
    return b;
  }

  inline ExprId var(std::string_view name, Type type, std::uint32_t loc) {
    distinct_names_ = false;  // the name may be stored already
    auto [offset, length] = intern_name(name);
    return add({.kind = Kind::var, .type = type, .a = offset, .b = length, .loc = loc});
  }
  /// A name stored once, for vars that have it to share (`var_named`): its
  /// offset and length among the names.
  inline std::pair<std::uint32_t, std::uint32_t> store_name(std::string_view name) { return intern_name(name); }
  /// A name stored by `store_name`.
  inline std::string_view stored_name(std::pair<std::uint32_t, std::uint32_t> name) const {
    return std::string_view(names_).substr(name.first, name.second);
  }
  /// A var with a name stored by `store_name`. A builder whose vars are all
  /// made so, or copied, from one whose names are distinct, builds a body
  /// with distinct names, if it stores no name twice.
  inline ExprId var_named(std::pair<std::uint32_t, std::uint32_t> name, Type type, std::uint32_t loc) {
    return add({.kind = Kind::var, .type = type, .a = name.first, .b = name.second, .loc = loc});
  }
  /// A var with the name of var `from` of `body` (the body this builder started from).
  inline ExprId var_like(const Body& body, ExprId from, Type type) {
    const Node& n = body[from];
    return add({.kind = Kind::var, .type = type, .a = n.a, .b = n.b, .loc = n.loc});
  }
  inline ExprId int_const(std::int64_t value, std::uint32_t loc) {
    const auto bits = static_cast<std::uint64_t>(value);
    return add({.kind = Kind::int_const, .type = types::i64, .a = static_cast<std::uint32_t>(bits),
                .b = static_cast<std::uint32_t>(bits >> 32), .loc = loc});
  }
  /// A float constant. A NaN is stored as the one quiet NaN of its sign
  /// (`nan`, `-nan`), all the text format can say: no operation tells NaNs
  /// apart by payload, and the printed module must read back the same.
  inline ExprId float_const(double value, std::uint32_t loc) {
    if (value != value) value = std::copysign(std::numeric_limits<double>::quiet_NaN(), value);
    const auto bits = std::bit_cast<std::uint64_t>(value);
    return add({.kind = Kind::float_const, .type = types::f64, .a = static_cast<std::uint32_t>(bits),
                .b = static_cast<std::uint32_t>(bits >> 32), .loc = loc});
  }
  inline ExprId bool_const(bool value, std::uint32_t loc) {
    return add({.kind = Kind::bool_const, .type = types::boolean, .a = value ? 1u : 0u, .loc = loc});
  }
  inline ExprId op(Op op, std::span<const ExprId> operands, Type type, std::uint32_t loc) {
    Node n{.kind = Kind::op, .op = op, .type = type, .loc = loc};
    if (operands.size() > 0) n.a = operands[0];
    if (operands.size() > 1) n.b = operands[1];
    if (operands.size() > 2) n.c = operands[2];
    return add(n);
  }
  inline ExprId call(ExprId callee, std::span<const ExprId> args, Type type, std::uint32_t loc) {
    auto [start, count] = add_list(args);
    return add({.kind = Kind::call, .type = type, .a = callee, .b = start, .c = count, .loc = loc});
  }
  inline ExprId global(std::string_view name, Type type, std::uint32_t loc) {
    auto [offset, length] = intern_name(name);
    return add({.kind = Kind::global, .type = type, .a = offset, .b = length, .loc = loc});
  }
  inline ExprId let(ExprId var, ExprId value, ExprId body, Type type, std::uint32_t loc) {
    return add({.kind = Kind::let, .type = type, .a = var, .b = value, .c = body, .loc = loc});
  }
  inline ExprId if_(ExprId cond, ExprId then, ExprId otherwise, Type type, std::uint32_t loc) {
    return add({.kind = Kind::if_, .type = type, .a = cond, .b = then, .c = otherwise, .loc = loc});
  }
  inline ExprId tuple(std::span<const ExprId> elements, Type type, std::uint32_t loc) {
    auto [start, count] = add_list(elements);
    return add({.kind = Kind::tuple, .type = type, .b = start, .c = count, .loc = loc});
  }
  inline ExprId proj(ExprId tuple, std::uint32_t index, Type type, std::uint32_t loc) {
    return add({.kind = Kind::proj, .type = type, .a = tuple, .b = index, .loc = loc});
  }
  inline ExprId fn(std::span<const ExprId> params, ExprId body, Type type, std::uint32_t loc) {
    auto [start, count] = add_list(params);
    return add({.kind = Kind::fn, .type = type, .a = start, .b = count, .c = body, .loc = loc});
  }
  /// A copy of `node` from the body this builder started from, with new operands.
  inline ExprId copy(const Node& node) { return add(node); }
  inline ExprId copy_with_list(Node node, std::span<const ExprId> list) {
    auto [start, count] = add_list(list);
    if (node.kind == Kind::fn) {
      node.a = start;
      node.b = count;
    } else {
      node.b = start;
      node.c = count;
    }
    return add(node);
  }

  /// Room for `nodes` nodes. Pages of a large reservation that are never
  /// written take no memory, so reserving generously avoids the copies (and
  /// the peak of old and new together) of growing.
  void reserve(std::size_t nodes) {
    if (overlay_) return;
    nodes_.reserve(nodes);
    detail::prefer_huge_pages(nodes_);
  }

  /// No room for more than is built: the vectors as long as what they hold.
  void shrink_to_fit() {
    nodes_.shrink_to_fit();
    lists_.shrink_to_fit();
    names_.shrink_to_fit();
  }

  /// A builder that writes its nodes over those of `body`, from the first:
  /// how a rewrite transforms a body that nothing else holds without a second
  /// copy. The body keeps its lists, root and parameters, for the rewrite to
  /// read, but gives up its nodes and names. `state` is each node's kind and
  /// whether it is shared (detail::Overlay). `input(id)` is input node `id`
  /// until the rewrite is done with it (`done_with`); a node written over
  /// before that is kept aside.
  static BodyBuilder over(Body& body, std::vector<std::uint8_t> state) {
    BodyBuilder b;
    b.distinct_names_ = body.distinct_names_;
    b.nodes_ = std::move(body.nodes_);
    b.names_ = std::move(body.names_);
    b.overlay_ = std::make_unique<detail::Overlay>(b.nodes_.size(), std::move(state));
    return b;
  }
  /// Node `id` of the body this builder writes over.
  inline Node input(ExprId id) const {
    return id >= overlay_->written ? nodes_[id] : overlay_->displaced[overlay_->slot[id]];
  }
  inline Kind input_kind(ExprId id) const { return static_cast<Kind>(overlay_->state[id] & detail::Overlay::kind_bits); }
  /// How many nodes the body this builder writes over has.
  inline std::size_t input_size() const { return overlay_->input_size; }
  /// The rewrite reads input node `id` no more (unless it is a shared leaf).
  void done_with(ExprId id) {
    std::uint8_t& state = overlay_->state[id];
    if (!(state & detail::Overlay::shared)) state |= detail::Overlay::done;
  }
  bool overlaid() const { return overlay_ != nullptr; }

  /// Sets a node's type after the fact (type inference annotates as it goes).
  inline void set_type(ExprId id, Type type) { nodes_[id].type = type; }
  inline const Node& operator[](ExprId id) const { return nodes_[id]; }
  inline std::size_t size() const { return overlay_ ? overlay_->written : nodes_.size(); }
  inline std::string_view name(ExprId id) const { return name_of(nodes_[id]); }
  /// The name of a var or global node made here or in the body this builder started from.
  inline std::string_view name_of(const Node& n) const { return std::string_view(names_).substr(n.a, n.b); }
  /// A list added so far; valid until the next node is added.
  inline std::span<const ExprId> list(std::uint32_t start, std::uint32_t count) const {
    return std::span<const ExprId>(lists_).subspan(start, count);
  }

  std::shared_ptr<const Body> finish(std::span<const ExprId> params, ExprId root, Type result) {
    auto body = std::make_shared<Body>();
    finish_into(*body, params, root, result);
    return body;
  }
  /// Puts the nodes built into `body` (which nothing else holds), in place of
  /// what it had: a rewrite in place that changed nothing keeps its body,
  /// and with it the fingerprint already computed.
  void finish_into(Body& body, std::span<const ExprId> params, ExprId root, Type result) {
    if (overlay_) {
      nodes_.resize(overlay_->written);
      overlay_.reset();
      release_unused(nodes_);
    }
    auto [start, count] = add_list(params);
    body.nodes_ = std::move(nodes_);
    body.lists_ = std::move(lists_);
    body.names_ = std::move(names_);
    body.params_start_ = start;
    body.params_count_ = count;
    body.root_ = root;
    body.result_ = result;
    body.distinct_names_ = distinct_names_;
  }

 private:
  /// Hands back to the system the whole pages of `v`'s capacity past its
  /// size, if they are many: after a rewrite in place, what is left of a
  /// much longer input. They are never read, and come back zeroed should
  /// the vector grow into them. A few pages are kept: handing them back
  /// stops every thread of the process to flush its TLB, and the allocator
  /// would hand them out again, to be zeroed anew.
  template <class T>
  static void release_unused(std::vector<T>& v) {
    static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    constexpr std::uintptr_t worth_it = std::uintptr_t{1} << 20;
    const auto begin = (reinterpret_cast<std::uintptr_t>(v.data() + v.size()) + page - 1) / page * page;
    const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity()) / page * page;
    if (end > begin && end - begin >= worth_it) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
  }

  inline ExprId add(const Node& n) {
    if (overlay_) [[unlikely]] return add_over(n);
    detail::room_for_one_more(nodes_);
    nodes_.push_back(n);
    return static_cast<ExprId>(nodes_.size() - 1);
  }
  ExprId add_over(const Node& n) {
    detail::Overlay& o = *overlay_;
    const std::size_t at = o.written++;
    if (at < nodes_.size()) {
      if (at < o.input_size && !(o.state[at] & detail::Overlay::done)) {
        o.slot[at] = static_cast<std::uint32_t>(o.displaced.size());
        detail::room_for_one_more(o.displaced);
        o.displaced.push_back(nodes_[at]);
      }
      nodes_[at] = n;
    } else {
      detail::room_for_one_more(nodes_);
      nodes_.push_back(n);
    }
    return static_cast<ExprId>(at);
  }
  inline std::pair<std::uint32_t, std::uint32_t> add_list(std::span<const ExprId> items) {
    const auto start = static_cast<std::uint32_t>(lists_.size());
    lists_.insert(lists_.end(), items.begin(), items.end());
    return {start, static_cast<std::uint32_t>(items.size())};
  }
  inline std::pair<std::uint32_t, std::uint32_t> intern_name(std::string_view name) {
    const auto offset = static_cast<std::uint32_t>(names_.size());
    names_ += name;
    return {offset, static_cast<std::uint32_t>(name.size())};
  }

  std::vector<Node> nodes_;
  std::vector<ExprId> lists_;
  std::string names_;
  bool distinct_names_ = true;  // no var yet
  std::unique_ptr<detail::Overlay> overlay_;
};

}  // namespace passline::ir

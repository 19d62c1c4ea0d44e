// Rewriting a body bottom-up into a new one: the walk every transforming pass shares.
//
// The walk is iterative (deep let chains cost no stack) and visits each node
// once, children first, handing the pass the node with its operands already
// rewritten. At a `let`, the pass sees the rewritten value before the body, so
// it can replace the variable by something else (a constant, an earlier
// equal expression) for all its uses, or drop the let before its value is
// visited; at an `if`, it sees the condition first and may keep one branch.
// A pass that changes nothing gets the input body back, still shared with the
// input module.
module;
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>
export module passline.ir:rewrite;
import :types;
import :body;
import :functions;

export namespace passline::ir {

namespace detail {
class RewriteInput;
}

/// What a pass does at each node. The defaults copy.
class Rewrite {
 public:
  virtual ~Rewrite() = default;
  /// Before the walk, with the input as it is: a pass that decides
  /// something over the whole input first reads it here, where asking a
  /// node's kind (`input.kind`) reads one byte, not the node.
  virtual void start(const detail::RewriteInput& input) { (void)input; }
  /// A node whose operands (and list) are rewritten: return its replacement
  /// in `out`. `node` already refers to the new operands.
  virtual ExprId node(BodyBuilder& out, ExprId old_id, const Node& node, std::vector<ExprId>& list) {
    (void)old_id;
    return list_node(out, node, list);
  }
  /// A `let` whose value is rewritten to `value`: what uses of its variable
  /// become. Return `no_expr` to keep the variable (the default).
  virtual ExprId bind(BodyBuilder& out, ExprId old_var, ExprId value) {
    (void)out, (void)old_var, (void)value;
    return no_expr;
  }
  /// Whether the `let` `old_let` goes, value and all, before its value is
  /// visited: its body takes its place. The default keeps every let.
  virtual bool drop(ExprId old_let) {
    (void)old_let;
    return false;
  }
  /// The `let` of `old_var` keeps its variable, now `new_var`, bound to `value`.
  virtual void bound(ExprId old_var, ExprId new_var, ExprId value) { (void)old_var, (void)new_var, (void)value; }
  /// The scope of `old_var` (bound by a let) ends; called whether it was replaced or not.
  virtual void unbind(ExprId old_var) { (void)old_var; }
  /// An `if` whose condition is rewritten to `cond`: 0 to keep only the then
  /// branch, 1 only the else branch, -1 both (the default). The branch left
  /// out is never visited.
  virtual int branch(const BodyBuilder& out, ExprId cond) {
    (void)out, (void)cond;
    return -1;
  }
  /// Whether anything differs from the input; set it when returning something new.
  bool changed = false;

 protected:
  static ExprId list_node(BodyBuilder& out, const Node& node, std::vector<ExprId>& list) {
    if (node.kind == Kind::call || node.kind == Kind::tuple || node.kind == Kind::fn) return out.copy_with_list(node, list);
    return out.copy(node);
  }
};

namespace detail {

/// The input of a rewrite: a body read as it is, or, when nothing else holds
/// it, one the output is written over (BodyBuilder::over).
class RewriteInput {
 public:
  RewriteInput(const Body& body, BodyBuilder& out)
      : body_(body), out_(out), overlaid_(out.overlaid()), body_size_(overlaid_ ? out.input_size() : body.size()) {}
  Node operator[](ExprId id) const { return overlaid_ ? out_.input(id) : body_[id]; }
  Kind kind(ExprId id) const { return overlaid_ ? out_.input_kind(id) : body_[id].kind; }
  std::size_t size() const { return body_size_; }
  ExprId root() const { return body_.root(); }
  std::span<const ExprId> list(std::uint32_t start, std::uint32_t count) const { return body_.list(start, count); }
  void done_with(ExprId id) {
    if (overlaid_) out_.done_with(id);
  }

 private:
  const Body& body_;
  BodyBuilder& out_;
  bool overlaid_;
  std::size_t body_size_;
};

}  // namespace detail

namespace detail {

/// Each node's kind, and whether it is a leaf with several users (the walk
/// reaches it more than once), for BodyBuilder::over.
inline std::vector<std::uint8_t> overlay_state(const Body& body) {
  constexpr std::uint8_t seen = 0x80;
  std::vector<std::uint8_t> state = node_table(body.size(), std::uint8_t{0});
  auto use = [&](ExprId c) {
    if (body[c].kind == Kind::var || !is_leaf(body[c].kind)) return;
    state[c] |= (state[c] & seen) ? Overlay::shared : seen;
  };
  for (ExprId id = 0; id < body.size(); ++id) for_each_child(body, id, use);
  use(body.root());
  for (ExprId id = 0; id < body.size(); ++id) {
    state[id] = static_cast<std::uint8_t>((state[id] & Overlay::shared) | static_cast<std::uint8_t>(body[id].kind));
  }
  return state;
}

}  // namespace detail

/// Runs `rewrite` over `body`; the same body when nothing changed. A body
/// that nothing else holds is rewritten in place: the output is written over
/// the input as the walk leaves it behind, so a pass costs no second copy.
std::shared_ptr<const Body> rewrite(std::shared_ptr<const Body> body_ptr, Rewrite& rewrite) {
  const bool in_place = body_ptr.use_count() == 1;
  // The only owner: nobody else can see the body change. Bodies are made
  // mutable (make_shared<Body>), so casting the const away is sound.
  Body& body = const_cast<Body&>(*body_ptr);
  const std::size_t size = body.size();
  const ExprId root = body.root();
  const Type result = body.result();
  BodyBuilder out = in_place ? BodyBuilder::over(body, detail::overlay_state(body)) : BodyBuilder(body);
  out.reserve(size + size / 2);
  detail::RewriteInput in(body, out);
  rewrite.start(in);
  // Each input node's rewritten id, once visited; a variable's, from where
  // it is bound, with var_mark (and replaced_mark, if the pass replaced
  // it): an operand whose entry has the mark is a variable, known so from
  // the entry the rebuild reads anyway, not from the node's kind (a
  // variable may be bound far back in a large body, and every read there
  // is a cache miss). Output ids stay below the marks.
  std::vector<ExprId> map = detail::node_table(size, no_expr);
  constexpr ExprId var_mark = ExprId{1} << 31, replaced_mark = ExprId{1} << 30, marks = var_mark | replaced_mark;
  auto check_size = [&] {
    if (out.size() >= replaced_mark) throw std::length_error("a rewritten body would have 2^30 nodes or more");
  };
  auto at = [&](ExprId id) { return map[id] & ~marks; };  // a visited node's or a bound variable's
  auto is_bound_var = [&](ExprId id) {
    const ExprId m = map[id];
    return m != no_expr && (m & var_mark);
  };
  auto copy_var = [&](ExprId var) {
    if (map[var] == no_expr) {
      map[var] = out.copy(in[var]) | var_mark;
      in.done_with(var);
    }
    return at(var);
  };
  std::vector<ExprId> params;
  for (ExprId p : body.params()) params.push_back(copy_var(p));

  struct Frame {
    ExprId id;
    std::uint8_t phase;
  };
  std::vector<Frame> stack = detail::walk_stack(size, Frame{root, 0});
  std::vector<ExprId> list;
  std::vector<ExprId> children;  // reused: no allocation per node
  const bool was_changed = rewrite.changed;
  rewrite.changed = false;
  while (!stack.empty()) {
    check_size();
    const Frame frame = stack.back();
    stack.pop_back();
    const ExprId id = frame.id;
    if (in.kind(id) == Kind::var) continue;  // binders are mapped where they are bound
    const Node n = in[id];
    switch (n.kind) {
      case Kind::var: continue;
      case Kind::let:
        if (frame.phase == 0) {
          if (rewrite.drop(id)) {
            rewrite.changed = true;
            stack.push_back({id, 3});
            stack.push_back({n.c, 0});
            continue;
          }
          stack.push_back({id, 1});
          stack.push_back({n.b, 0});
        } else if (frame.phase == 3) {
          map[id] = map[n.c];  // dropped: the body stands for the let
          in.done_with(id);
        } else if (frame.phase == 1) {
          const ExprId replacement = rewrite.bind(out, n.a, at(n.b));
          if (replacement != no_expr) {
            map[n.a] = replacement | var_mark | replaced_mark;
            in.done_with(n.a);
            rewrite.changed = true;
          } else {
            rewrite.bound(n.a, copy_var(n.a), at(n.b));
          }
          stack.push_back({id, 2});
          stack.push_back({n.c, 0});
        } else if (rewrite.unbind(n.a), map[n.a] & replaced_mark) {
          map[id] = map[n.c];  // the variable was replaced: the let goes
          in.done_with(id);
        } else {
          Node copy = n;
          copy.a = at(n.a), copy.b = at(n.b), copy.c = at(n.c);
          list.clear();
          in.done_with(id);
          map[id] = rewrite.node(out, id, copy, list);
        }
        continue;
      case Kind::if_:
        if (frame.phase == 0) {
          stack.push_back({id, 1});
          stack.push_back({n.a, 0});
          continue;
        }
        if (frame.phase == 1) {
          const int taken = rewrite.branch(out, at(n.a));
          if (taken >= 0) {
            rewrite.changed = true;
            stack.push_back({id, static_cast<std::uint8_t>(3 + taken)});
            stack.push_back({taken == 0 ? n.b : n.c, 0});
          } else {
            stack.push_back({id, 2});
            stack.push_back({n.c, 0});
            stack.push_back({n.b, 0});
          }
          continue;
        }
        if (frame.phase >= 3) {
          map[id] = map[frame.phase == 3 ? n.b : n.c];  // only the branch taken stands
          in.done_with(id);
          continue;
        }
        break;
      case Kind::fn:
        if (frame.phase == 0) {
          for (ExprId p : in.list(n.a, n.b)) copy_var(p);
          stack.push_back({id, 1});
          stack.push_back({n.c, 0});
          continue;
        }
        break;
      default:
        if (frame.phase == 0) {
          stack.push_back({id, 1});
          children.clear();
          for_each_operand(n, in, [&](ExprId c) { children.push_back(c); });
          for (auto it = children.rbegin(); it != children.rend(); ++it) {
            if (!is_bound_var(*it)) stack.push_back({*it, 0});
          }
          continue;
        }
        break;
    }
    // Rebuild with rewritten operands.
    Node copy = n;
    list.clear();
    switch (n.kind) {
      case Kind::op:
        copy.a = at(n.a);
        if (n.b != no_expr) copy.b = at(n.b);
        if (n.c != no_expr) copy.c = at(n.c);
        break;
      case Kind::call:
        copy.a = at(n.a);
        for (ExprId arg : in.list(n.b, n.c)) list.push_back(at(arg));
        break;
      case Kind::if_: copy.a = at(n.a), copy.b = at(n.b), copy.c = at(n.c); break;
      case Kind::tuple:
        for (ExprId e : in.list(n.b, n.c)) list.push_back(at(e));
        break;
      case Kind::proj: copy.a = at(n.a); break;
      case Kind::fn:
        for (ExprId p : in.list(n.a, n.b)) list.push_back(at(p));
        copy.c = at(n.c);
        break;
      default: break;
    }
    in.done_with(id);
    map[id] = rewrite.node(out, id, copy, list);
  }
  check_size();
  const bool changed = rewrite.changed;
  rewrite.changed = was_changed || changed;
  if (!in_place) return changed ? out.finish(params, at(root), result) : body_ptr;
  if (changed) return out.finish(params, at(root), result);
  out.finish_into(body, params, at(root), result);  // the same body, its fingerprint still good
  return body_ptr;
}

}  // namespace passline::ir

export namespace passline::ir {

/// Copies the tree under `root` of `from` (a Body or a BodyBuilder) into `out`
/// and returns the copy's root. `map` is indexed by `from`'s ids: an entry set
/// before the call (a parameter mapped to an argument's variable, say) is used
/// as it is; the others are filled in. Every binder gets a fresh node, so the
/// same tree can be copied many times into one body. Operands come before the
/// nodes that use them, so the copy goes in id order, without recursion.
template <class From>
ExprId copy_tree(BodyBuilder& out, const From& from, ExprId root, std::vector<ExprId>& map) {
  std::vector<std::uint8_t> reached(root + 1, 0);
  std::vector<ExprId> stack{root};
  while (!stack.empty()) {
    const ExprId id = stack.back();
    stack.pop_back();
    if (reached[id]) continue;
    reached[id] = 1;
    if (map[id] == no_expr) for_each_child(from, id, [&](ExprId c) { stack.push_back(c); });
  }
  std::vector<ExprId> list;
  for (ExprId id = 0; id <= root; ++id) {
    if (!reached[id] || map[id] != no_expr) continue;
    Node n = from[id];
    switch (n.kind) {
      case Kind::var: map[id] = out.var(from.name(id), n.type, n.loc); continue;
      case Kind::global: map[id] = out.global(from.name(id), n.type, n.loc); continue;
      case Kind::call:
      case Kind::tuple:
      case Kind::fn:
        list.clear();
        for (ExprId e : n.kind == Kind::fn ? from.list(n.a, n.b) : from.list(n.b, n.c)) list.push_back(map[e]);
        if (n.kind == Kind::call) n.a = map[n.a];
        if (n.kind == Kind::fn) n.c = map[n.c];
        map[id] = out.copy_with_list(n, list);
        continue;
      case Kind::proj: n.a = map[n.a]; break;
      case Kind::op:
      case Kind::let:
      case Kind::if_:
        n.a = map[n.a];
        if (n.b != no_expr) n.b = map[n.b];
        if (n.c != no_expr) n.c = map[n.c];
        break;
      default: break;
    }
    map[id] = out.copy(n);
  }
  return map[root];
}

}  // namespace passline::ir

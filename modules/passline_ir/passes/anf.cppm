// ToANormalForm: names every intermediate result with a `let`.
//
// In A-normal form the operands of operators, calls, tuples and projections,
// and the condition of an `if`, are atoms: variables, constants or globals.
// Every other operand is bound to a fresh `%t` just before its use, in
// evaluation order, and a `let` in a let's value is flattened into the
// enclosing chain. The branches of an `if` and the body of a closure are
// scopes of their own, so nothing moves out of them (or out of a branch that
// may not run). A function already in A-normal form keeps its body.
module;
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>
export module passline.ir.passes:anf;
import passline;
import passline.ir;

namespace passline::ir::detail {

class Normalizer {
 public:
  explicit Normalizer(const Body& body) : body_(body), out_(body), map_(body.size(), no_expr) {}

  /// Whether every reachable operand is already an atom.
  static bool normal(const Body& body) {
    std::vector<ExprId> stack{body.root()};
    while (!stack.empty()) {
      const ExprId id = stack.back();
      stack.pop_back();
      const Node& n = body[id];
      bool ok = true;
      switch (n.kind) {
        case Kind::let: ok = body[n.b].kind != Kind::let; break;
        case Kind::if_: ok = is_leaf(body[n.a].kind); break;
        case Kind::fn: break;
        default:
          for_each_child(body, id, [&](ExprId c) { ok = ok && is_leaf(body[c].kind); });
      }
      if (!ok) return false;
      for_each_child(body, id, [&](ExprId c) {
        if (body[c].kind != Kind::var) stack.push_back(c);
      });
    }
    return true;
  }

  std::shared_ptr<const Body> run() {
    std::vector<ExprId> params;
    for (ExprId p : body_.params()) params.push_back(bind(p));
    const ExprId root = scope(body_.root());
    return out_.finish(params, root, body_.result());
  }

 private:
  struct Binding {
    ExprId var;
    ExprId value;
  };
  using Block = std::vector<Binding>;

  ExprId bind(ExprId var) { return map_[var] = out_.copy(body_[var]); }

  /// `id` as the whole of a new scope: its bindings, then its result.
  ExprId scope(ExprId id) {
    Block block;
    ExprId result = compound(id, block);
    const Type type = out_[result].type;
    for (std::size_t i = block.size(); i-- > 0;) {
      result = out_.let(block[i].var, block[i].value, result, type, out_[block[i].value].loc);
    }
    return result;
  }

  /// `id` with atoms for operands; what they need is bound in `block` first.
  ExprId compound(ExprId id, Block& block) {
    while (body_[id].kind == Kind::let) {  // a chain goes into the block, without recursion
      const Node& let = body_[id];
      const ExprId value = compound(let.b, block);
      block.push_back({bind(let.a), value});
      id = let.c;
    }
    const Node& n = body_[id];
    Node copy = n;
    list_.clear();
    switch (n.kind) {
      case Kind::var: return map_[id];
      case Kind::op:
        copy.a = atom(n.a, block);
        if (n.b != no_expr) copy.b = atom(n.b, block);
        if (n.c != no_expr) copy.c = atom(n.c, block);
        return out_.copy(copy);
      case Kind::proj: copy.a = atom(n.a, block); return out_.copy(copy);
      case Kind::if_:
        copy.a = atom(n.a, block);
        copy.b = scope(n.b);
        copy.c = scope(n.c);
        return out_.copy(copy);
      case Kind::call:
      case Kind::tuple: {
        std::vector<ExprId> operands;
        if (n.kind == Kind::call) copy.a = atom(n.a, block);
        for (ExprId e : body_.list(n.b, n.c)) operands.push_back(atom(e, block));
        return out_.copy_with_list(copy, operands);
      }
      case Kind::fn: {
        std::vector<ExprId> params;
        for (ExprId p : body_.fn_params(id)) params.push_back(bind(p));
        copy.c = scope(n.c);
        return out_.copy_with_list(copy, params);
      }
      default: return out_.copy(n);
    }
  }

  ExprId atom(ExprId id, Block& block) {
    const ExprId e = compound(id, block);
    if (is_leaf(out_[e].kind)) return e;
    const ExprId t = out_.var("t", out_[e].type, out_[e].loc);
    block.push_back({t, e});
    return t;
  }

  const Body& body_;
  BodyBuilder out_;
  std::vector<ExprId> map_;
  std::vector<ExprId> list_;
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Binds every non-atomic operand to a fresh variable (A-normal form).
struct ToANormalForm {
  static constexpr PassInfo info{
      .name = "ToANormalForm",
      .opt_level = 0,
      .summary = "binds every intermediate result to a let (A-normal form)",
      .preserves = names<"InferType", "CallGraph">,
  };

  Function operator()(Function fn, const Module&, PassContext&) const {
    if (!detail::Normalizer::normal(*fn.body)) fn.body = detail::Normalizer(*fn.body).run();
    return fn;
  }
};

}  // namespace passline::ir

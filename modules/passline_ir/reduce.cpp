// How passline.ir.reduce (reduce.cppm) shrinks reference IR: the
// simplifications and the steps of ReduceTraits<ir::Module>. Compiled apart
// from the interface, which so waits neither for these nor for the passes
// (InferType types each candidate).
module;
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>
module passline.ir.reduce;
import passline;
import passline.ir;
import passline.ir.passes;
import passline.reduce;

namespace passline::ir::detail {

/// A constant of `type`, if it is a type with constants.
inline ExprId constant_of(BodyBuilder& out, Type type, std::uint32_t loc) {
  if (type == types::i64) return out.int_const(0, loc);
  if (type == types::f64) return out.float_const(0.0, loc);
  if (type == types::boolean) return out.bool_const(false, loc);
  return no_expr;
}

/// The kinds of simplification, in the order they are tried.
enum class Simplification { drop_let, then_branch, else_branch, to_operand, to_constant };
inline constexpr Simplification simplifications[] = {Simplification::drop_let, Simplification::then_branch,
                                                     Simplification::else_branch, Simplification::to_operand,
                                                     Simplification::to_constant};

/// The first operand of `id` (in `typed`) of `id`'s own type: its position, or -1.
inline int operand_of_own_type(const Body& typed, ExprId id) {
  const Node& n = typed[id];
  if (!n.type.known()) return -1;
  if (n.kind == Kind::op) {
    const ExprId operands[] = {n.a, n.b, n.c};
    for (int k = 0; k < op_arity(n.op); ++k) {
      if (typed[operands[k]].type == n.type) return k;
    }
  } else if (n.kind == Kind::call) {
    const auto args = typed.args(id);
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (typed[args[k]].type == n.type) return static_cast<int>(k);
    }
  }
  return -1;
}

/// Whether `kind` applies at node `id` of `typed`.
inline bool applies(Simplification kind, const Body& typed, ExprId id) {
  const Node& n = typed[id];
  switch (kind) {
    case Simplification::drop_let: {
      if (n.kind != Kind::let) return false;
      const Type t = typed[n.a].type;
      return t == types::i64 || t == types::f64 || t == types::boolean;
    }
    case Simplification::then_branch:
    case Simplification::else_branch: return n.kind == Kind::if_ && n.type.known();
    case Simplification::to_operand: return operand_of_own_type(typed, id) >= 0;
    case Simplification::to_constant:
      return (n.kind == Kind::op || n.kind == Kind::call || n.kind == Kind::proj) &&
             (n.type == types::i64 || n.type == types::f64 || n.type == types::boolean);
  }
  return false;
}

/// Applies `kind` at the chosen nodes of a body (ids of the input, which
/// `typed` types).
class Simplify final : public Rewrite {
 public:
  Simplify(Simplification kind, const Body& typed, std::unordered_set<ExprId> at)
      : kind_(kind), typed_(typed), at_(std::move(at)) {
    if (kind_ == Simplification::drop_let) {
      for (ExprId let : at_) vars_.insert(typed_[let].a);
    }
  }

  ExprId bind(BodyBuilder& out, ExprId old_var, ExprId value) override {
    (void)value;
    if (!vars_.contains(old_var)) return no_expr;
    return constant_of(out, typed_[old_var].type, typed_[old_var].loc);
  }

  ExprId node(BodyBuilder& out, ExprId old_id, const Node& node, std::vector<ExprId>& list) override {
    if (!at_.contains(old_id)) return list_node(out, node, list);
    changed = true;
    switch (kind_) {
      case Simplification::then_branch: return node.b;
      case Simplification::else_branch: return node.c;
      case Simplification::to_operand: {
        const int k = operand_of_own_type(typed_, old_id);
        if (node.kind == Kind::op) return k == 0 ? node.a : k == 1 ? node.b : node.c;
        return list[static_cast<std::size_t>(k)];
      }
      case Simplification::to_constant: return constant_of(out, typed_[old_id].type, node.loc);
      case Simplification::drop_let: break;
    }
    return list_node(out, node, list);
  }

 private:
  Simplification kind_;
  const Body& typed_;
  std::unordered_set<ExprId> at_;
  std::unordered_set<ExprId> vars_;
};

/// A module read back from its own text: its bodies hold only what they use.
inline Module reprinted(const Module& module) { return parse(print(module), "<reduced>"); }

/// Whether the verifier takes `module`.
inline bool valid(const Module& module) {
  try {
    verify(module);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace passline::ir::detail

namespace passline::reduce {

std::optional<ir::Module> ReduceTraits<ir::Module>::keep_functions(const Module& module,
                                                                  const std::vector<bool>& keep) {
  Module kept{.functions = {}, .source = module.source};
  for (std::size_t i = 0; i < module.functions.size(); ++i) {
    if (keep[i]) kept.functions.push_back(module.functions[i]);
  }
  if (!passline::ir::detail::valid(kept)) return std::nullopt;
  return kept;
}

std::optional<ir::Module> ReduceTraits<ir::Module>::empty_functions(const Module& module,
                                                                   const std::vector<bool>& empty) {
  using namespace passline::ir;
  Module out = module;
  const Module typed = typed_copy(module);
  bool any = false;
  for (std::size_t i = 0; i < out.functions.size(); ++i) {
    if (!empty[i]) continue;
    const Body& body = *typed.functions[i].body;
    const Type result = body.result();
    if (body.size() <= body.params().size() + 1) continue;  // as small already
    BodyBuilder builder(body);
    std::vector<ExprId> params;
    for (const ExprId p : body.params()) params.push_back(builder.var_like(body, p, body[p].type));
    const ExprId root = passline::ir::detail::constant_of(builder, result, body[body.root()].loc);
    if (root == no_expr) continue;
    out.functions[i].body = builder.finish(params, root, module.functions[i].body->result());
    any = true;
  }
  if (!any) return std::nullopt;
  Module reread = passline::ir::detail::reprinted(out);
  if (!passline::ir::detail::valid(reread)) return std::nullopt;
  return reread;
}

ir::Module ReduceTraits<ir::Module>::simplify(const Module& input, const Judge<Module>& judge, const Stop& stop) {
  using namespace passline::ir;
  Module best = input;
  for (int round = 0; round < 4 && !stop(); ++round) {
    const std::size_t before = ReduceTraits::size(best);
    for (const passline::ir::detail::Simplification kind : passline::ir::detail::simplifications) {
      if (stop()) break;
      const Module typed = typed_copy(best);
      // The places, in module order: (function, node).
      std::vector<std::pair<std::size_t, ExprId>> sites;
      for (std::size_t f = 0; f < typed.functions.size(); ++f) {
        const Body& body = *typed.functions[f].body;
        if (body.size() != best.functions[f].body->size()) continue;  // not typed node for node
        for (ExprId id = 0; id < body.size(); ++id) {
          if (passline::ir::detail::applies(kind, body, id)) sites.emplace_back(f, id);
        }
      }
      if (sites.empty()) continue;
      auto candidate = [&](const std::vector<bool>& keep) -> std::optional<Module> {
        std::vector<std::unordered_set<ExprId>> at(best.functions.size());
        for (std::size_t s = 0; s < sites.size(); ++s) {
          if (!keep[s]) at[sites[s].first].insert(sites[s].second);
        }
        Module out = best;
        for (std::size_t f = 0; f < out.functions.size(); ++f) {
          if (at[f].empty()) continue;
          passline::ir::detail::Simplify rewrite(kind, *typed.functions[f].body, std::move(at[f]));
          out.functions[f].body = passline::ir::rewrite(out.functions[f].body, rewrite);
        }
        Module reread = passline::ir::detail::reprinted(out);
        if (!passline::ir::detail::valid(reread)) return std::nullopt;
        return reread;
      };
      // `keep`: the places left as they are.
      std::optional<Module> smaller = keep_failing<Module>(
          sites.size(), candidate,
          [&](const Module& c) { return ReduceTraits::size(c) < ReduceTraits::size(best) && judge.still(c); }, stop);
      if (smaller && ReduceTraits::size(*smaller) < ReduceTraits::size(best)) best = std::move(*smaller);
    }
    if (ReduceTraits::size(best) >= before) break;
  }
  return best;
}

ir::Module ReduceTraits<ir::Module>::typed_copy(const Module& module) {
  try {
    passline::PassContext ctx;
    return passline::ir::InferType{}(module, ctx);
  } catch (const std::exception&) {
    return module;
  }
}

}  // namespace passline::reduce

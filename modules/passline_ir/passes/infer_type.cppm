// InferType: checks the types of a module and writes them on every node.
//
// A module pass: a call's type is its callee's result, so callees are typed
// before their callers (a recursive function must declare its result type).
// Type errors are reported to the context's diagnostics with their location,
// one per function (later ones would mostly repeat it), and the pass then
// fails, naming how many there were. A function whose types are already all
// written keeps its body, shared with the input.
module;
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
export module passline.ir.passes:infer_type;
import passline;
import passline.ir;

namespace passline::ir::detail {

struct TypeFailure {
  ExprId at;
  std::string message;
};

class Inference {
 public:
  Inference(const Module& module, std::vector<Type>& signatures, std::vector<std::uint8_t>& state,
            const std::unordered_map<std::string_view, std::size_t>& index, PassContext& ctx)
      : module_(module), signatures_(signatures), state_(state), index_(index), ctx_(ctx) {}

  /// The types found for a function whose body does not have them yet.
  struct Annotation {
    std::vector<Type> types;
    Type result;
  };

  /// Types function `i` (and first the functions it calls); records its types
  /// when they differ from those its body carries.
  void infer(std::size_t i, std::vector<std::optional<Annotation>>& annotations) {
    if (state_[i] != 0) return;
    state_[i] = 1;  // in progress: a call back here is recursion
    const Function& fn = module_.functions[i];
    const Body& body = *fn.body;
    for (std::size_t id = 0; id < body.size(); ++id) {
      if (body[static_cast<ExprId>(id)].kind != Kind::global) continue;
      auto callee = index_.find(body.name(static_cast<ExprId>(id)));
      if (callee != index_.end()) infer(callee->second, annotations);
    }
    std::vector<Type> types(body.size());
    Type result = types::unknown;
    try {
      result = infer_body(fn, types);
    } catch (const TypeFailure& failure) {
      ++errors;
      const std::uint32_t loc = failure.at == no_expr ? fn.loc : body[failure.at].loc;
      ctx_.diagnostics->report({.severity = Severity::error,
                                .location = module_.source->location(loc),
                                .message = failure.message,
                                .snippet = module_.source->snippet(loc)});
      state_[i] = 2;
      return;
    }
    signatures_[i] = signature(body, result);
    state_[i] = 2;
    // Nodes the body no longer reaches (left behind by a rewrite in place)
    // get no type and do not count: a body whose reachable nodes are typed
    // as inferred is kept as it is, with its cached fingerprint.
    bool same = result == body.result();
    for (std::size_t id = 0; same && id < body.size(); ++id) {
      same = !types[id].known() || types[id] == body[static_cast<ExprId>(id)].type;
    }
    if (!same) annotations[i] = Annotation{std::move(types), result};
  }

  /// `body` with `annotation`'s types written on it; in place when nothing
  /// else holds the body.
  static std::shared_ptr<const Body> annotate(std::shared_ptr<const Body> body, const Annotation& annotation) {
    const std::vector<ExprId> params(body->params().begin(), body->params().end());
    const ExprId root = body->root();
    BodyBuilder out = BodyBuilder::take(body);
    for (std::size_t id = 0; id < annotation.types.size(); ++id) out.set_type(static_cast<ExprId>(id), annotation.types[id]);
    return out.finish(params, root, annotation.result);
  }

  std::size_t errors = 0;

  /// The function type of a body with parameters typed as declared.
  static Type signature(const Body& body, Type result) {
    std::vector<Type> params;
    for (ExprId p : body.params()) params.push_back(body[p].type);
    return TypeTable::global().function(params, result);
  }

 private:
  std::string show(Type t) const { return TypeTable::global().print(t); }

  [[noreturn]] static void fail(ExprId at, std::string message) { throw TypeFailure{at, std::move(message)}; }
  /// `type`, the type of `at`, if it nests no deeper than the text format reads.
  static Type shallow(Type type, ExprId at) {
    if (TypeTable::global().depth(type) > max_nesting) fail(at, fmt::format("its type nests more than {} deep", max_nesting));
    return type;
  }
  /// Where to point at `operand` of `parent`: a variable's node is its binder,
  /// so a use is shown at the expression that uses it.
  static ExprId spot(const Body& body, ExprId operand, ExprId parent) {
    return body[operand].kind == Kind::var ? parent : operand;
  }

  Type infer_body(const Function& fn, std::vector<Type>& t) {
    const Body& body = *fn.body;
    auto& table = TypeTable::global();
    for (ExprId p : body.params()) t[p] = body[p].type;
    struct Frame {
      ExprId id;
      std::uint8_t phase;
    };
    std::vector<Frame> stack{{body.root(), 0}};
    while (!stack.empty()) {
      const Frame frame = stack.back();
      stack.pop_back();
      const ExprId id = frame.id;
      const Node& n = body[id];
      if (frame.phase == 0 && n.kind != Kind::var) {
        if (n.kind == Kind::let) {
          stack.push_back({id, 1});
          stack.push_back({n.b, 0});
        } else {
          if (n.kind == Kind::fn) {
            for (ExprId p : body.fn_params(id)) t[p] = body[p].type;
          }
          stack.push_back({id, 1});
          for_each_child(body, id, [&](ExprId c) {
            if (body[c].kind != Kind::var || n.kind == Kind::fn) stack.push_back({c, 0});
          });
        }
        continue;
      }
      switch (n.kind) {
        case Kind::var: break;  // typed where bound
        case Kind::int_const: t[id] = types::i64; break;
        case Kind::float_const: t[id] = types::f64; break;
        case Kind::bool_const: t[id] = types::boolean; break;
        case Kind::global: {
          auto callee = index_.find(body.name(id));
          if (callee == index_.end()) fail(id, fmt::format("unknown function '@{}'", body.name(id)));
          const Type sig = signatures_[callee->second];
          if (!sig.known()) {
            if (state_[callee->second] == 1) {
              fail(id, fmt::format("'@{}' is called recursively, so it must declare its result type ('-> i64')",
                                   body.name(id)));
            }
            fail(id, fmt::format("'@{}' has a type error, so this call has no type", body.name(id)));
          }
          t[id] = shallow(sig, id);
          break;
        }
        case Kind::let:
          if (frame.phase == 1) {
            const Type declared = body[n.a].type;
            if (declared.known() && declared != t[n.b]) {
              fail(spot(body, n.b, id), fmt::format("'%{}' is declared {} but its value is {}", body.name(n.a), show(declared),
                                    show(t[n.b])));
            }
            t[n.a] = t[n.b];
            stack.push_back({id, 2});
            stack.push_back({n.c, 0});
          } else {
            t[id] = t[n.c];
          }
          break;
        case Kind::if_:
          if (t[n.a] != types::boolean) {
            fail(spot(body, n.a, id), fmt::format("the condition of 'if' is {}, not bool", show(t[n.a])));
          }
          if (t[n.b] != t[n.c]) {
            fail(id, fmt::format("the branches of 'if' differ: {} and {}", show(t[n.b]), show(t[n.c])));
          }
          t[id] = t[n.b];
          break;
        case Kind::tuple: {
          std::vector<Type> elements;
          for (ExprId e : body.elements(id)) elements.push_back(t[e]);
          t[id] = shallow(table.tuple(elements), id);
          break;
        }
        case Kind::proj: {
          if (table.kind(t[n.a]) != TypeKind::tuple) fail(id, fmt::format("'.{}' needs a tuple, not {}", n.b, show(t[n.a])));
          const std::vector<Type> elements = table.elements(t[n.a]);
          if (n.b >= elements.size()) {
            fail(id, fmt::format("'.{}' is out of range for {}", n.b, show(t[n.a])));
          }
          t[id] = elements[n.b];
          break;
        }
        case Kind::fn: {
          std::vector<Type> params;
          for (ExprId p : body.fn_params(id)) params.push_back(t[p]);
          const Type type = shallow(table.function(params, t[n.c]), id);
          if (n.type.known() && n.type != type) {
            fail(id, fmt::format("the closure is declared {} but is {}", show(n.type), show(type)));
          }
          t[id] = type;
          break;
        }
        case Kind::call: {
          const Type callee = t[n.a];
          if (table.kind(callee) != TypeKind::function) fail(id, fmt::format("cannot call a value of type {}", show(callee)));
          const std::vector<Type> params = table.elements(callee);
          const auto args = body.args(id);
          if (params.size() != args.size()) {
            fail(id, fmt::format("the callee takes {} arguments, not {}", params.size(), args.size()));
          }
          for (std::size_t k = 0; k < args.size(); ++k) {
            if (t[args[k]] != params[k]) {
              fail(spot(body, args[k], id), fmt::format("argument {} is {}, but the callee takes {}", k + 1, show(t[args[k]]),
                                        show(params[k])));
            }
          }
          t[id] = table.result(callee);
          break;
        }
        case Kind::op: t[id] = op_type(body, id, t); break;
      }
    }
    const Type result = t[body.root()];
    if (body.result().known() && body.result() != result) {
      const ExprId at = body[body.root()].kind == Kind::var ? no_expr : body.root();  // no_expr: the 'def'
      throw TypeFailure{at, fmt::format("'@{}' is declared to return {} but returns {}", fn.name,
                                        show(body.result()), show(result))};
    }
    return result;
  }

  Type op_type(const Body& body, ExprId id, const std::vector<Type>& t) {
    const Node& n = body[id];
    const std::string_view name = op_name(n.op);
    auto numeric = [](Type x) { return x == types::i64 || x == types::f64; };
    switch (n.op) {
      case Op::neg:
        if (!numeric(t[n.a])) fail(id, fmt::format("'neg' needs i64 or f64, not {}", show(t[n.a])));
        return t[n.a];
      case Op::not_:
        if (t[n.a] != types::boolean) fail(id, fmt::format("'not' needs bool, not {}", show(t[n.a])));
        return types::boolean;
      case Op::select:
        if (t[n.a] != types::boolean) fail(spot(body, n.a, id), fmt::format("the condition of 'select' is {}, not bool", show(t[n.a])));
        if (t[n.b] != t[n.c]) fail(id, fmt::format("the choices of 'select' differ: {} and {}", show(t[n.b]), show(t[n.c])));
        return t[n.b];
      default: break;
    }
    if (t[n.a] != t[n.b]) fail(id, fmt::format("'{}' needs operands of one type, not {} and {}", name, show(t[n.a]), show(t[n.b])));
    const Type operand = t[n.a];
    switch (n.op) {
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div:
        if (!numeric(operand)) fail(id, fmt::format("'{}' needs i64 or f64, not {}", name, show(operand)));
        return operand;
      case Op::mod:
        if (operand != types::i64) fail(id, fmt::format("'mod' needs i64, not {}", show(operand)));
        return operand;
      case Op::lt:
      case Op::le:
      case Op::gt:
      case Op::ge:
        if (!numeric(operand)) fail(id, fmt::format("'{}' needs i64 or f64, not {}", name, show(operand)));
        return types::boolean;
      case Op::eq:
      case Op::ne:
        if (!numeric(operand) && operand != types::boolean) {
          fail(id, fmt::format("'{}' compares i64, f64 or bool, not {}", name, show(operand)));
        }
        return types::boolean;
      case Op::and_:
      case Op::or_:
        if (operand != types::boolean) fail(id, fmt::format("'{}' needs bool, not {}", name, show(operand)));
        return types::boolean;
      default: return types::unknown;
    }
  }

  const Module& module_;
  std::vector<Type>& signatures_;
  std::vector<std::uint8_t>& state_;
  const std::unordered_map<std::string_view, std::size_t>& index_;
  PassContext& ctx_;
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Checks and annotates types; a module pass (callees are typed before callers).
struct InferType {
  static constexpr PassInfo info{
      .name = "InferType",
      .opt_level = 0,
      .summary = "checks types and writes them on every expression",
      .optional = false,  // the passes after it read the types it writes
      .preserves = names<"CallGraph", "Purity">,  // it writes types, and nothing else
  };

  Module operator()(Module module, PassContext& ctx) const {
    std::unordered_map<std::string_view, std::size_t> index;
    std::vector<Type> signatures(module.functions.size());
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      index.emplace(module.functions[i].name, i);
      const Body& body = *module.functions[i].body;
      if (body.result().known()) {  // declared: callers may rely on it, recursion included
        signatures[i] = detail::Inference::signature(body, body.result());
      }
    }
    std::vector<std::uint8_t> state(module.functions.size(), 0);
    std::vector<std::optional<detail::Inference::Annotation>> annotations(module.functions.size());
    detail::Inference inference(module, signatures, state, index, ctx);
    for (std::size_t i = 0; i < module.functions.size(); ++i) inference.infer(i, annotations);
    if (inference.errors > 0) {
      throw std::runtime_error(fmt::format("{} type error{}", inference.errors, inference.errors == 1 ? "" : "s"));
    }
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      if (!annotations[i]) continue;
      module.functions[i].body = detail::Inference::annotate(std::move(module.functions[i].body), *annotations[i]);
      annotations[i].reset();
    }
    return module;
  }
};

}  // namespace passline::ir

// InferType: checks the types of a module and writes them on every node.
//
// A module pass: a call's type is its callee's result, so callees are typed
// before their callers (a recursive function must declare its result type).
// The order is that of a depth-first walk of the calls from the first
// function on; functions whose callees are all typed are typed at once, on
// the context's threads, each as that walk would find it. Type errors are
// reported to the context's diagnostics with their location, one per
// function (later ones would mostly repeat it), in the order the walk meets
// them on any number of threads, and the pass then fails, naming how many
// there were. A function whose types are already all written keeps its
// body, shared with the input.
module;
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
export module passline.ir.passes:infer_type;
import passline;
import passline.support;
import passline.ir;
import :analyses;

namespace passline::ir::detail {

struct TypeFailure {
  ExprId at;
  std::string message;
};

/// The order a depth-first walk of the calls, callees first and from the
/// first function on, types functions in, and what typing each one relies
/// on: which of its callees are typed before it, and which are still being
/// walked then (it is called back from them: recursion).
struct TypingOrder {
  std::vector<std::size_t> finished;                  // in the order the walk types them
  std::vector<std::vector<std::size_t>> levels;       // each function after all its callees' levels
  std::vector<std::vector<std::size_t>> in_progress;  // per function: its callees still being walked
};

/// The typing order of functions that call `callees` (per function, in the
/// order its nodes name them). The walk is iterative: a long chain of calls
/// costs no stack.
inline TypingOrder typing_order(const std::vector<std::vector<std::size_t>>& callees) {
  const std::size_t count = callees.size();
  TypingOrder order;
  order.in_progress.resize(count);
  std::vector<std::uint8_t> state(count, 0);  // 0: not met, 1: being walked, 2: typed
  std::vector<std::size_t> level(count, 0);
  struct Frame {
    std::size_t fn;
    std::size_t next;  // its next callee to walk
  };
  std::vector<Frame> stack;
  for (std::size_t first = 0; first < count; ++first) {
    if (state[first] != 0) continue;
    state[first] = 1;
    stack.push_back({first, 0});
    while (!stack.empty()) {
      if (Frame& top = stack.back(); top.next < callees[top.fn].size()) {
        const std::size_t callee = callees[top.fn][top.next++];
        if (state[callee] == 0) {
          state[callee] = 1;
          stack.push_back({callee, 0});
        }
        continue;
      }
      const std::size_t fn = stack.back().fn;
      stack.pop_back();
      for (const std::size_t callee : callees[fn]) {
        if (state[callee] == 1) {
          order.in_progress[fn].push_back(callee);
        } else {
          level[fn] = std::max(level[fn], level[callee] + 1);
        }
      }
      state[fn] = 2;
      order.finished.push_back(fn);
      if (order.levels.size() <= level[fn]) order.levels.resize(level[fn] + 1);
      order.levels[level[fn]].push_back(fn);
    }
  }
  return order;
}

class Inference {
 public:
  Inference(const Module& module, std::vector<Type>& signatures, const std::unordered_map<std::string_view, std::size_t>& index)
      : module_(module), signatures_(signatures), index_(index) {}

  /// The types found for a function whose body does not have them yet.
  struct Annotation {
    std::vector<Type> types;
    Type result;
  };
  /// What typing one function found: its types, when they differ from
  /// those its body carries, or its error.
  struct Outcome {
    std::optional<Annotation> annotation;
    std::optional<TypeFailure> failure;
  };

  /// Types function `i`, whose callees are typed but those `in_progress`
  /// (typing_order), and sets its signature. Functions of one level may be
  /// typed at once: each writes its own signature, and reads those of lower
  /// levels, or of callees in progress, which are not typed yet.
  Outcome infer(std::size_t i, std::span<const std::size_t> in_progress) {
    const Function& fn = module_.functions[i];
    if (fn.body.use_count() == 1) {
      // Nothing else holds the body: each node takes its type as it is
      // found. (Bodies are made mutable, so casting the const away is
      // sound.) Should typing fail, the body, which only the module this
      // pass fails on holds, goes with it.
      Body& body = const_cast<Body&>(*fn.body);
      detail::TypeWriter writer(body);
      TypesOnNodes types{writer};
      Type result = types::unknown;
      try {
        result = infer_body(fn, types, in_progress);
      } catch (TypeFailure& failure) {
        return {.annotation = std::nullopt, .failure = std::move(failure)};
      }
      writer.set_result(result);
      signatures_[i] = signature(body, result);
      return {};
    }
    const Body& body = *fn.body;
    std::vector<Type> table = detail::node_table(body.size(), Type{});
    TypesBeside types{table};
    Type result = types::unknown;
    try {
      result = infer_body(fn, types, in_progress);
    } catch (TypeFailure& failure) {
      return {.annotation = std::nullopt, .failure = std::move(failure)};
    }
    signatures_[i] = signature(body, result);
    // Nodes the body no longer reaches (left behind by a rewrite in place)
    // get no type and do not count: a body whose reachable nodes are typed
    // as inferred is kept as it is, with its cached fingerprint.
    bool same = result == body.result();
    for (std::size_t id = 0; same && id < body.size(); ++id) {
      same = !table[id].known() || table[id] == body[static_cast<ExprId>(id)].type;
    }
    if (same) return {};
    return {.annotation = Annotation{std::move(table), result}, .failure = std::nullopt};
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

  /// The function type of a body with parameters typed as declared.
  static Type signature(const Body& body, Type result) {
    std::vector<Type> params;
    for (ExprId p : body.params()) params.push_back(body[p].type);
    return TypeTable::global().function(params, result);
  }

 private:
  /// Where types found go when the body is shared: a table beside it, each
  /// node's type unknown until found, copied onto a copy of the body after.
  struct TypesBeside {
    std::vector<Type>& table;
    Type operator[](ExprId id) const { return table[id]; }
    void set(ExprId id, Type type) { table[id] = type; }
    /// Whether the walk need not visit `operand`: typed already, as a
    /// variable is where it is bound (so a variable's node, which may lie
    /// far back in a large body, is not read).
    bool typed(const Body&, ExprId operand) const { return table[operand].known(); }
  };
  /// The same, where the types go on the nodes: a node's old type says
  /// nothing of whether it is typed yet, so its kind says whether it is a
  /// variable (typed where bound); a shared leaf is typed again.
  struct TypesOnNodes {
    detail::TypeWriter& writer;
    Type operator[](ExprId id) const { return writer[id]; }
    void set(ExprId id, Type type) { writer.set(id, type); }
    bool typed(const Body& body, ExprId operand) const { return body[operand].kind == Kind::var; }
  };

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

  template <class Types>
  Type infer_body(const Function& fn, Types& t, std::span<const std::size_t> in_progress) {
    const Body& body = *fn.body;
    auto& table = TypeTable::global();
    for (ExprId p : body.params()) t.set(p, body[p].type);
    // A let chain (each let the body of the one before) leaves one frame on
    // the stack, its head's: every let of it has the type of its last body,
    // the node typed just before the head's frame comes back, and the head
    // writes it on them all, reading each once more. So a chain of 10^6
    // lets writes no 10^6 frames.
    constexpr std::uint8_t in_chain = 0x80;
    struct Frame {
      ExprId id;
      std::uint8_t phase;  // and in_chain for a let that is a let's body
    };
    std::vector<Frame> stack = detail::walk_stack(body.size(), Frame{body.root(), 0});
    ExprId last = no_expr;  // the node typed last
    while (!stack.empty()) {
      const Frame frame = stack.back();
      stack.pop_back();
      const ExprId id = frame.id;
      const Node& n = body[id];
      const std::uint8_t phase = frame.phase & ~in_chain;
      if (phase == 0 && n.kind != Kind::var) {
        if (n.kind == Kind::let) {
          stack.push_back({id, static_cast<std::uint8_t>(1 | (frame.phase & in_chain))});
          stack.push_back({n.b, 0});
        } else {
          if (n.kind == Kind::fn) {
            for (ExprId p : body.fn_params(id)) t.set(p, body[p].type);
          }
          stack.push_back({id, 1});
          // A variable is typed where it is bound, not where it is used
          // (Types::typed); in a tree only a shared leaf (a constant, a
          // global) is met twice.
          for_each_child(body, id, [&](ExprId c) {
            if (n.kind == Kind::fn || !t.typed(body, c)) stack.push_back({c, 0});
          });
        }
        continue;
      }
      switch (n.kind) {
        case Kind::var: break;  // typed where bound
        case Kind::int_const: t.set(id, types::i64); break;
        case Kind::float_const: t.set(id, types::f64); break;
        case Kind::bool_const: t.set(id, types::boolean); break;
        case Kind::global: {
          auto callee = index_.find(body.name(id));
          if (callee == index_.end()) fail(id, fmt::format("unknown function '@{}'", body.name(id)));
          const Type sig = signatures_[callee->second];
          if (!sig.known()) {
            if (std::ranges::find(in_progress, callee->second) != in_progress.end()) {
              fail(id, fmt::format("'@{}' is called recursively, so it must declare its result type ('-> i64')",
                                   body.name(id)));
            }
            fail(id, fmt::format("'@{}' has a type error, so this call has no type", body.name(id)));
          }
          t.set(id, shallow(sig, id));
          break;
        }
        case Kind::let:
          if (phase == 1) {
            const Type declared = body[n.a].type;
            if (declared.known() && declared != t[n.b]) {
              fail(spot(body, n.b, id), fmt::format("'%{}' is declared {} but its value is {}", body.name(n.a), show(declared),
                                    show(t[n.b])));
            }
            t.set(n.a, t[n.b]);
            if (!(frame.phase & in_chain)) stack.push_back({id, 2});
            stack.push_back({n.c, in_chain});
            continue;
          } else {
            const Type type = t[last];  // the chain's last body
            for (ExprId e = id; body[e].kind == Kind::let; e = body[e].c) t.set(e, type);
          }
          break;
        case Kind::if_:
          if (t[n.a] != types::boolean) {
            fail(spot(body, n.a, id), fmt::format("the condition of 'if' is {}, not bool", show(t[n.a])));
          }
          if (t[n.b] != t[n.c]) {
            fail(id, fmt::format("the branches of 'if' differ: {} and {}", show(t[n.b]), show(t[n.c])));
          }
          t.set(id, t[n.b]);
          break;
        case Kind::tuple: {
          std::vector<Type> elements;
          for (ExprId e : body.elements(id)) elements.push_back(t[e]);
          t.set(id, shallow(table.tuple(elements), id));
          break;
        }
        case Kind::proj: {
          if (table.kind(t[n.a]) != TypeKind::tuple) fail(id, fmt::format("'.{}' needs a tuple, not {}", n.b, show(t[n.a])));
          const std::vector<Type> elements = table.elements(t[n.a]);
          if (n.b >= elements.size()) {
            fail(id, fmt::format("'.{}' is out of range for {}", n.b, show(t[n.a])));
          }
          t.set(id, elements[n.b]);
          break;
        }
        case Kind::fn: {
          std::vector<Type> params;
          for (ExprId p : body.fn_params(id)) params.push_back(t[p]);
          const Type type = shallow(table.function(params, t[n.c]), id);
          if (n.type.known() && n.type != type) {
            fail(id, fmt::format("the closure is declared {} but is {}", show(n.type), show(type)));
          }
          t.set(id, type);
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
          t.set(id, table.result(callee));
          break;
        }
        case Kind::op: t.set(id, op_type(body, id, t)); break;
      }
      last = id;
    }
    const Type result = t[body.root()];
    if (body.result().known() && body.result() != result) {
      const ExprId at = body[body.root()].kind == Kind::var ? no_expr : body.root();  // no_expr: the 'def'
      throw TypeFailure{at, fmt::format("'@{}' is declared to return {} but returns {}", fn.name,
                                        show(body.result()), show(result))};
    }
    return result;
  }

  template <class Types>
  Type op_type(const Body& body, ExprId id, const Types& t) {
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
  const std::unordered_map<std::string_view, std::size_t>& index_;
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
    const auto index = module.index();
    std::vector<Type> signatures(module.functions.size());
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      const Body& body = *module.functions[i].body;
      if (body.result().known()) {  // declared: callers may rely on it, recursion included
        signatures[i] = detail::Inference::signature(body, body.result());
      }
    }
    const std::size_t count = module.functions.size();
    const std::size_t threads = ctx.threads();
    std::vector<std::vector<std::size_t>> callees(count);
    passline::support::parallel_for(count, threads, [&](std::size_t i) { callees[i] = named_functions(*module.functions[i].body, index); });
    const detail::TypingOrder order = detail::typing_order(callees);
    callees = {};
    std::vector<detail::Inference::Outcome> outcomes(count);
    detail::Inference inference(module, signatures, index);
    for (const std::vector<std::size_t>& level : order.levels) {
      passline::support::parallel_for(level.size(), threads, [&](std::size_t k) {
        outcomes[level[k]] = inference.infer(level[k], order.in_progress[level[k]]);
      });
    }
    std::size_t errors = 0;
    for (const std::size_t i : order.finished) {
      if (!outcomes[i].failure) continue;
      ++errors;
      const detail::TypeFailure& failure = *outcomes[i].failure;
      const std::uint32_t loc = failure.at == no_expr ? module.functions[i].loc : (*module.functions[i].body)[failure.at].loc;
      ctx.diagnostics->report({.severity = Severity::error,
                               .location = module.source->location(loc),
                               .message = failure.message,
                               .snippet = module.source->snippet(loc)});
    }
    if (errors > 0) throw std::runtime_error(fmt::format("{} type error{}", errors, errors == 1 ? "" : "s"));
    passline::support::parallel_for(count, threads, [&](std::size_t i) {
      if (!outcomes[i].annotation) return;
      module.functions[i].body = detail::Inference::annotate(std::move(module.functions[i].body), *outcomes[i].annotation);
      outcomes[i].annotation.reset();
    });
    return module;
  }
};

}  // namespace passline::ir

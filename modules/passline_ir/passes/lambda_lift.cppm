// LambdaLift: moves every closure to a global function of its own.
//
// A closure that uses no variable from around it becomes a global, and the
// closure expression becomes a reference to that global. A closure that does
// use some (its free variables) becomes a global that takes them and returns
// the closure, as in Relay: `fn(%y) { add(%x, %y) }` turns into
// `@f_lifted0(%x)` with `def @f_lifted0(%x: i64) -> fn(i64) -> i64 { fn(%y: i64) { add(%x, %y) } }`.
// Inner closures go first, so no global holds more than one closure. Types of
// the free variables come from InferType.
module;
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
export module passline.ir.passes:lambda_lift;
import passline;
import passline.ir;

namespace passline::ir::detail {

class Lifter final : public Rewrite {
 public:
  Lifter(const Function& fn, std::unordered_set<std::string>& taken, std::vector<Function>& lifted)
      : fn_(fn), taken_(taken), lifted_(lifted) {}

  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind != Kind::fn) return list_node(out, n, list);
    const ExprId closure = out.copy_with_list(n, list);
    const std::vector<ExprId> free = free_variables(out, closure);
    std::string name;
    for (int k = 0; name.empty() || taken_.contains(name); ++k) name = fmt::format("{}_lifted{}", fn_.name, k);
    taken_.insert(name);

    BodyBuilder global;
    std::vector<ExprId> map(out.size(), no_expr);
    std::vector<ExprId> params;
    ExprId root;
    Type result;
    if (free.empty()) {  // the closure's own parameters and body
      for (ExprId p : out.list(out[closure].a, out[closure].b)) {
        params.push_back(map[p] = global.var(out.name(p), out[p].type, out[p].loc));
      }
      root = copy_tree(global, out, out[closure].c, map);
      result = TypeTable::global().result(n.type);
    } else {  // takes the free variables, returns the closure
      for (ExprId v : free) params.push_back(map[v] = global.var(out.name(v), out[v].type, out[v].loc));
      root = copy_tree(global, out, closure, map);
      result = n.type;
    }
    lifted_.push_back({.name = name, .body = global.finish(params, root, result), .loc = n.loc});
    changed = true;
    const ExprId callee = out.global(name, free.empty() ? n.type : signature(out, free, n.type), n.loc);
    if (free.empty()) return callee;
    return out.call(callee, free, n.type, n.loc);
  }

 private:
  /// The variables the closure uses but does not bind, in order of first use.
  static std::vector<ExprId> free_variables(const BodyBuilder& out, ExprId closure) {
    std::vector<std::uint8_t> bound(out.size(), 0);
    std::vector<std::uint8_t> seen(out.size(), 0);
    std::vector<ExprId> free;
    std::vector<ExprId> stack{closure};
    std::vector<ExprId> children;
    while (!stack.empty()) {
      const ExprId id = stack.back();
      stack.pop_back();
      const Node& n = out[id];
      if (n.kind == Kind::var) {
        if (!bound[id] && !seen[id]) free.push_back(id);
        seen[id] = 1;
        continue;
      }
      // Binders are bound before anything under them is visited.
      if (n.kind == Kind::let) bound[n.a] = 1;
      if (n.kind == Kind::fn) {
        for (ExprId p : out.list(n.a, n.b)) bound[p] = 1;
      }
      children.clear();
      for_each_child(out, id, [&](ExprId c) {
        if (!bound[c] || out[c].kind != Kind::var) children.push_back(c);
      });
      stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    return free;
  }

  static Type signature(const BodyBuilder& out, const std::vector<ExprId>& params, Type result) {
    std::vector<Type> types;
    for (ExprId p : params) types.push_back(out[p].type);
    return TypeTable::global().function(types, result);
  }

  const Function& fn_;
  std::unordered_set<std::string>& taken_;
  std::vector<Function>& lifted_;
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Lifts every closure to a global function (module pass).
struct LambdaLift {
  static constexpr PassInfo info{
      .name = "LambdaLift",
      .opt_level = 0,
      .required = needs<"InferType">,
      .summary = "lifts closures to global functions that take their free variables",
      .preserves = names<"InferType">,
  };

  Module operator()(Module module, PassContext&) const {
    std::unordered_set<std::string> taken;
    for (const Function& fn : module.functions) taken.insert(fn.name);
    std::vector<Function> lifted;
    for (Function& fn : module.functions) {
      if (fn.skip_optimization) continue;
      detail::Lifter lifter(fn, taken, lifted);
      fn.body = rewrite(fn.body, lifter);
    }
    for (Function& fn : lifted) module.functions.push_back(std::move(fn));
    return module;
  }
};

}  // namespace passline::ir

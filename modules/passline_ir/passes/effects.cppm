// Which expressions may trap or run forever: what a pass may not drop or add.
//
// Evaluation in the reference IR has no side effects, but it can stop: an i64
// `div` or `mod` traps on a zero divisor (or the smallest i64 by -1), and a
// call may trap inside or never return. An expression that can do neither is
// *pure*, and a pass may drop it or evaluate it once instead of twice. A
// global is pure when its body is and it is not recursive; a call through a
// closure is never known to be pure. Making a closure is pure (its body does
// not run then).
module;
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>
export module passline.ir.passes:effects;
import passline.ir;

export namespace passline::ir {

/// Whether an i64 `div` or `mod` with this divisor node can trap.
template <class Nodes>
bool may_trap(const Nodes& nodes, const Node& n) {
  if ((n.op != Op::div && n.op != Op::mod) || n.type == types::f64) return false;
  const Node& divisor = nodes[n.b];
  if (divisor.kind != Kind::int_const) return true;
  const auto value = static_cast<std::int64_t>((static_cast<std::uint64_t>(divisor.b) << 32) | divisor.a);
  return value == 0 || value == -1;
}

/// For each node of `body`: whether evaluating it may trap or not return.
/// `pure_global(name)` says whether calling that global is pure.
template <class PureGlobal>
std::vector<std::uint8_t> effects(const Body& body, PureGlobal&& pure_global) {
  // Operands come before the nodes that use them, so one pass in order does.
  std::vector<std::uint8_t> effect = detail::node_table(body.size(), std::uint8_t{0});
  for (ExprId id = 0; id < body.size(); ++id) {
    const Node& n = body[id];
    bool e = false;
    switch (n.kind) {
      case Kind::op: e = may_trap(body, n); break;
      case Kind::call: e = body[n.a].kind != Kind::global || !pure_global(body.name(n.a)); break;
      case Kind::fn: effect[id] = 0; continue;
      default: break;
    }
    if (!e) for_each_child(body, id, [&](ExprId c) { e = e || effect[c] != 0; });
    effect[id] = e ? 1 : 0;
  }
  return effect;
}

/// For each function of `module`: whether calling it is pure. `index` is
/// `module.index()`.
std::vector<std::uint8_t> pure_functions(const Module& module,
                                         const std::unordered_map<std::string_view, std::size_t>& index) {
  const std::size_t count = module.functions.size();
  enum : std::uint8_t { unseen, visiting, pure, impure };
  std::vector<std::uint8_t> state(count, unseen);
  // Depth-first over the call graph, without recursion; a call back into a
  // function being visited is recursion, which may not return.
  struct Frame {
    std::size_t function;
    bool callees_done;
  };
  for (std::size_t root = 0; root < count; ++root) {
    if (state[root] != unseen) continue;
    std::vector<Frame> stack{{root, false}};
    while (!stack.empty()) {
      const Frame frame = stack.back();
      stack.pop_back();
      const Body& body = *module.functions[frame.function].body;
      auto callee_of = [&](const Node& n) -> std::ptrdiff_t {
        if (n.kind != Kind::call || body[n.a].kind != Kind::global) return -1;
        auto it = index.find(body.name(n.a));
        return it == index.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
      };
      if (!frame.callees_done) {
        if (state[frame.function] != unseen) continue;
        state[frame.function] = visiting;
        stack.push_back({frame.function, true});
        for (const Node& n : body.nodes()) {
          const std::ptrdiff_t callee = callee_of(n);
          if (callee >= 0 && state[static_cast<std::size_t>(callee)] == unseen) {
            stack.push_back({static_cast<std::size_t>(callee), false});
          }
        }
        continue;
      }
      bool recursive = false;
      for (const Node& n : body.nodes()) {
        const std::ptrdiff_t callee = callee_of(n);
        if (callee >= 0 && state[static_cast<std::size_t>(callee)] == visiting) recursive = true;
      }
      const auto effect = effects(body, [&](std::string_view name) {
        auto it = index.find(name);
        return it != index.end() && state[it->second] == pure;
      });
      state[frame.function] = !recursive && effect[body.root()] == 0 ? pure : impure;
    }
  }
  std::vector<std::uint8_t> result(count);
  for (std::size_t i = 0; i < count; ++i) result[i] = state[i] == pure ? 1 : 0;
  return result;
}

}  // namespace passline::ir

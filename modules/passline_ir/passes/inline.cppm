// Inline: replaces calls of small global functions by their bodies.
//
// A call `@g(a, b)` of a function whose body has at most `max-size` nodes
// becomes `let %x = a; let %y = b; <body of @g>`, so the arguments are still
// evaluated once, in order, before the body. Functions are handled callees
// first, so a body is inlined with its own calls already inlined. A recursive
// function is never inlined, nor is one whose calls lead into recursion, nor
// one marked `#[noopt]` (whose own body is left alone too). A callee that
// nothing calls any more stays until DeadCodeElimination removes it. A
// function that inlining would nest deeper than max_nesting keeps its calls.
module;
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>
export module passline.ir.passes:inline_;
import passline;
import passline.ir;
import :analyses;

namespace passline::ir::detail {

/// The nodes of `body` reachable from its root (what it costs to copy).
inline std::size_t live_size(const Body& body) {
  std::vector<std::uint8_t> seen(body.size(), 0);
  std::vector<ExprId> stack{body.root()};
  std::size_t count = 0;
  while (!stack.empty()) {
    const ExprId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = 1;
    ++count;
    for_each_child(body, id, [&](ExprId c) { stack.push_back(c); });
  }
  return count;
}

class Inliner final : public Rewrite {
 public:
  Inliner(const std::unordered_map<std::string_view, std::size_t>& index,
          const std::vector<std::shared_ptr<const Body>>& bodies, const std::vector<std::size_t>& sizes,
          const std::vector<std::uint8_t>& inlinable, std::size_t budget)
      : index_(index), bodies_(bodies), sizes_(sizes), inlinable_(inlinable), budget_(budget) {}
  /// Calls replaced by the callee's body.
  std::int64_t inlined = 0;
  /// Nodes the copies of bodies added, at most the budget.
  std::size_t added = 0;

  ExprId node(BodyBuilder& out, ExprId, const Node& n, std::vector<ExprId>& list) override {
    if (n.kind != Kind::call || out[n.a].kind != Kind::global) return list_node(out, n, list);
    const auto callee = index_.find(out.name(n.a));
    if (callee == index_.end() || !inlinable_[callee->second]) return list_node(out, n, list);
    const Body& body = *bodies_[callee->second];
    if (body.params().size() != list.size()) return list_node(out, n, list);
    if (added + sizes_[callee->second] > budget_) return list_node(out, n, list);
    added += sizes_[callee->second];
    map_.assign(body.size(), no_expr);
    std::vector<ExprId> vars;
    for (ExprId p : body.params()) {
      map_[p] = out.var(body.name(p), body[p].type, body[p].loc);
      vars.push_back(map_[p]);
    }
    ExprId result = copy_tree(out, body, body.root(), map_);
    for (std::size_t i = vars.size(); i-- > 0;) result = out.let(vars[i], list[i], result, n.type, n.loc);
    changed = true;
    ++inlined;
    return result;
  }

 private:
  const std::unordered_map<std::string_view, std::size_t>& index_;
  const std::vector<std::shared_ptr<const Body>>& bodies_;
  const std::vector<std::size_t>& sizes_;
  const std::vector<std::uint8_t>& inlinable_;
  std::size_t budget_;
  std::vector<ExprId> map_;
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Inlines calls of non-recursive global functions of at most `max_size` nodes.
struct Inline {
  static constexpr PassInfo info{
      .name = "Inline",
      .opt_level = 3,
      .summary = "replaces calls of small non-recursive functions by their bodies",
      .preserves = names<"InferType">,
  };
  std::int64_t max_size = 32;
  std::int64_t max_growth = 2;
  static constexpr auto options = passline::options(
      passline::option<&Inline::max_size>("max-size", "largest callee inlined, in nodes of its body"),
      passline::option<&Inline::max_growth>(
          "max-growth", "most nodes inlining adds to a module, as a multiple of its size (bounds time and size)"));

  Module operator()(Module module, PassContext& ctx) const {
    const std::size_t count = module.functions.size();
    const auto index = module.index();
    // Functions callees first; one in or above a cycle is inlined into, never inlined.
    const CallGraph::Result& graph = ctx.analyses<Module>().get<CallGraph>(module);
    const std::vector<std::size_t>& order = graph.bottom_up;
    const std::vector<std::uint8_t>& placed = graph.acyclic;
    std::vector<std::uint8_t> inlinable(count, 0);

    std::vector<std::shared_ptr<const Body>> bodies;
    std::size_t module_size = 0;
    for (const Function& fn : module.functions) {
      bodies.push_back(fn.body);
      module_size += fn.body->size();
    }
    // What inlining may add in all: on a program whose functions each call
    // the one before twice, every level doubles, and only this bounds it.
    std::size_t budget = module_size * static_cast<std::size_t>(std::max<std::int64_t>(max_growth, 0));
    std::vector<std::size_t> sizes(count, 0);
    for (std::size_t i : order) {
      const Function& fn = module.functions[i];
      if (!fn.skip_optimization) {
        detail::Inliner inliner(index, bodies, sizes, inlinable, budget);
        std::shared_ptr<const Body> inlined = rewrite(bodies[i], inliner);
        // A body that inlining would nest deeper than the IR allows (so that
        // its text would not read back) keeps its calls.
        if (nesting(*inlined)[inlined->root()] <= max_nesting) {
          bodies[i] = std::move(inlined);
          budget -= inliner.added;
          ctx.statistics->add(info.name, "calls inlined", inliner.inlined);
        }
      }
      sizes[i] = detail::live_size(*bodies[i]);
      inlinable[i] = placed[i] && !fn.skip_optimization && sizes[i] <= static_cast<std::size_t>(max_size) ? 1 : 0;
    }
    for (std::size_t i = 0; i < count; ++i) module.functions[i].body = bodies[i];
    return module;
  }
};

}  // namespace passline::ir

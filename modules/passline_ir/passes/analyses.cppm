// Analyses of the reference IR, cached by passline's AnalysisManager.
//
// CallGraph: which globals each function's body names, and the functions in
// an order where each comes after those it names (Inline inlines callees
// first; DeadCodeElimination walks it from the exported functions).
// Purity: which functions are pure to call (DeadCodeElimination drops an
// unused let only when its value is pure).
//
// A pass keeps them valid by naming them in `PassInfo::preserves`: InferType
// keeps both (it writes types only); EliminateCommonSubexpr (it merges equal
// expressions, so each body names the same globals) and ToANormalForm (it
// only binds subexpressions to lets) keep the call graph. Purity, read off
// the shape of a body, is not theirs to keep. Property tests check each
// declaration on random programs.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
export module passline.ir.passes:analyses;
import passline;
import passline.ir;
import :effects;

export namespace passline::ir {

/// The functions `body` names (calls, and closures of globals): their
/// positions in `index` (`Module::index()`), each once, in the order of
/// first mention. Linear in the body, whatever the number of functions.
inline std::vector<std::size_t> named_functions(const Body& body,
                                                const std::unordered_map<std::string_view, std::size_t>& index) {
  std::vector<std::pair<std::size_t, ExprId>> mentions;  // (function, where)
  for (ExprId id = 0; id < body.size(); ++id) {
    if (body[id].kind != Kind::global) continue;
    if (const auto it = index.find(body.name(id)); it != index.end()) mentions.emplace_back(it->second, id);
  }
  std::ranges::sort(mentions);  // by function, then where: each function's first mention first
  const auto repeats = std::ranges::unique(mentions, {}, &std::pair<std::size_t, ExprId>::first);
  mentions.erase(repeats.begin(), repeats.end());
  std::ranges::sort(mentions, {}, &std::pair<std::size_t, ExprId>::second);
  std::vector<std::size_t> functions;
  functions.reserve(mentions.size());
  for (const auto& mention : mentions) functions.push_back(mention.first);
  return functions;
}

/// The call graph: which functions each function's body names (calls, and
/// closures of globals), each once.
struct CallGraph {
  static constexpr AnalysisInfo info{.name = "CallGraph",
                                     .summary = "which functions each function names, callees first"};

  struct Result {
    /// For each function, the functions its body names, in order of first mention.
    std::vector<std::vector<std::size_t>> callees;
    /// For each function, the functions that name it, in function order.
    std::vector<std::vector<std::size_t>> callers;
    /// Every function after those it names; those in, or leading into, a
    /// cycle come last, in function order.
    std::vector<std::size_t> bottom_up;
    /// Whether a function is neither in nor leads into a cycle.
    std::vector<std::uint8_t> acyclic;

    friend bool operator==(const Result&, const Result&) = default;

    /// The functions that `roots` reach by naming, the roots included.
    std::vector<std::uint8_t> reachable_from(std::vector<std::uint8_t> roots) const {
      std::vector<std::size_t> work;
      for (std::size_t i = 0; i < roots.size(); ++i) {
        if (roots[i]) work.push_back(i);
      }
      while (!work.empty()) {
        const std::size_t function = work.back();
        work.pop_back();
        for (std::size_t callee : callees[function]) {
          if (!roots[callee]) {
            roots[callee] = 1;
            work.push_back(callee);
          }
        }
      }
      return roots;
    }
  };

  Result operator()(const Module& module) const {
    const std::size_t count = module.functions.size();
    const auto index = module.index();
    Result graph{.callees = std::vector<std::vector<std::size_t>>(count),
                 .callers = std::vector<std::vector<std::size_t>>(count),
                 .bottom_up = {},
                 .acyclic = std::vector<std::uint8_t>(count, 0)};
    for (std::size_t i = 0; i < count; ++i) {
      graph.callees[i] = named_functions(*module.functions[i].body, index);
      for (const std::size_t callee : graph.callees[i]) graph.callers[callee].push_back(i);
    }
    // Kahn's algorithm on the reversed edges: a function is ready once every
    // function it names is placed. What is never ready is in, or leads into, a cycle.
    std::vector<std::size_t> pending(count, 0);
    for (std::size_t i = 0; i < count; ++i) pending[i] = graph.callees[i].size();
    for (std::size_t i = 0; i < count; ++i) {
      if (pending[i] == 0) graph.bottom_up.push_back(i);
    }
    for (std::size_t k = 0; k < graph.bottom_up.size(); ++k) {
      for (std::size_t caller : graph.callers[graph.bottom_up[k]]) {
        if (--pending[caller] == 0) graph.bottom_up.push_back(caller);
      }
    }
    for (std::size_t i : graph.bottom_up) graph.acyclic[i] = 1;
    for (std::size_t i = 0; i < count; ++i) {
      if (!graph.acyclic[i]) graph.bottom_up.push_back(i);
    }
    return graph;
  }
};

/// For each function: whether calling it is pure (it neither traps nor fails
/// to return; see effects).
struct Purity {
  static constexpr AnalysisInfo info{.name = "Purity", .summary = "which functions are pure to call"};

  std::vector<std::uint8_t> operator()(const Module& module) const { return pure_functions(module, module.index()); }
};

}  // namespace passline::ir

// DeadCodeElimination: drops what cannot affect the result.
//
// Three kinds of dead code go: a `let` whose variable is never used and whose
// value is pure (see effects), the branch of an `if` on a constant that is
// never taken, and a global that no exported function can reach. A module
// that exports nothing keeps all its globals, since nothing says where it is
// entered. Functions marked `#[noopt]` are neither changed nor removed.
module;
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>
export module passline.ir.passes:dead_code;
import passline;
import passline.support;
import passline.ir;
import :effects;
import :analyses;

namespace passline::ir::detail {

class DeadCode final : public Rewrite {
 public:
  explicit DeadCode(std::vector<std::uint8_t> effect) : effect_(std::move(effect)) {}

  /// Decides every `let` before the walk, so the walk never reads the
  /// input body (and may write over it).
  void start(const detail::RewriteInput& in) override {
    mark_used(in);
    dead_ = detail::node_table(in.size(), std::uint8_t{0});
    for (ExprId id = 0; id < in.size(); ++id) {
      if (in.kind(id) != Kind::let) continue;
      const Node n = in[id];
      dead_[id] = !used_[n.a] && effect_[n.b] == 0;
    }
    used_ = {};
    effect_ = {};
  }

  bool drop(ExprId let) override {
    dropped += dead_[let];
    return dead_[let] != 0;
  }
  /// Lets dropped.
  std::int64_t dropped = 0;

  int branch(const BodyBuilder& out, ExprId cond) override {
    return out[cond].kind == Kind::bool_const ? (out[cond].a != 0 ? 0 : 1) : -1;
  }

 private:
  /// Marks the variables that live code uses. A let's body is walked before
  /// its value, so a value is walked only when the variable turned out used
  /// (or the value must run anyway): dead chains go in one pass. A variable
  /// is marked where it is used, by its kind alone: its node, which may be
  /// far back in a large body, is not read.
  void mark_used(const detail::RewriteInput& in) {
    used_ = detail::node_table(in.size(), std::uint8_t{0});
    struct Frame {
      ExprId id;
      bool body_done;
    };
    std::vector<Frame> stack = detail::walk_stack(in.size(), Frame{in.root(), false});
    auto walk = [&](ExprId c) {
      if (in.kind(c) == Kind::var) {
        used_[c] = 1;
      } else {
        stack.push_back({c, false});
      }
    };
    while (!stack.empty()) {
      const auto [id, body_done] = stack.back();
      stack.pop_back();
      const Node n = in[id];
      if (n.kind == Kind::var) {
        used_[id] = 1;
      } else if (n.kind == Kind::let) {
        if (!body_done) {
          stack.push_back({id, true});
          stack.push_back({n.c, false});
        } else if (used_[n.a] || effect_[n.b]) {
          stack.push_back({n.b, false});
        }
      } else if (n.kind == Kind::if_ && in.kind(n.a) == Kind::bool_const) {
        stack.push_back({in[n.a].a != 0 ? n.b : n.c, false});
      } else if (n.kind == Kind::fn) {
        stack.push_back({n.c, false});
      } else {
        for_each_operand(n, in, walk);
      }
    }
  }

  std::vector<std::uint8_t> effect_;
  std::vector<std::uint8_t> used_;
  std::vector<std::uint8_t> dead_;  // per let: dropped
};

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Drops unused pure lets, branches never taken, and globals nothing exported reaches.
struct DeadCodeElimination {
  static constexpr PassInfo info{
      .name = "DeadCodeElimination",
      .opt_level = 1,
      .summary = "drops unused pure lets, branches never taken and unreachable globals",
      .preserves = names<"InferType">,
  };

  Module operator()(Module module, PassContext& ctx) const {
    // Names stay where they are (bodies change, not the list), so one index serves throughout.
    const auto index = module.index();
    auto& analyses = ctx.analyses<Module>();
    const std::vector<std::uint8_t>& pure = analyses.get<Purity>(module);
    auto pure_global = [&](std::string_view name) {
      auto it = index.find(name);
      return it != index.end() && pure[it->second] != 0;
    };
    // Each function on its own, on the context's threads, as a function pass runs.
    passline::support::parallel_for(module.functions.size(), ctx.threads(), [&](std::size_t i) {
      Function& fn = module.functions[i];
      if (fn.skip_optimization) return;
      detail::DeadCode dead(effects(*fn.body, pure_global));
      fn.body = rewrite(std::move(fn.body), dead);  // in place when this module alone holds it
      ctx.statistics->add(info.name, "lets dropped", dead.dropped);
    });

    std::vector<std::uint8_t> root(module.functions.size(), 0);
    bool any_export = false;
    for (std::size_t i = 0; i < root.size(); ++i) {
      const Function& fn = module.functions[i];
      any_export = any_export || fn.exported;
      root[i] = fn.exported || fn.skip_optimization ? 1 : 0;
    }
    if (!any_export) return module;
    // The bodies name fewer globals now: the call graph is that of the rewritten module.
    analyses.forget<CallGraph>();
    const std::vector<std::uint8_t> live = analyses.get<CallGraph>(module).reachable_from(std::move(root));
    std::vector<Function> kept;
    for (std::size_t i = 0; i < module.functions.size(); ++i) {
      if (live[i]) kept.push_back(std::move(module.functions[i]));
    }
    ctx.statistics->add(info.name, "functions dropped",
                        static_cast<std::int64_t>(module.functions.size() - kept.size()));
    module.functions = std::move(kept);
    return module;
  }
};

}  // namespace passline::ir

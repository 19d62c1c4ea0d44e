// Internal but for `Pass::plan` and `plan_text`: how a pipeline is planned under a context.
//
// Every runtime pipeline, whatever it was built from (static passes and
// pipelines, runtime `sequential`, pipeline text, slots), lowers to a Plan:
// the steps in the order they run, each with its pass, its place (depth, the
// pipeline around it) and why it runs (listed; required by a later pass that
// it had not run for; run again because a pass since did not preserve it).
// The plan is made once per pipeline and context settings, from the gating
// rule of the context and the one rule for required passes (`:requirements`,
// the rule static pipelines decide at compile time), and then one loop runs
// it (`Run::loop`): should_run, before, run, after (or after_failed). Under
// a context without instruments the hooks are compiled out of the loop.
module;
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
export module passline:plan;
import :pass_info;
import :context;
import :error;
import :requirements;
import :node;
import passline.support;

export namespace passline {

/// One step of a pass's plan under a context (`Pass::plan`): what
/// `passline-opt --print-pipeline=expanded` prints.
struct PlannedStep {
  /// The pass as pipeline text, with its options: `Inline{max-size=40}`.
  std::string pass;
  /// 0 at the top, 1 inside one pipeline, and so on.
  std::size_t depth = 0;
  /// A pipeline, whose steps follow one level deeper.
  bool pipeline = false;
  RunReason reason = RunReason::listed;
  /// For a required pass: its user; for a re-run, also the pass that did not preserve it.
  std::string required_by = {};
  std::string invalidated_by = {};
};

/// A plan as text, a step per line, indented by depth, with why each
/// required pass runs where it does.
inline std::string plan_text(const std::vector<PlannedStep>& steps) {
  std::string text;
  for (const PlannedStep& step : steps) {
    text.append(2 * step.depth, ' ');
    text += step.pass;
    if (step.reason == RunReason::required) {
      text += fmt::format("  (required by {})", step.required_by);
    } else if (step.reason == RunReason::rerun) {
      text += fmt::format("  (re-run for {}: {} does not preserve it)", step.required_by, step.invalidated_by);
    }
    text += '\n';
  }
  return text;
}

}  // namespace passline

namespace passline::detail {

// Planning failures are RequirementErrors.
// The messages are made by functions that are not templates: their format
// strings are checked when the module is compiled.

inline std::string requirement_disabled(std::string_view user, std::string_view required) {
  return fmt::format("pass '{}' requires '{}', which the pass context disables", user, required);
}

inline std::string requirement_cycle(const std::vector<std::string_view>& cycle) {
  return fmt::format("required passes form a cycle: {}", fmt::join(cycle, " -> "));
}

inline std::string requirement_conflict(std::string_view user, std::string_view required, std::string_view breaker) {
  return fmt::format(
      "pass '{}' requires '{}', but its other requirements run '{}', which does not preserve it: no order satisfies "
      "them all",
      user, required, breaker);
}

inline std::string requirement_missing(std::string_view user, std::string_view missing, const std::string& suggestion,
                                       const std::vector<std::string_view>& chain) {
  return fmt::format("pass '{}' requires '{}', which is not registered{} (chain: {})", user, missing, suggestion,
                     fmt::join(chain, " -> "));
}

// -- Planning ----------------------------------------------------------------

/// Makes the plan of a pipeline under a context: gates every pass, keeps the
/// listed passes that running passes require (`close_over_requirements`, the
/// rule static pipelines apply at compile time), and inserts the required
/// passes that do not hold where their user runs (`satisfy`).
template <class IR>
class Planner {
 public:
  explicit Planner(const PassContext& ctx) : ctx_(ctx) {}

  Plan<IR> plan(const PassNode<IR>& root) {
    plan_.key = PlanKey::of(ctx_);
    const Pipeline<IR>* pipeline = root.pipeline();
    // The pass run is not gated, as in TVM (Pass::operator() in
    // src/ir/transform.cc asks only the instruments): a pipeline gates its
    // passes (SequentialNode::operator()), a pass called on its own runs.
    flatten(root, 0, npos, pipeline ? pipeline->source : nullptr, false, true);
    keep_listed_providers();
    step_of_.assign(entries_.size(), npos);
    for (std::size_t i = 0; i < entries_.size(); ++i) place(i);
    return std::move(plan_);
  }

 private:
  using Kind = typename PlanStep<IR>::Kind;
  struct Entry {
    const PassNode<IR>* node;
    Kind kind;
    std::size_t depth;
    std::size_t parent;  // entry index of the enclosing open
    bool runs;
    const PassSource<IR>* source;
    std::string_view required_by = {};
    std::size_t match = npos;  // a close's open
  };

  /// The pipeline as entries: pipelines open and close around their passes;
  /// what the context gates off is marked (a pipeline gated off is left out).
  /// The root is not gated; the passes of a list (pipeline text's `A,B`)
  /// are gated as a pipeline's.
  void flatten(const PassNode<IR>& node, std::size_t depth, std::size_t parent, const PassSource<IR>* source,
               bool decided, bool root = false) {
    const bool enabled = decided || root || ctx_.pass_enabled(node.info);
    const Pipeline<IR>* pipeline = node.pipeline();
    if (!pipeline) {
      entries_.push_back({&node, Kind::pass, depth, parent, enabled, source});
      return;
    }
    if (pipeline->source) source = pipeline->source;
    if (pipeline->kind == PipelineKind::list) {
      for (const auto& pass : pipeline->passes) flatten(*pass, depth, parent, source, decided);
      return;
    }
    if (!enabled) return;
    decided = decided || pipeline->kind == PipelineKind::compiled;
    const std::size_t open = entries_.size();
    entries_.push_back({&node, Kind::open, depth, parent, true, source});
    for (const auto& pass : pipeline->passes) flatten(*pass, depth + 1, open, source, decided);
    entries_.push_back({&node, Kind::close, depth, parent, true, source, {}, open});
  }

  /// A listed pass that a running pass requires runs too, whatever its opt
  /// level, at its listed place; one that the context disables is an error
  /// naming its first user.
  void keep_listed_providers() {
    std::vector<std::size_t> passes;  // entry index of each pass
    std::vector<PassInfo> infos;
    std::vector<unsigned char> runs;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].kind != Kind::pass) continue;
      passes.push_back(i);
      infos.push_back(entries_[i].node->info);
      runs.push_back(entries_[i].runs ? 1 : 0);
    }
    const Closure closure =
        close_over_requirements(infos, std::move(runs), [&](std::string_view name) { return ctx_.is_disabled(name); });
    if (closure.finding.problem == Problem::disabled_required) {
      throw RequirementError(requirement_disabled(infos[closure.finding.pass].name, infos[closure.finding.other].name));
    }
    for (std::size_t k = 0; k < passes.size(); ++k) {
      Entry& entry = entries_[passes[k]];
      if (entry.runs || !closure.runs[k]) continue;
      entry.runs = true;
      entry.required_by = infos[closure.required_by[k]].name;
    }
  }

  /// Names by dense id, as `satisfy` reads them: each name's latest pass, or
  /// the one a registry has under it.
  struct Table {
    Planner& planner;
    const PassSource<IR>& source;
    const PassInfo& info(std::size_t id) const { return planner.nodes_[id]->info; }
    std::size_t find(std::string_view name) const {
      if (auto it = planner.ids_.find(name); it != planner.ids_.end()) return it->second;
      std::shared_ptr<const PassNode<IR>> node = source.find_node(name);
      if (!node) return npos;
      const std::size_t id = planner.name(node.get());
      planner.ids_.emplace(name, id);
      planner.plan_.found.push_back(std::move(node));
      return id;
    }
  };

  /// The id of `node`'s name; `node` becomes the pass run for it.
  std::size_t name(const PassNode<IR>* node) {
    auto [it, added] = ids_.emplace(node->info.name, nodes_.size());
    if (added) {
      nodes_.push_back(node);
    } else {
      nodes_[it->second] = node;
    }
    return it->second;
  }

  void place(std::size_t i) {
    Entry& entry = entries_[i];
    std::vector<PlanStep<IR>>& steps = plan_.steps;
    const std::size_t parent = entry.parent == npos ? npos : step_of_[entry.parent];
    if (entry.kind == Kind::open) {
      // A pipeline's own requirements hold before it opens, as a pass's do.
      if (!entry.node->info.required.empty()) satisfy_requirements(entry, parent);
      step_of_[i] = steps.size();
      steps.push_back({.node = entry.node, .kind = Kind::open, .depth = entry.depth, .parent = parent});
      return;
    }
    if (entry.kind == Kind::close) {
      const std::size_t open = step_of_[entry.match];
      steps[open].match = steps.size();
      steps.push_back(
          {.node = entry.node, .kind = Kind::close, .depth = entry.depth, .parent = parent, .match = open});
      return;
    }
    if (!entry.runs) return;
    if (!entry.required_by.empty()) {
      // A listed pass kept only for a later pass that requires it (one that
      // resolution inserted, say) is not needed where its requirement holds:
      // the pass that would have broken it does not run under this context.
      if (auto known = ids_.find(entry.node->info.name); known != ids_.end() && validity_.holds(known->second)) return;
    }
    if (!entry.node->info.required.empty()) satisfy_requirements(entry, parent);
    // A listed pass kept for a later pass that requires it: run for the first
    // time, or again because a pass since did not preserve it.
    const std::size_t id = name(entry.node);
    RunReason reason = RunReason::listed;
    std::string_view invalidated_by;
    if (!entry.required_by.empty()) {
      const std::size_t breaker = validity_.broken_by(id);
      reason = breaker == npos ? RunReason::required : RunReason::rerun;
      if (breaker != npos) invalidated_by = plan_.steps[breaker].node->info.name;
    }
    add(*entry.node, reason, entry.required_by, invalidated_by, entry.depth, parent);
    validity_.ran(entry.node->info, id, plan_.steps.size() - 1, name_of());
  }

  auto name_of() const {
    return [this](std::size_t id) { return nodes_[id]->info.name; };
  }

  void add(const PassNode<IR>& node, RunReason reason, std::string_view required_by, std::string_view invalidated_by,
           std::size_t depth, std::size_t parent) {
    plan_.steps.push_back({.node = &node,
                           .runner = node.leaf(),
                           .kind = Kind::pass,
                           .reason = reason,
                           .depth = depth,
                           .parent = parent,
                           .required_by = required_by,
                           .invalidated_by = invalidated_by});
  }

  /// Inserts before `user` the passes its requirements need (`satisfy`).
  void satisfy_requirements(const Entry& user, std::size_t parent) {
    // A pipeline built without a registry finds passes in the process-wide one.
    const PassSource<IR>& source = user.source ? *user.source : process_registry<IR>();
    Table table{*this, source};
    const std::size_t id = name(user.node);
    std::vector<std::size_t> chain;
    auto emit = [&](std::size_t required, RunReason reason, std::size_t required_by) {
      const PassNode<IR>& node = *nodes_[required];
      const std::string_view user_name = nodes_[required_by]->info.name;
      if (ctx_.is_disabled(node.info.name)) throw RequirementError(requirement_disabled(user_name, node.info.name));
      const std::size_t breaker = validity_.broken_by(required);
      insert(node, reason, user_name,
             reason == RunReason::rerun ? plan_.steps[breaker].node->info.name : std::string_view(), user.depth,
             parent);
      validity_.ran(node.info, required, plan_.steps.size() - 1, name_of());
    };
    const Finding finding = satisfy(table, id, validity_, emit, work_, &chain);
    if (finding.problem == Problem::none) return;
    const PassInfo& info = nodes_[finding.pass]->info;
    if (finding.problem == Problem::cycle) {
      chain.push_back(chain.front());
      throw RequirementError(requirement_cycle(names(chain)));
    }
    if (finding.problem == Problem::conflict) {
      throw RequirementError(requirement_conflict(info.name, nodes_[finding.other]->info.name,
                                                  plan_.steps[finding.breaker].node->info.name));
    }
    const std::string_view missing = info.required[finding.requirement];
    std::vector<std::string_view> path = names(chain);
    path.push_back(missing);
    throw RequirementError(
        requirement_missing(info.name, missing, support::did_you_mean(missing, source.node_names()), path));
  }

  std::vector<std::string_view> names(const std::vector<std::size_t>& ids) const {
    std::vector<std::string_view> result;
    for (std::size_t id : ids) result.push_back(nodes_[id]->info.name);
    return result;
  }

  /// A required pass; one that is a pipeline runs whole.
  void insert(const PassNode<IR>& node, RunReason reason, std::string_view required_by,
              std::string_view invalidated_by, std::size_t depth, std::size_t parent) {
    const Pipeline<IR>* pipeline = node.pipeline();
    if (!pipeline) {
      add(node, reason, required_by, invalidated_by, depth, parent);
      return;
    }
    std::vector<PlanStep<IR>>& steps = plan_.steps;
    const std::size_t open = steps.size();
    steps.push_back({.node = &node, .kind = Kind::open, .reason = reason, .depth = depth, .parent = parent,
                     .required_by = required_by, .invalidated_by = invalidated_by});
    for (const auto& pass : pipeline->passes) {
      insert(*pass, RunReason::listed, {}, {}, depth + 1, open);
      if (pass->leaf()) validity_.ran(pass->info, name(pass.get()), steps.size() - 1, name_of());
    }
    steps[open].match = steps.size();
    steps.push_back({.node = &node, .kind = Kind::close, .depth = depth, .parent = parent, .match = open});
  }

  const PassContext& ctx_;
  Plan<IR> plan_;
  std::vector<Entry> entries_;
  std::vector<std::size_t> step_of_;
  std::map<std::string_view, std::size_t, std::less<>> ids_;
  std::vector<const PassNode<IR>*> nodes_;
  Validity validity_;
  SatisfyStack work_;  // satisfy's stack, its room made once
};

template <class IR>
std::shared_ptr<const Plan<IR>> PassNode<IR>::plan_for(const PassContext& ctx) const {
  {
    std::lock_guard lock(plan_mutex_);
    if (plan_ && plan_->key.matches(ctx)) return plan_;
  }
  auto plan = std::make_shared<const Plan<IR>>(Planner<IR>(ctx).plan(*this));
  std::lock_guard lock(plan_mutex_);
  plan_ = plan;
  return plan;
}

}  // namespace passline::detail

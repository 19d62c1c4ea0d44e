// Internal: plan, then run. Not part of the API.
//
// Every runtime pipeline, whatever it was built from (static passes and
// pipelines, runtime `sequential`, pipeline text, slots), lowers to a Plan:
// the steps in the order they run, each with its pass, its place (depth, the
// pipeline around it) and why it runs (listed; required by a later pass that
// it had not run for; run again because a pass since did not preserve it).
// The plan is made once per pipeline and context settings, from the gating
// rule of the context and the one rule for required passes (`:requirements`,
// the rule static pipelines decide at compile time), and then one loop runs
// it: should_run, before, run, after (or after_failed).
//
// The loop is threaded: each step, after its pass, jumps to the next step's
// code with a guaranteed tail call, so each indirect jump has one usual target
// and is predicted. A plan for a context without instruments is the same loop
// with the hooks compiled out.
module;
#include <array>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
export module passline:plan;
import :pass_info;
import :context;
import :instrument;
import :ir_view;
import :value;
import :error;
import :suggest;
import :requirements;
import :analysis_manager;
import :invoke;

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

/// A PassInfo whose strings the node owns, for passes described at run time.
struct OwnedInfo {
  explicit OwnedInfo(const PassInfo& source)
      : name(source.name), summary(source.summary), required(source.required.begin(), source.required.end()),
        preserves(source.preserves.begin(), source.preserves.end()) {
    required_views.assign(required.begin(), required.end());
    preserves_views.assign(preserves.begin(), preserves.end());
    info = PassInfo{.name = name,
                    .opt_level = source.opt_level,
                    .required = required_views,
                    .summary = summary,
                    .optional = source.optional,
                    .preserves = preserves_views};
  }
  OwnedInfo(const OwnedInfo&) = delete;
  OwnedInfo& operator=(const OwnedInfo&) = delete;
  std::string name;
  std::string summary;
  std::vector<std::string> required;
  std::vector<std::string> preserves;
  std::vector<std::string_view> required_views;
  std::vector<std::string_view> preserves_views;
  PassInfo info;
};

template <class IR>
struct PassNode;
template <class IR>
struct PlanStep;
template <class IR>
class Run;
template <class IR>
struct Plan;

/// The code of one step: runs it, then jumps to the next.
template <class IR>
using Jump = void (*)(const PlanStep<IR>* step, Run<IR>& run);

template <class IR, class Node, bool Watched>
void pass_jump(const PlanStep<IR>* step, Run<IR>& run);

/// A pass's jumps: without hooks, and with them.
template <class IR, class Node>
inline constexpr std::array<Jump<IR>, 2> jumps_of{&pass_jump<IR, Node, false>, &pass_jump<IR, Node, true>};

/// Where a plan finds required passes by name: a registry.
template <class IR>
class PassSource {
 public:
  virtual ~PassSource() = default;
  /// The pass registered as `name` with its default options, or null.
  virtual std::shared_ptr<const PassNode<IR>> find_node(std::string_view name) const = 0;
  virtual std::vector<std::string_view> node_names() const = 0;
};

/// The source of last resort: the process-wide registry, once it exists.
template <class IR>
const PassSource<IR>*& global_source() {
  static const PassSource<IR>* source = nullptr;
  return source;
}

/// What a plan depends on besides the pipeline: the context's gating settings,
/// and whether it has instruments.
struct PlanKey {
  int opt_level = 0;
  bool watched = false;
  std::vector<std::string> required;
  std::vector<std::string> disabled;

  static PlanKey of(const PassContext& ctx) {
    return {.opt_level = ctx.opt_level,
            .watched = !ctx.instruments.empty(),
            .required = ctx.required,
            .disabled = ctx.disabled};
  }
  bool matches(const PassContext& ctx) const {
    return opt_level == ctx.opt_level && watched == !ctx.instruments.empty() && required == ctx.required &&
           disabled == ctx.disabled;
  }
};

/// A runtime pass: a leaf that runs, or a pipeline of nodes.
template <class IR>
struct PassNode {
  explicit PassNode(const PassInfo& static_info) : info(static_info) {}
  explicit PassNode(std::unique_ptr<OwnedInfo> owned) : info(owned->info), storage(std::move(owned)) {}
  PassNode(const PassNode&) = delete;
  PassNode& operator=(const PassNode&) = delete;
  virtual ~PassNode() = default;
  /// Runs a leaf. Pipelines are planned, never called.
  virtual IR run(IR ir, PassContext&) const { return ir; }

  PassInfo info;
  std::unique_ptr<OwnedInfo> storage = nullptr;
  /// Children of a pipeline, in order.
  std::vector<std::shared_ptr<const PassNode>> children = {};
  /// A pipeline: prints as `seq(...)` of its children, and plans as them.
  bool sequence = false;
  /// Where this pipeline's passes find their requirements; null: the enclosing one's.
  const PassSource<IR>* source = nullptr;
  /// Option values, for printing the pass as pipeline text.
  std::vector<std::pair<std::string, Value>> options = {};
  /// When set, the pass prints as this name (a pipeline registered by name).
  std::string registered_as = {};
  /// The list of pipeline text: its passes stand at the top, as if run one by
  /// one, so it is no pass of its own to instruments or in error paths.
  bool transparent = false;
  /// A pipeline that decided at compile time which passes run (`Compiled`):
  /// the context does not gate them.
  bool decided = false;
  /// A function pass: it drops the analysis results of the functions it ran on only.
  bool function_pass = false;
  /// How a plan runs this leaf: set by each node type to jumps that call its
  /// `run` directly.
  std::array<Jump<IR>, 2> jumps = jumps_of<IR, PassNode>;

  /// The plan for the last context settings it ran under.
  std::shared_ptr<const Plan<IR>> plan_for(const PassContext& ctx) const;

 private:
  mutable std::mutex plan_mutex_;
  mutable std::shared_ptr<const Plan<IR>> plan_;
};

/// One step of a plan.
template <class IR>
struct PlanStep {
  enum class Kind : unsigned char { pass, open, close };
  const PassNode<IR>* node = nullptr;
  Jump<IR> jump = nullptr;
  Kind kind = Kind::pass;
  RunReason reason = RunReason::listed;
  std::size_t depth = 0;
  /// The step that opens the pipeline around this one; `npos` at the top.
  std::size_t parent = npos;
  /// For an open step, its close step; for a close step, its open step.
  std::size_t match = npos;
  std::string_view required_by = {};
  std::string_view invalidated_by = {};
};

template <class IR>
struct Plan {
  PlanKey key;
  std::vector<PlanStep<IR>> steps;
  /// Required passes found in a registry, which the plan keeps alive.
  std::vector<std::shared_ptr<const PassNode<IR>>> found;
};

// -- Failures ----------------------------------------------------------------

/// The message of a pass that failed: `pass 'X' failed (in A/B/X): what`.
inline PassError pass_failure(std::string_view name, const std::string& path, std::string_view what) {
  const std::string where = path == name ? std::string() : fmt::format(" (in {})", path);
  return PassError(fmt::format("pass '{}' failed{}: {}", name, where, what), std::string(name), path);
}

/// The instrument hook's exception in flight on this thread, if any: it
/// passes through every pass around it as itself (TVM's rule: an instrument's
/// failure is not the pipeline's).
inline std::exception_ptr& hook_exception() {
  thread_local std::exception_ptr exception;
  return exception;
}

/// Runs `body`, a pass. What it throws becomes a PassError that names the pass
/// and its path (`path()` makes it, only then), with the cause nested. Passed
/// on as they are: a PassError from further in (it names its pass already), a
/// RequirementError (a pipeline that cannot run), and an instrument's
/// exception.
template <class Body, class Path>
inline auto guarded(std::string_view name, Path path, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const PassError&) {
    throw;
  } catch (const RequirementError&) {
    throw;
  } catch (...) {
    if (std::current_exception() == hook_exception()) throw;
    try {
      throw;
    } catch (const std::exception& error) {
      std::throw_with_nested(pass_failure(name, path(), error.what()));
    } catch (...) {
      std::throw_with_nested(pass_failure(name, path(), "unknown exception"));
    }
  }
}

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

/// `outer/inner/pass` from the names innermost first.
inline std::string path_text(const std::vector<std::string_view>& innermost_first) {
  return fmt::format("{}", fmt::join(innermost_first.rbegin(), innermost_first.rend(), "/"));
}

// -- Planning ----------------------------------------------------------------

template <class IR, bool Watched>
void open_jump(const PlanStep<IR>* step, Run<IR>& run);
template <class IR, bool Watched>
void close_jump(const PlanStep<IR>* step, Run<IR>& run);

/// Makes the plan of a pipeline under a context: gates every pass, keeps the
/// listed passes that running passes require, and inserts the required passes
/// that do not hold where their user runs.
template <class IR>
class Planner {
 public:
  Planner(const PassContext& ctx) : ctx_(ctx), watched_(!ctx.instruments.empty()) {}

  Plan<IR> plan(const PassNode<IR>& root) {
    plan_.key = PlanKey::of(ctx_);
    flatten(root, 0, npos, root.source ? root.source : global_source<IR>());
    if (requires_any_) keep_listed_providers();
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
  void flatten(const PassNode<IR>& node, std::size_t depth, std::size_t parent, const PassSource<IR>* source,
               bool decided = false) {
    const bool enabled = decided || ctx_.pass_enabled(node.info);
    if (!node.sequence) {
      requires_any_ = requires_any_ || !node.info.required.empty();
      entries_.push_back({&node, Kind::pass, depth, parent, enabled, source});
      return;
    }
    if (!enabled) return;
    if (node.source) source = node.source;
    decided = decided || node.decided;
    if (node.transparent) {
      for (const auto& child : node.children) flatten(*child, depth, parent, source, decided);
      return;
    }
    const std::size_t open = entries_.size();
    entries_.push_back({&node, Kind::open, depth, parent, true, source});
    for (const auto& child : node.children) flatten(*child, depth + 1, open, source, decided);
    entries_.push_back({&node, Kind::close, depth, parent, true, source, {}, open});
  }

  /// A listed pass that a running pass requires runs too, whatever its opt
  /// level, at its listed place (the last of its name before the user); one
  /// that the context disables is an error naming its first user. The rule
  /// of static pipelines (`close_over_requirements`).
  void keep_listed_providers() {
    std::vector<std::size_t> offsets(entries_.size() + 1);
    std::vector<std::size_t> providers;
    std::map<std::string_view, std::size_t, std::less<>> last;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      offsets[i] = providers.size();
      if (entries_[i].kind != Kind::pass) continue;
      for (std::string_view required : entries_[i].node->info.required) {
        if (auto it = last.find(required); it != last.end()) providers.push_back(it->second);
      }
      last[entries_[i].node->info.name] = i;
    }
    offsets[entries_.size()] = providers.size();
    std::size_t user = npos;
    std::size_t disabled = npos;
    for (std::size_t i = entries_.size(); i-- > 0;) {
      if (!entries_[i].runs || entries_[i].kind != Kind::pass) continue;
      for (std::size_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        Entry& provider = entries_[providers[k]];
        if (provider.runs) continue;
        if (ctx_.is_disabled(provider.node->info.name)) {
          user = i;  // later users come first in this sweep: the last names the first user
          disabled = providers[k];
          continue;
        }
        provider.runs = true;
        provider.required_by = entries_[i].node->info.name;
      }
    }
    if (user != npos) {
      throw RequirementError(requirement_disabled(entries_[user].node->info.name, entries_[disabled].node->info.name));
    }
  }

  /// Names by dense id, as `satisfy` reads them: each name's latest pass, or
  /// the one a registry has under it.
  struct Table {
    Planner& planner;
    const PassSource<IR>* source = nullptr;
    const PassInfo& info(std::size_t id) const { return planner.nodes_[id]->info; }
    std::size_t find(std::string_view name) const {
      if (auto it = planner.ids_.find(name); it != planner.ids_.end()) return it->second;
      if (!source) return npos;
      std::shared_ptr<const PassNode<IR>> node = source->find_node(name);
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
      step_of_[i] = steps.size();
      steps.push_back({.node = entry.node, .jump = &open_jump<IR, false>, .kind = Kind::open, .depth = entry.depth,
                       .parent = parent});
      if (watched_) steps.back().jump = &open_jump<IR, true>;
      return;
    }
    if (entry.kind == Kind::close) {
      const std::size_t open = step_of_[entry.match];
      steps[open].match = steps.size();
      steps.push_back({.node = entry.node, .jump = &close_jump<IR, false>, .kind = Kind::close, .depth = entry.depth,
                       .parent = parent, .match = open});
      if (watched_) steps.back().jump = &close_jump<IR, true>;
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
                           .jump = node.jumps[watched_ ? 1 : 0],
                           .kind = Kind::pass,
                           .reason = reason,
                           .depth = depth,
                           .parent = parent,
                           .required_by = required_by,
                           .invalidated_by = invalidated_by});
  }

  /// Inserts before `user` the passes its requirements need (`satisfy`).
  void satisfy_requirements(const Entry& user, std::size_t parent) {
    Table table{*this, user.source};
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
    const Finding finding = satisfy(table, id, validity_, emit, &chain);
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
    throw RequirementError(requirement_missing(
        info.name, missing, user.source ? did_you_mean(missing, user.source->node_names()) : std::string(), path));
  }

  std::vector<std::string_view> names(const std::vector<std::size_t>& ids) const {
    std::vector<std::string_view> result;
    for (std::size_t id : ids) result.push_back(nodes_[id]->info.name);
    return result;
  }

  /// A required pass; one that is a pipeline runs whole.
  void insert(const PassNode<IR>& node, RunReason reason, std::string_view required_by,
              std::string_view invalidated_by, std::size_t depth, std::size_t parent) {
    if (!node.sequence) {
      add(node, reason, required_by, invalidated_by, depth, parent);
      return;
    }
    std::vector<PlanStep<IR>>& steps = plan_.steps;
    const std::size_t open = steps.size();
    steps.push_back({.node = &node, .jump = watched_ ? &open_jump<IR, true> : &open_jump<IR, false>,
                     .kind = Kind::open, .reason = reason, .depth = depth, .parent = parent,
                     .required_by = required_by, .invalidated_by = invalidated_by});
    for (const auto& child : node.children) {
      insert(*child, RunReason::listed, {}, {}, depth + 1, open);
      if (!child->sequence) validity_.ran(child->info, name(child.get()), steps.size() - 1, name_of());
    }
    steps[open].match = steps.size();
    steps.push_back({.node = &node, .jump = watched_ ? &close_jump<IR, true> : &close_jump<IR, false>,
                     .kind = Kind::close, .depth = depth, .parent = parent, .match = open});
  }

  const PassContext& ctx_;
  bool watched_;
  bool requires_any_ = false;
  Plan<IR> plan_;
  std::vector<Entry> entries_;
  std::vector<std::size_t> step_of_;
  std::map<std::string_view, std::size_t, std::less<>> ids_;
  std::vector<const PassNode<IR>*> nodes_;
  Validity validity_;
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

// -- Running -----------------------------------------------------------------

/// One run of a plan: the IR between steps, and the instruments' view of it.
template <class IR>
class Run {
 public:
  /// Runs `plan` on `ir` under `ctx`.
  static IR execute(const Plan<IR>& plan, IR ir, PassContext& ctx) {
    if (plan.steps.empty()) return ir;
    AnalysisManager<IR>& analyses = ctx.analyses<IR>();
    if (analyses.in_functions()) {
      PassContext own = context_within_function(ctx);
      return execute(plan, std::move(ir), own);
    }
    const typename AnalysisManager<IR>::Keeping keeping(analyses);
    // Passes and instruments of the run see its context as the current one,
    // entered or not, and so do function passes' workers.
    const PassContext::Binding current(ctx);
    Run run(plan, ctx, std::move(ir), analyses);
    const PlanStep<IR>* first = plan.steps.data();
    try {
      first->jump(first, run);
    } catch (...) {
      run.unwind();
      throw;
    }
    return std::move(run.ir_);
  }

  const PlanStep<IR>* end() const { return end_; }

  /// A pass's step, with the hooks around it when `Watched`.
  template <class Node, bool Watched>
  [[gnu::always_inline]] inline void run_pass(const PlanStep<IR>& step) {
    const PassNode<IR>& node = *step.node;
    if constexpr (Watched) {
      const PassPlace place = place_of(step);
      if (!admitted(node.info, place)) return;
      notify_before(node.info, place);
      try {
        ir_ = guarded(node.info.name, [&] { return path_of(step); },
                      [&] { return call<Node>(node, keeps_input_ ? IR(ir_) : std::move(ir_)); });
      } catch (...) {
        after_failed(node.info, keeps_input_ ? IRView(ir_) : IRView(), place);
        throw;
      }
      after_pass(analyses_, node.info, node.function_pass, ir_);
      notify_after(node.info, place);
    } else {
      ir_ = guarded(node.info.name, [&] { return path_of(step); }, [&] { return call<Node>(node, std::move(ir_)); });
      after_pass(analyses_, node.info, node.function_pass, ir_);
    }
  }

  /// A pipeline opens: its hooks, and the step to go on with (after its
  /// close when an instrument vetoes it).
  template <bool Watched>
  inline const PlanStep<IR>* open(const PlanStep<IR>* step) {
    if constexpr (Watched) {
      const PassPlace place = place_of(*step);
      if (!admitted(step->node->info, place)) return first_ + step->match + 1;
      notify_before(step->node->info, place);
      open_.emplace_back(static_cast<std::size_t>(step - first_), place);
    }
    return step + 1;
  }

  template <bool Watched>
  inline void close(const PlanStep<IR>* step) {
    if constexpr (Watched) {
      const PassPlace place = open_.back().second;
      open_.pop_back();
      notify_after(step->node->info, place);
    }
  }

 private:
  Run(const Plan<IR>& plan, PassContext& ctx, IR ir, AnalysisManager<IR>& analyses)
      : ctx_(ctx), ir_(std::move(ir)), first_(plan.steps.data()), end_(first_ + plan.steps.size()),
        analyses_(analyses) {
    for (const auto& instrument : ctx.instruments) {
      watchers_.push_back(instrument.get());
      keeps_input_ = keeps_input_ || instrument->wants_failed_input();
    }
  }

  /// Runs a leaf: directly when its type is known, else by its virtual `run`.
  template <class Node>
  inline IR call(const PassNode<IR>& node, IR ir) {
    if constexpr (std::is_same_v<Node, PassNode<IR>>) {
      return node.run(std::move(ir), ctx_);
    } else {
      return static_cast<const Node&>(node).Node::run(std::move(ir), ctx_);
    }
  }

  PassPlace place_of(const PlanStep<IR>& step) {
    return PassPlace{.depth = step.depth,
                     .parent = step.parent == npos ? std::string_view() : first_[step.parent].node->info.name,
                     .sequence = ++sequence_,
                     .required_by = step.required_by,
                     .reason = step.reason,
                     .invalidated_by = step.invalidated_by,
                     .pipeline = step.kind != PlanStep<IR>::Kind::pass,
                     .options = step.node->options};
  }

  /// The names of the pipelines around `step` and its own, outermost first.
  std::string path_of(const PlanStep<IR>& step) const {
    std::vector<std::string_view> names{step.node->info.name};
    for (std::size_t at = step.parent; at != npos; at = first_[at].parent) names.push_back(first_[at].node->info.name);
    return path_text(names);
  }

  /// Every instrument is asked, and all must agree; passes the context requires are not asked about.
  inline bool admitted(const PassInfo& info, const PassPlace& place) {
    if (ctx_.is_required(info.name)) return true;
    bool admitted = true;
    try {
      for (Instrument* instrument : watchers_) admitted = instrument->should_run(info, IRView(ir_), place) && admitted;
    } catch (...) {
      hook_failed();
    }
    return admitted;
  }

  /// Before hooks, in order. If one throws, the instruments whose before hook
  /// ran hear `after_failed_pass`, so that what they pair (a timer, a trace
  /// span) is closed, and the exception goes on as itself.
  inline void notify_before(const PassInfo& info, const PassPlace& place) {
    std::size_t told = 0;
    try {
      for (; told < watchers_.size(); ++told) watchers_[told]->before_pass(info, IRView(ir_), place);
    } catch (...) {
      close_quietly(0, told, info, place);
      hook_failed();
    }
  }

  /// After hooks, in order. If one throws, the instruments after it, which
  /// had their before hook, hear `after_failed_pass` instead.
  inline void notify_after(const PassInfo& info, const PassPlace& place) {
    std::size_t told = 0;
    try {
      for (; told < watchers_.size(); ++told) watchers_[told]->after_pass(info, IRView(ir_), place);
    } catch (...) {
      close_quietly(told + 1, watchers_.size(), info, place);
      hook_failed();
    }
  }

  /// Tells every instrument that the pass failed on `input`; call it from a handler.
  [[gnu::noinline]] void after_failed(const PassInfo& info, IRView input, const PassPlace& place) {
    for (Instrument* instrument : watchers_) {
      instrument->after_failed_pass(info, input, place, std::current_exception());
    }
  }

  /// `after_failed_pass` for instruments [from, to) while an exception is in
  /// flight; what they throw in turn is dropped for the first one.
  [[gnu::noinline]] void close_quietly(std::size_t from, std::size_t to, const PassInfo& info, const PassPlace& place,
                                      IRView input = {}) {
    for (std::size_t k = from; k < to; ++k) {
      try {
        watchers_[k]->after_failed_pass(info, input, place, std::current_exception());
      } catch (...) {  // NOLINT(bugprone-empty-catch): the first exception is the one reported
      }
    }
  }

  [[noreturn]] [[gnu::noinline]] void hook_failed() {
    hook_exception() = std::current_exception();
    throw;
  }

  /// The pipelines open when a step threw hear that they failed, innermost
  /// first, with the IR the failing pass was given when it is kept.
  [[gnu::noinline]] void unwind() {
    while (!open_.empty()) {
      const auto [at, place] = open_.back();
      open_.pop_back();
      close_quietly(0, watchers_.size(), first_[at].node->info, place, keeps_input_ ? IRView(ir_) : IRView());
    }
  }

  PassContext& ctx_;
  IR ir_;
  const PlanStep<IR>* first_;
  const PlanStep<IR>* end_;
  AnalysisManager<IR>& analyses_;
  std::vector<Instrument*> watchers_;
  bool keeps_input_ = false;  // some instrument wants a failed pass's input
  std::size_t sequence_ = 0;
  std::vector<std::pair<std::size_t, PassPlace>> open_;  // the pipelines open: their step and place
};

template <class IR, class Node, bool Watched>
void pass_jump(const PlanStep<IR>* step, Run<IR>& run) {
  run.template run_pass<Node, Watched>(*step);
  ++step;
  if (step != run.end()) [[clang::musttail]] return step->jump(step, run);
}

template <class IR, bool Watched>
void open_jump(const PlanStep<IR>* step, Run<IR>& run) {
  step = run.template open<Watched>(step);
  if (step != run.end()) [[clang::musttail]] return step->jump(step, run);
}

template <class IR, bool Watched>
void close_jump(const PlanStep<IR>* step, Run<IR>& run) {
  run.template close<Watched>(step);
  ++step;
  if (step != run.end()) [[clang::musttail]] return step->jump(step, run);
}

/// Runs `node` on `ir` under `ctx`: its plan, by the one loop.
template <class IR>
IR run_node(const PassNode<IR>& node, IR ir, PassContext& ctx) {
  const std::shared_ptr<const Plan<IR>> plan = node.plan_for(ctx);
  return Run<IR>::execute(*plan, std::move(ir), ctx);
}

}  // namespace passline::detail

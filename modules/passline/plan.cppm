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
// it (`Run::loop`): should_run, before, run, after (or after_failed). Under
// a context without instruments the hooks are compiled out of the loop.
module;
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
#include <variant>
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
struct Plan;

/// What a leaf pass runs: a function of the pass's type, called with the
/// pass object it keeps (none for a stateless static pass). One class for
/// every pass, so a pipeline of a thousand static passes instantiates a
/// function per pass and nothing more.
template <class IR>
class Runner {
 public:
  using Call = IR (*)(const Runner& runner, IR ir, PassContext& ctx);

  Runner(Call call, bool functions, std::shared_ptr<const void> pass = nullptr)
      : on_functions(functions), call_(call), pass_(std::move(pass)) {}

  IR run(IR ir, PassContext& ctx) const { return call_(*this, std::move(ir), ctx); }

  /// The pass object it keeps, as the type its call knows it by.
  template <class P>
  const P& pass() const {
    return *static_cast<const P*>(pass_.get());
  }

  /// A function pass: it drops the analysis results of the functions it ran on only.
  const bool on_functions;

 private:
  Call call_;
  std::shared_ptr<const void> pass_;
};

/// Where a plan finds required passes by name: a registry.
template <class IR>
class PassSource {
 public:
  /// The pass registered as `name` with its default options, or null.
  virtual std::shared_ptr<const PassNode<IR>> find_node(std::string_view name) const = 0;
  virtual std::vector<std::string_view> node_names() const = 0;

 protected:
  ~PassSource() = default;
};

/// The process-wide registry of IR (`Registry<IR>::global()`, defined with
/// the registry): where a pipeline built without a registry of its own finds
/// the passes its passes require.
template <class IR>
const PassSource<IR>& process_registry();

/// How a pipeline stands in a run.
enum class PipelineKind : unsigned char {
  /// A pipeline: gated as a pass, and reported to instruments around its passes.
  sequence,
  /// One whose passes were chosen at compile time (`Compiled`): the context gates none of them.
  compiled,
  /// The list of pipeline text: its passes stand where it stands, as if run
  /// one by one; no pass of its own, so nothing gates it.
  list,
};

template <class IR>
struct Pipeline {
  std::vector<std::shared_ptr<const PassNode<IR>>> passes;
  PipelineKind kind = PipelineKind::sequence;
  /// Where its passes find their requirements; null: where the pipeline around it finds them.
  const PassSource<IR>* source = nullptr;
};

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

/// A runtime pass: its PassInfo, and either a leaf that runs or a pipeline of passes.
template <class IR>
struct PassNode {
  using Body = std::variant<std::shared_ptr<const Runner<IR>>, Pipeline<IR>>;
  using Options = std::vector<std::pair<std::string, Value>>;

  PassNode(const PassInfo& static_info, Body what) : info(static_info), body(std::move(what)) {}
  PassNode(std::unique_ptr<OwnedInfo> owned, Body what)
      : info(owned->info), storage(std::move(owned)), body(std::move(what)) {}
  PassNode(const PassNode&) = delete;
  PassNode& operator=(const PassNode&) = delete;

  /// The same pass described by `described`, printed as `printed` (a
  /// pipeline registered by name) or with `values` (a pass made with options).
  std::shared_ptr<const PassNode> renamed(const PassInfo& described, std::string printed, Options values) const {
    auto node = std::make_shared<PassNode>(std::make_unique<OwnedInfo>(described), body);
    node->printed_as = std::move(printed);
    node->options = std::move(values);
    return node;
  }

  const Runner<IR>* leaf() const {
    const auto* runner = std::get_if<0>(&body);
    return runner ? runner->get() : nullptr;
  }
  const Pipeline<IR>* pipeline() const { return std::get_if<1>(&body); }

  PassInfo info;
  std::unique_ptr<OwnedInfo> storage = nullptr;
  /// Option values, for printing the pass as pipeline text.
  Options options = {};
  /// When set, the pass prints as this name (a pipeline registered by name).
  std::string printed_as = {};
  Body body;

  /// The plan for the last context settings it ran under.
  std::shared_ptr<const Plan<IR>> plan_for(const PassContext& ctx) const;

 private:
  mutable std::mutex plan_mutex_;
  mutable std::shared_ptr<const Plan<IR>> plan_;
};

/// One step of a plan: run a pass, open a pipeline, or close one.
template <class IR>
struct PlanStep {
  enum class Kind : unsigned char { pass, open, close };
  const PassNode<IR>* node = nullptr;
  /// What a pass step runs.
  const Runner<IR>* runner = nullptr;
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

/// Runs `body`, a pass. What it throws becomes a PassError that names the pass
/// and its path (`path()` makes it, only then), with the cause nested. Passed
/// on as they are: a PassError from further in (it names its pass already), a
/// RequirementError (a pipeline that cannot run), and an instrument's
/// exception (`InstrumentFailure`).
template <class Body, class Path>
inline auto guarded(std::string_view name, Path path, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const PassError&) {
    throw;
  } catch (const RequirementError&) {
    throw;
  } catch (const InstrumentFailure&) {
    throw;
  } catch (const std::exception& error) {
    std::throw_with_nested(pass_failure(name, path(), error.what()));
  } catch (...) {
    std::throw_with_nested(pass_failure(name, path(), "unknown exception"));
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
    flatten(root, 0, npos, pipeline ? pipeline->source : nullptr, false);
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
  void flatten(const PassNode<IR>& node, std::size_t depth, std::size_t parent, const PassSource<IR>* source,
               bool decided) {
    const bool enabled = decided || ctx_.pass_enabled(node.info);
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
    throw RequirementError(
        requirement_missing(info.name, missing, did_you_mean(missing, source.node_names()), path));
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
/// A run begun inside a pass of another run under the same context (a fixed
/// point's rounds, a pass that runs a pipeline) continues that run: its
/// passes stand one level below the pass that began it, and the sequence
/// numbers go on.
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
    try {
      if (plan.key.watched) {
        run.loop<true>();
      } else {
        run.loop<false>();
      }
    } catch (...) {
      run.unwind();
      // An instrument's exception leaves the outermost run as itself.
      if (!run.outer_) rethrow_unwrapped();
      throw;
    }
    return std::move(run.ir_);
  }

 private:
  Run(const Plan<IR>& plan, PassContext& ctx, IR ir, AnalysisManager<IR>& analyses)
      : ctx_(ctx), ir_(std::move(ir)), first_(plan.steps.data()), end_(first_ + plan.steps.size()),
        analyses_(analyses), outer_(analyses.run_), sequence_(outer_ ? outer_->sequence_ : own_sequence_),
        depth_(outer_ ? outer_->depth_ + outer_->at_->depth + 1 : 0) {
    analyses.run_ = this;
    for (const auto& instrument : ctx.instruments) {
      watchers_.push_back(instrument.get());
      keeps_input_ = keeps_input_ || instrument->wants_failed_input();
    }
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() { analyses_.run_ = outer_; }

  /// The one loop: each step in order. A pass step runs its pass (asking the
  /// instruments first, telling them before and after); a pipeline's steps
  /// tell them it opens and closes. Without instruments, only passes run.
  template <bool Watched>
  void loop() {
    for (at_ = first_; at_ != end_; ++at_) {
      const PlanStep<IR>& step = *at_;
      const PassInfo& info = step.node->info;
      if (step.kind == PlanStep<IR>::Kind::pass) {
        const Runner<IR>& runner = *step.runner;
        if constexpr (Watched) {
          const PassPlace place = place_of(step);
          if (!admitted(info, place)) continue;
          notify_before(info, place);
          try {
            ir_ = guarded(info.name, [&] { return path_of(step); },
                          [&] { return runner.run(keeps_input_ ? IR(ir_) : std::move(ir_), ctx_); });
          } catch (...) {
            after_failed(info, keeps_input_ ? IRView(ir_) : IRView(), place);
            throw;
          }
          after_pass(analyses_, info, runner.on_functions, ir_);
          notify_after(info, place);
        } else {
          ir_ = guarded(info.name, [&] { return path_of(step); },
                        [&] { return runner.run(std::move(ir_), ctx_); });
          after_pass(analyses_, info, runner.on_functions, ir_);
        }
      } else if constexpr (Watched) {
        if (step.kind == PlanStep<IR>::Kind::open) {
          const PassPlace place = place_of(step);
          if (!admitted(info, place)) {
            at_ = first_ + step.match;  // vetoed: on after its close
            continue;
          }
          notify_before(info, place);
          open_.emplace_back(static_cast<std::size_t>(at_ - first_), place);
        } else {
          const PassPlace place = open_.back().second;
          open_.pop_back();
          notify_after(info, place);
        }
      }
    }
  }

  PassPlace place_of(const PlanStep<IR>& step) {
    std::string_view parent;
    if (step.parent != npos) {
      parent = first_[step.parent].node->info.name;
    } else if (outer_) {
      parent = outer_->at_->node->info.name;
    }
    return PassPlace{.depth = depth_ + step.depth,
                     .parent = parent,
                     .sequence = ++sequence_,
                     .required_by = step.required_by,
                     .reason = step.reason,
                     .invalidated_by = step.invalidated_by,
                     .pipeline = step.kind != PlanStep<IR>::Kind::pass,
                     .options = step.node->options};
  }

  /// The names of the passes and pipelines around `step` (through the runs
  /// this one continues) and its own, outermost first.
  std::string path_of(const PlanStep<IR>& step) const {
    std::vector<std::string_view> names{step.node->info.name};
    for (const Run* run = this; run; run = run->outer_) {
      const std::size_t start = run == this ? step.parent : run->at_ - run->first_;
      for (std::size_t at = start; at != npos; at = run->first_[at].parent) names.push_back(run->first_[at].node->info.name);
    }
    return path_text(names);
  }

  /// Every instrument is asked, and all must agree; passes the context requires are not asked about.
  bool admitted(const PassInfo& info, const PassPlace& place) {
    if (ctx_.is_required(info.name)) return true;
    bool admitted = true;
    call_hook([&] {
      for (Instrument* instrument : watchers_) admitted = instrument->should_run(info, IRView(ir_), place) && admitted;
    });
    return admitted;
  }

  /// Before hooks, in order. If one throws, the instruments whose before hook
  /// ran hear `after_failed_pass`, so that what they pair (a timer, a trace
  /// span) is closed, and the exception goes on as the instrument's.
  void notify_before(const PassInfo& info, const PassPlace& place) {
    std::size_t told = 0;
    try {
      call_hook([&] {
        for (; told < watchers_.size(); ++told) watchers_[told]->before_pass(info, IRView(ir_), place);
      });
    } catch (...) {
      close_quietly(0, told, info, place);
      throw;
    }
  }

  /// After hooks, in order. If one throws, the instruments after it, which
  /// had their before hook, hear `after_failed_pass` instead.
  void notify_after(const PassInfo& info, const PassPlace& place) {
    std::size_t told = 0;
    try {
      call_hook([&] {
        for (; told < watchers_.size(); ++told) watchers_[told]->after_pass(info, IRView(ir_), place);
      });
    } catch (...) {
      close_quietly(told + 1, watchers_.size(), info, place);
      throw;
    }
  }

  /// Tells every instrument that the pass failed on `input`; call it from a handler.
  [[gnu::noinline]] void after_failed(const PassInfo& info, IRView input, const PassPlace& place) {
    call_hook([&] {
      for (Instrument* instrument : watchers_) {
        instrument->after_failed_pass(info, input, place, exception_in_flight());
      }
    });
  }

  /// `after_failed_pass` for instruments [from, to) while an exception is in
  /// flight; what they throw in turn is dropped for the first one.
  [[gnu::noinline]] void close_quietly(std::size_t from, std::size_t to, const PassInfo& info, const PassPlace& place,
                                      IRView input = {}) {
    for (std::size_t k = from; k < to; ++k) {
      try {
        watchers_[k]->after_failed_pass(info, input, place, exception_in_flight());
      } catch (...) {  // NOLINT(bugprone-empty-catch): the first exception is the one reported
      }
    }
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
  const PlanStep<IR>* at_ = nullptr;  // the step running
  AnalysisManager<IR>& analyses_;
  Run* outer_;                  // the run this one continues, if any
  std::size_t own_sequence_ = 0;
  std::size_t& sequence_;       // of the outermost run
  std::size_t depth_;           // of this run's top steps
  std::vector<Instrument*> watchers_;
  bool keeps_input_ = false;  // some instrument wants a failed pass's input
  std::vector<std::pair<std::size_t, PassPlace>> open_;  // the pipelines open: their step and place
};

/// Runs `node` on `ir` under `ctx`: its plan, by the one loop.
template <class IR>
IR run_node(const PassNode<IR>& node, IR ir, PassContext& ctx) {
  const std::shared_ptr<const Plan<IR>> plan = node.plan_for(ctx);
  return Run<IR>::execute(*plan, std::move(ir), ctx);
}

}  // namespace passline::detail

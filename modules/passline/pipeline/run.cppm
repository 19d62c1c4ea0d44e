// Internal: the one loop that runs a plan (`Run::loop`). Not part of the API.
//
// Every runtime pipeline runs here, step by step: should_run, before, run,
// after (or after_failed). Under a context without instruments the hooks are
// compiled out of the loop. What a pass throws becomes a PassError naming the
// pass and its path (`guarded`).
module;
#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
export module passline:run;
import :pass_info;
import :context;
import :instrument;
import :ir_view;
import :error;
import :analysis_manager;
import :invoke;
import :node;
import :plan;

namespace passline::detail {

// -- Failures ----------------------------------------------------------------

/// The message of a pass that failed: `pass 'X' failed (in A/B/X): what`.
inline PassError pass_failure(std::string_view name, const std::string& path, std::string_view what) {
  const std::string where = path == name ? std::string() : fmt::format(" (in {})", path);
  return PassError(fmt::format("pass '{}' failed{}: {}", name, where, what), std::string(name), path);
}

/// Runs `body`, the pass `info`. What it throws becomes a PassError that
/// names the pass and its path (`path()` makes it, only then), with the cause
/// nested. Inlined into the loop, where the try costs nothing until a pass
/// throws; the name is read only then. Passed
/// on as they are: a PassError from further in (it names its pass already), a
/// RequirementError (a pipeline that cannot run), and an instrument's
/// exception (`InstrumentFailure`).
template <class Body, class Path>
[[gnu::always_inline]] inline auto guarded(const PassInfo& info, Path path, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const PassError&) {
    throw;
  } catch (const RequirementError&) {
    throw;
  } catch (const InstrumentFailure&) {
    throw;
  } catch (const std::exception& error) {
    std::throw_with_nested(pass_failure(info.name, path(), error.what()));
  } catch (...) {
    std::throw_with_nested(pass_failure(info.name, path(), "unknown exception"));
  }
}

/// `outer/inner/pass` from the names innermost first.
inline std::string path_text(const std::vector<std::string_view>& innermost_first) {
  return fmt::format("{}", fmt::join(innermost_first.rbegin(), innermost_first.rend(), "/"));
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
    // The step is kept in a local and published in `at_` (for nested runs
    // and error paths), so the loop does not wait on a reload of it after
    // every call.
    const PlanStep<IR>* const end = end_;
    for (const PlanStep<IR>* at = first_; at != end; ++at) {
      at_ = at;
      const PlanStep<IR>& step = *at;
      const PassInfo& info = step.node->info;
      if (step.kind == PlanStep<IR>::Kind::pass) {
        const Runner<IR>& runner = *step.runner;
        if constexpr (Watched) {
          const PassPlace place = place_of(step);
          if (!admitted(info, place)) continue;
          notify_before(info, place);
          try {
            ir_ = guarded(info, [&] { return path_of(step); },
                          [&] { return runner.run(keeps_input_ ? IR(ir_) : std::move(ir_), ctx_); });
          } catch (...) {
            after_failed(info, keeps_input_ ? IRView(ir_) : IRView(), place);
            throw;
          }
          after_pass(analyses_, info, runner.on_functions, ir_);
          notify_after(info, place);
        } else {
          ir_ = guarded(info, [&] { return path_of(step); },
                        [&] { return runner.run(std::move(ir_), ctx_); });
          after_pass(analyses_, info, runner.on_functions, ir_);
        }
      } else if constexpr (Watched) {
        if (step.kind == PlanStep<IR>::Kind::open) {
          const PassPlace place = place_of(step);
          if (!admitted(info, place)) {
            at = first_ + step.match;  // vetoed: on after its close
            continue;
          }
          notify_before(info, place);
          open_.emplace_back(static_cast<std::size_t>(at - first_), place);
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

// Internal: running one pass of either shape. Not part of the API.
//
// A module pass is called as it is. A function pass is lifted to the module, as
// TVM does: it runs on every function not marked to skip optimization, and
// every call sees the module as it was before the pass, so neither the order of
// the functions nor the number of threads can change the result. With more
// than one thread (the `threads` config key) functions run in parallel on TBB;
// results are put back in function order, and if several functions fail, the
// error of the first one is the one reported, as it would be on one thread.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

export module passline:invoke;
import :context;
import :concepts;
import :ir_traits;
import :config;
import :value;
import :instrument;
import :pass_info;
import :analysis_manager;
import passline.support;

namespace passline::detail {

/// The instruments of `ctx` that follow functions.
inline std::vector<Instrument*> function_listeners(const PassContext& ctx) {
  std::vector<Instrument*> listeners;
  for (const auto& instrument : ctx.instruments) {
    if (instrument->wants_functions()) listeners.push_back(instrument.get());
  }
  return listeners;
}

/// The context of a run that a function pass's call begins (for one
/// function, perhaps on one of several threads): the same settings,
/// diagnostics and statistics; an analysis cache of its own (the outer one
/// holds results for the outer IR); no instruments (they watch the pipeline
/// they were given, and on several threads what they saw here would
/// interleave). `Run::execute` takes it when `AnalysisManager::in_functions()`.
inline PassContext context_within_function(const PassContext& ctx) {
  PassContext own = ctx.derive();
  own.instruments.clear();
  return own;
}

/// A function pass that keeps the module it is shown: it takes it as
/// `std::shared_ptr<const IR>`, a copy made once per run, bodies included,
/// which a call may hold beyond the pass (a binding to a language with a
/// garbage collector, say).
template <class Call, class IR>
concept KeepsModule = HasFunctions<IR> &&
                      std::is_invocable_r_v<FunctionOf<IR>, const Call&, FunctionOf<IR>, std::shared_ptr<const IR>,
                                            PassContext&>;

/// Runs `pass(function, module, ctx)` on each function of `ir` that does not
/// skip optimization; `info` names the pass to instruments that follow functions.
template <class IR, class FunctionCall>
IR run_on_functions(const PassInfo& info, const FunctionCall& pass, IR ir, PassContext& ctx) {
  using Traits = IRTraits<IR>;
  using Function = FunctionOf<IR>;
  const std::size_t count = Traits::function_count(ir);
  // The module as it was before the pass, whole, for a pass that keeps it.
  std::shared_ptr<const IR> before;
  if constexpr (KeepsModule<FunctionCall, IR>) before = std::make_shared<const IR>(ir);
  std::vector<std::optional<Function>> results(count);
  // Every function a pass will transform is taken out first, whatever the
  // number of threads, so that each pass sees the same module; a function
  // nothing else holds can then be transformed in place.
  std::vector<std::optional<Function>> inputs(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (Traits::skips_optimization(Traits::function(ir, i))) continue;
    if constexpr (TakesFunctions<IR>) {
      inputs[i].emplace(Traits::take_function(ir, i));
    } else {
      inputs[i].emplace(Traits::function(ir, i));
    }
  }
  const std::vector<Instrument*> listeners = function_listeners(ctx);
  std::vector<std::string> labels;
  if (!listeners.empty()) {
    for (std::size_t i = 0; i < count; ++i) labels.push_back(function_label(ir, i));
  }
  // The listeners' hooks throw as instruments do (`call_hook`): the pass does not claim what they throw.
  auto visit = [&](std::size_t i) {
    if (!inputs[i]) return;
    std::size_t told = 0;
    try {
      if (!listeners.empty()) {
        call_hook([&] {
          for (; told < listeners.size(); ++told) listeners[told]->before_function(info, labels[i]);
        });
      }
      if constexpr (KeepsModule<FunctionCall, IR>) {
        results[i].emplace(pass(std::move(*inputs[i]), before, ctx));
      } else {
        results[i].emplace(pass(std::move(*inputs[i]), std::as_const(ir), ctx));
      }
    } catch (...) {
      for (std::size_t k = 0; k < told; ++k) {
        try {
          listeners[k]->after_function(info, labels[i]);
        } catch (...) {  // NOLINT(bugprone-empty-catch): the first exception is the one reported
        }
      }
      throw;
    }
    inputs[i].reset();
    if (!listeners.empty()) {
      call_hook([&] {
        for (Instrument* listener : listeners) listener->after_function(info, labels[i]);
      });
    }
  };
  const std::size_t threads = count < 2 ? 1 : ctx.threads();
  const typename AnalysisManager<IR>::InFunctions in_functions(ctx.analyses<IR>());
  if (threads == 1) {
    for (std::size_t i = 0; i < count; ++i) visit(i);
  } else {
    // Passes on several threads may ask for analyses at once.
    const typename AnalysisManager<IR>::Shared shared(ctx.analyses<IR>());
    PassContext& caller_context = PassContext::current();
    support::parallel_for(count, threads, [&](std::size_t i) {
      PassContext::Binding binding(caller_context);
      visit(i);
    });
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (results[i]) Traits::replace_function(ir, i, std::move(*results[i]));
  }
  return ir;
}

/// After `pass` ran on `ir` in a run that keeps analyses: drops the results
/// it did not preserve; a function pass, only those of the functions it ran on.
template <class IR>
void after_pass(AnalysisManager<IR>& analyses, const PassInfo& pass, bool function_pass, const IR& ir) {
  if (analyses.empty()) return;
  if constexpr (HasFunctions<IR>) {
    if (function_pass) {
      analyses.invalidate_functions(pass, ir, [&](std::size_t i) {
        return !IRTraits<IR>::skips_optimization(IRTraits<IR>::function(ir, i));
      });
      return;
    }
  }
  analyses.invalidate(pass, ir);
}

template <class P, class IR>
IR invoke_pass(const P& pass, IR ir, PassContext& ctx) {
  if constexpr (ModulePass<P, IR>) {
    return pass(std::move(ir), ctx);
  } else {
    return run_on_functions(P::info, pass, std::move(ir), ctx);
  }
}

}  // namespace passline::detail

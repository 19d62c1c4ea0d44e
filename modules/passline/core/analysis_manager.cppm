// Analyses and their cache.
//
// An analysis is a type with `static constexpr passline::AnalysisInfo info`
// and a call operator that computes its result: on the module
// (`Result operator()(const IR&) const`) or on one function of it
// (`Result operator()(const Function&, const IR&) const`). A pass reaches the
// AnalysisManager from its context (`ctx.analyses<IR>()`) and asks it for a
// result; the manager computes it once and keeps it while it stays valid.
//
// The rule is the rule of required passes: a result stays valid until a pass
// that does not preserve it (`PassInfo::preserves` names the analysis) changes
// the IR. Every run of a pipeline keeps the cache by that rule: after each
// pass it drops the results the pass does not preserve; a function pass drops
// only the results of the functions it ran on (and the module's). A pass that
// changes the IR and then asks again must first `forget` what it changed.
// Outside a run (a pass called by hand), nothing is kept: each request
// computes afresh.
//
// Computations, not look-ups, are shown to instruments (`before_analysis`,
// `after_analysis`): `--time-passes` lists them under the pass that asked,
// and `--trace` shows them.
module;
#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>
export module passline:analysis_manager;
import :pass_info;
import :instrument;
import :ir_traits;

namespace passline::detail {

/// How instruments name function `i` of `ir`: by its name, else `#i`.
template <class IR>
std::string function_label(const IR& ir, std::size_t i) {
  if constexpr (NamesFunctions<IR>) {
    return std::string(IRTraits<IR>::function_name(IRTraits<IR>::function(ir, i)));
  } else {
    return "#" + std::to_string(i);
  }
}

/// A dense number per analysis type, the same in every manager.
inline std::size_t next_analysis_index() {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

template <class A>
std::size_t analysis_index() {
  static const std::size_t index = next_analysis_index();
  return index;
}

template <class IR>
class Run;

}  // namespace passline::detail

// Internal to the library.
namespace passline {

/// An analysis computed on the whole IR.
template <class A, class IR>
concept ModuleAnalysis = requires(const A& analysis, const IR& ir) {
  { A::info } -> std::convertible_to<AnalysisInfo>;
  analysis(ir);
};

/// An analysis computed on one function of the IR.
template <class A, class IR>
concept FunctionAnalysis = HasFunctions<IR> && requires(const A& analysis, const FunctionOf<IR>& fn, const IR& ir) {
  { A::info } -> std::convertible_to<AnalysisInfo>;
  analysis(fn, ir);
};

/// The result type of analysis A over IR.
template <class A, class IR>
struct AnalysisResultOf {};
template <class A, class IR>
  requires ModuleAnalysis<A, IR>
struct AnalysisResultOf<A, IR> {
  using type = std::remove_cvref_t<std::invoke_result_t<const A&, const IR&>>;
};
template <class A, class IR>
  requires(!ModuleAnalysis<A, IR> && FunctionAnalysis<A, IR>)
struct AnalysisResultOf<A, IR> {
  using type = std::remove_cvref_t<std::invoke_result_t<const A&, const FunctionOf<IR>&, const IR&>>;
};
}  // namespace passline

namespace passline {

/// The result type of analysis A over IR.
template <class A, class IR>
using AnalysisResult = typename AnalysisResultOf<A, IR>::type;

}  // namespace passline

export namespace passline {

/// The cache of analysis results for one IR, reached from a PassContext.
template <class IR>
class AnalysisManager {
 public:
  AnalysisManager() = default;
  AnalysisManager(const AnalysisManager&) = delete;
  AnalysisManager& operator=(const AnalysisManager&) = delete;

  /// The result of module analysis A on `ir`: cached, else computed now.
  template <ModuleAnalysis<IR> A>
  const AnalysisResult<A, IR>& get(const IR& ir) {
    // A cached result in a run on one thread: two loads and a test.
    const std::size_t index = detail::analysis_index<A>();
    if (fast_ && index < slots_.size()) [[likely]] {
      if (const Result* held = slots_[index].module.get()) {
        return static_cast<const Holder<AnalysisResult<A, IR>>&>(*held).value;
      }
    }
    return compute_module<A>(ir);
  }

  /// The result of function analysis A on function `function` of `ir`.
  template <FunctionAnalysis<IR> A>
  const AnalysisResult<A, IR>& get(const IR& ir, std::size_t function) {
    const std::size_t index = detail::analysis_index<A>();
    if (fast_ && index < slots_.size() && function < slots_[index].functions.size()) [[likely]] {
      if (const Result* held = slots_[index].functions[function].get()) {
        return static_cast<const Holder<AnalysisResult<A, IR>>&>(*held).value;
      }
    }
    return compute_function<A>(ir, function);
  }

  /// The cached result of A, or null: never computes.
  template <ModuleAnalysis<IR> A>
  const AnalysisResult<A, IR>* cached() const {
    const std::size_t index = detail::analysis_index<A>();
    if (index >= slots_.size() || !slots_[index].module) return nullptr;
    return &static_cast<const Holder<AnalysisResult<A, IR>>&>(*slots_[index].module).value;
  }

  /// Drops the results of A: what a pass calls after it changed the IR, before
  /// it asks for A again.
  template <class A>
  void forget() {
    const std::unique_lock lock = lock_if_shared();
    const std::size_t index = detail::analysis_index<A>();
    if (index < slots_.size()) slots_[index] = Slot{slots_[index].name};
  }

  /// After `pass` changed `ir`: drops every result that it does not
  /// preserve. The function results it keeps follow their functions, by
  /// name, if it moved them (for an IR whose functions have names).
  void invalidate(const PassInfo& pass, const IR& ir) {
    for (Slot& slot : slots_) {
      if (!pass.keeps(slot.name)) {
        slot = Slot{slot.name};
      } else if (!slot.functions.empty()) {
        follow_functions(slot, ir);
      }
    }
  }

  /// After the function pass `pass` ran on the functions of `ir` for which
  /// `ran(i)` holds: drops the module results it does not preserve, and those
  /// of these functions.
  template <class Ran>
  void invalidate_functions(const PassInfo& pass, const IR& ir, Ran ran) {
    if (pass.preserves_everything()) return;
    const std::size_t count = IRTraits<IR>::function_count(ir);
    for (Slot& slot : slots_) {
      if (pass.keeps(slot.name)) continue;
      slot.module.reset();
      if (slot.functions.size() > count) slot.functions.resize(count);
      for (std::size_t i = 0; i < slot.functions.size(); ++i) {
        if (ran(i)) slot.functions[i].reset();
      }
    }
  }

  /// A cached result that its analysis, run again now, does not give.
  struct Stale {
    std::string_view analysis;
    std::string function;  // the function's label; empty for a module result
  };

  /// The cached results that differ from what their analyses compute on
  /// `ir` now, computed afresh (and shown to no instrument): what a pass
  /// that claimed to preserve them broke. Results without `==` are not
  /// compared. VerifyPreserved asks this after each pass.
  std::vector<Stale> stale(const IR& ir) const {
    std::vector<Stale> found;
    for (const Slot& slot : slots_) {
      if (!slot.same) continue;
      if (slot.module && !slot.same(ir, *slot.module, 0)) found.push_back({slot.name, {}});
      for (std::size_t i = 0; i < slot.functions.size(); ++i) {
        if (slot.functions[i] && !slot.same(ir, *slot.functions[i], i)) {
          found.push_back({slot.name, detail::function_label(ir, i)});
        }
      }
    }
    return found;
  }

  /// Drops every result.
  void clear() { slots_.clear(); }

  /// Whether a function pass is running its functions (`InFunctions`): a
  /// run that one of its calls begins, on one thread or several, keeps no
  /// results here (they are the outer run's, for the outer IR).
  bool in_functions() const { return in_functions_ > 0; }

  /// Whether any result is cached: when none is, passes cost nothing to track.
  bool empty() const { return slots_.empty(); }

  /// How many results were computed (not looked up) so far.
  std::size_t computations() const { return computations_; }

  /// The instruments to tell of computations (the context's).
  void set_instruments(const std::vector<std::shared_ptr<Instrument>>* instruments) {
    if (instruments_ != instruments) instruments_ = instruments;  // no write while threads read it
  }

  /// While a run keeps the cache by the rule (`Keeping`), results are kept;
  /// otherwise each request computes afresh.
  class Keeping {
   public:
    explicit Keeping(AnalysisManager& manager) : manager_(manager) {
      if (manager_.keepers_++ == 0) manager_.clear();
      manager_.fast_ = !manager_.shared_;
    }
    Keeping(const Keeping&) = delete;
    Keeping& operator=(const Keeping&) = delete;
    ~Keeping() {
      if (--manager_.keepers_ == 0) {
        manager_.clear();
        manager_.fast_ = false;
      }
    }

   private:
    AnalysisManager& manager_;
  };

  /// While a function pass runs its functions, on one thread or several.
  class InFunctions {
   public:
    explicit InFunctions(AnalysisManager& manager) : manager_(manager) { ++manager_.in_functions_; }
    InFunctions(const InFunctions&) = delete;
    InFunctions& operator=(const InFunctions&) = delete;
    ~InFunctions() { --manager_.in_functions_; }

   private:
    AnalysisManager& manager_;
  };

  /// While function passes run on several threads at once (`Shared`), every
  /// request takes a lock.
  class Shared {
   public:
    explicit Shared(AnalysisManager& manager) : manager_(manager) {
      manager_.shared_ = true;
      manager_.fast_ = false;
    }
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;
    ~Shared() {
      manager_.shared_ = false;
      manager_.fast_ = manager_.keepers_ > 0;
    }

   private:
    AnalysisManager& manager_;
  };

 private:
  struct Result {
    virtual ~Result() = default;
  };
  template <class T>
  struct Holder final : Result {
    explicit Holder(T result) : value(std::move(result)) {}
    T value;
  };
  /// Whether a result of analysis A equals A computed on `ir` now (on its
  /// function `function`, for a function analysis).
  template <class A>
  static bool same_as_now(const IR& ir, const Result& held, std::size_t function) {
    using R = AnalysisResult<A, IR>;
    const R& kept = static_cast<const Holder<R>&>(held).value;
    if constexpr (!std::equality_comparable<R>) {
      return true;
    } else if constexpr (ModuleAnalysis<A, IR>) {
      return kept == A{}(ir);
    } else {
      return function < IRTraits<IR>::function_count(ir) && kept == A{}(IRTraits<IR>::function(ir, function), ir);
    }
  }

  struct Slot {
    std::string_view name;
    std::unique_ptr<Result> module = nullptr;
    std::vector<std::unique_ptr<Result>> functions = {};
    std::vector<std::string> labels = {};  // the function of each result, by its label
    bool (*same)(const IR&, const Result&, std::size_t) = nullptr;
  };

  /// Puts each function result of `slot` at its function's place in `ir`,
  /// by its label, if the functions moved; a function gone drops its result.
  static void follow_functions(Slot& slot, const IR& ir) {
    if constexpr (NamesFunctions<IR>) {
      const std::size_t count = IRTraits<IR>::function_count(ir);
      bool moved = slot.functions.size() > count;
      for (std::size_t i = 0; i < slot.functions.size() && i < count && !moved; ++i) {
        moved = slot.functions[i] && slot.labels[i] != IRTraits<IR>::function_name(IRTraits<IR>::function(ir, i));
      }
      if (!moved) return;
      std::unordered_map<std::string, std::unique_ptr<Result>> by_label;
      for (std::size_t i = 0; i < slot.functions.size(); ++i) {
        if (slot.functions[i]) by_label.emplace(std::move(slot.labels[i]), std::move(slot.functions[i]));
      }
      slot.functions.clear();
      slot.functions.resize(count);
      slot.labels.assign(count, std::string());
      for (std::size_t i = 0; i < count; ++i) {
        std::string label(IRTraits<IR>::function_name(IRTraits<IR>::function(ir, i)));
        if (auto it = by_label.find(label); it != by_label.end()) {
          slot.functions[i] = std::move(it->second);
          slot.labels[i] = std::move(label);
          by_label.erase(it);
        }
      }
    } else if constexpr (HasFunctions<IR>) {
      // Functions known only by position: a pass that moves them must not
      // claim to preserve their results.
      slot.functions.resize(std::min(slot.functions.size(), IRTraits<IR>::function_count(ir)));
      slot.labels.resize(slot.functions.size());
    }
  }

  template <class A>
  [[gnu::noinline]] const AnalysisResult<A, IR>& compute_function(const IR& ir, std::size_t function) {
    const std::unique_lock lock = lock_if_shared();
    Slot& slot = slot_of<A>();
    if (slot.functions.size() <= function) {
      slot.functions.resize(function + 1);
      slot.labels.resize(function + 1);
    }
    std::unique_ptr<Result>& held = slot.functions[function];
    if (!held) {
      std::string label = detail::function_label(ir, function);
      held = compute<A>(label, [&] { return A{}(IRTraits<IR>::function(ir, function), ir); });
      slot.labels[function] = std::move(label);
    }
    return static_cast<const Holder<AnalysisResult<A, IR>>&>(*held).value;
  }

  template <class A>
  [[gnu::noinline]] const AnalysisResult<A, IR>& compute_module(const IR& ir) {
    const std::unique_lock lock = lock_if_shared();
    Slot& slot = slot_of<A>();
    if (!slot.module) slot.module = compute<A>(std::string_view(), [&] { return A{}(ir); });
    return static_cast<const Holder<AnalysisResult<A, IR>>&>(*slot.module).value;
  }

  std::unique_lock<std::mutex> lock_if_shared() {
    return shared_ ? std::unique_lock(mutex_) : std::unique_lock<std::mutex>();
  }

  template <class A>
  Slot& slot_of() {
    const std::size_t index = detail::analysis_index<A>();
    if (index >= slots_.size()) slots_.resize(index + 1);
    Slot& slot = slots_[index];
    slot.name = A::info.name;
    if (keepers_ == 0) slot = Slot{slot.name};  // outside a run: computed afresh
    slot.same = &same_as_now<A>;
    return slot;
  }

  template <class A, class Compute>
  std::unique_ptr<Result> compute(std::string_view unit, Compute&& run) {
    ++computations_;
    if (!instruments_ || instruments_->empty()) return std::make_unique<Holder<AnalysisResult<A, IR>>>(run());
    // Inside a run, a hook's exception leaves the passes around it as itself.
    const AnalysisInfo info = A::info;
    auto hook = [this](auto&& call) {
      if (keepers_ > 0) {
        detail::call_hook(call);
      } else {
        call();
      }
    };
    // Those told before when something threw hear after, so that what they pair is closed.
    auto close = [&](std::size_t from, std::size_t to) {
      for (std::size_t k = from; k < to; ++k) {
        try {
          (*instruments_)[k]->after_analysis(info, unit);
        } catch (...) {  // NOLINT(bugprone-empty-catch): the first exception is the one reported
        }
      }
    };
    std::size_t told = 0;
    std::unique_ptr<Result> result;
    try {
      hook([&] {
        for (; told < instruments_->size(); ++told) (*instruments_)[told]->before_analysis(info, unit);
      });
      result = std::make_unique<Holder<AnalysisResult<A, IR>>>(run());
    } catch (...) {
      close(0, told);
      throw;
    }
    std::size_t after = 0;
    try {
      hook([&] {
        for (; after < told; ++after) (*instruments_)[after]->after_analysis(info, unit);
      });
    } catch (...) {
      close(after + 1, told);
      throw;
    }
    return result;
  }

  friend class detail::Run<IR>;

  std::vector<Slot> slots_;
  detail::Run<IR>* run_ = nullptr;  // the run in progress over this cache, which a run begun in its passes continues
  std::size_t keepers_ = 0;
  std::size_t computations_ = 0;
  bool shared_ = false;
  std::size_t in_functions_ = 0;  // set and cleared by the run's thread, around its parallel loops
  bool fast_ = false;  // results kept (in a run), and one thread asks: look-ups take no lock
  std::mutex mutex_;
  const std::vector<std::shared_ptr<Instrument>>* instruments_ = nullptr;
};

}  // namespace passline

// Internal to the library.
namespace passline {

/// The analysis managers of a context, one per IR type. A copy of a context
/// starts with none: its runs may be on other IR.
class AnalysisCaches {
 public:
  AnalysisCaches() = default;
  AnalysisCaches(const AnalysisCaches&) {}
  AnalysisCaches& operator=(const AnalysisCaches&) {
    managers_.clear();
    last_tag_ = last_ = nullptr;
    return *this;
  }
  AnalysisCaches(AnalysisCaches&&) noexcept = default;
  AnalysisCaches& operator=(AnalysisCaches&&) noexcept = default;

  /// The manager for IR: the one asked for last in two loads and a test.
  template <class IR>
  AnalysisManager<IR>& get() {
    if (last_tag_ == &tag_of<IR>) [[likely]] return *static_cast<AnalysisManager<IR>*>(last_);
    return find_or_make<IR>();
  }

 private:
  template <class IR>
  [[gnu::noinline]] AnalysisManager<IR>& find_or_make() {
    const void* tag = &tag_of<IR>;
    for (const auto& [key, manager] : managers_) {
      if (key == tag) return remember<IR>(manager.get());
    }
    auto manager = std::make_shared<AnalysisManager<IR>>();
    managers_.emplace_back(tag, manager);
    return remember<IR>(manager.get());
  }

  template <class IR>
  AnalysisManager<IR>& remember(void* manager) {
    last_tag_ = &tag_of<IR>;
    last_ = manager;
    return *static_cast<AnalysisManager<IR>*>(manager);
  }

  const void* last_tag_ = nullptr;  // the IR asked for last, and its manager
  void* last_ = nullptr;
  template <class IR>
  static constexpr char tag_of = 0;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> managers_;
};

}  // namespace passline

// PassContext: the settings a pipeline runs under, and the gating rule.
//
// Contexts nest in a thread-local stack (`auto scope = ctx.enter();`), so that code
// deep inside a pipeline asks `PassContext::current()` instead of threading
// settings through every call. The gating rule lives here once and is used by
// static and runtime pipelines alike. A context is a value: copy it (or
// `derive()` one from the current context) to change one setting and keep the
// rest; copies share the diagnostics sink and the instruments.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
export module passline:context;
import :pass_info;
import :config;
import :instrument;
import :reporting;
import :analysis_manager;
import passline.support;

export namespace passline {

class PassContext {
 public:
  /// Passes run when `opt_level >= info.opt_level` (TVM's default is 2).
  int opt_level = 2;
  /// Passes that run whatever the opt level.
  std::vector<std::string> required = {};
  /// Passes that never run.
  std::vector<std::string> disabled = {};
  /// Values of registered config keys.
  Config config = {};
  /// Observers of every pass run under this context, in call order.
  std::vector<std::shared_ptr<Instrument>> instruments = {};
  /// Where passes report diagnostics; shared by copies of the context.
  std::shared_ptr<Diagnostics> diagnostics = std::make_shared<Diagnostics>();
  /// Counters passes keep (`--stats`); shared by copies of the context.
  std::shared_ptr<Statistics> statistics = std::make_shared<Statistics>();
  /// The caches of analysis results, one per IR type (`analyses<IR>()`). A
  /// copy of the context starts with empty ones.
  AnalysisCaches analysis_caches = {};

  /// The analysis manager for IR: where a pass asks for analysis results.
  template <class IR>
  AnalysisManager<IR>& analyses() {
    AnalysisManager<IR>& manager = analysis_caches.get<IR>();
    manager.set_instruments(&instruments);
    return manager;
  }

  inline bool is_required(std::string_view name) const {
    return std::ranges::find(required, name) != required.end();
  }
  inline bool is_disabled(std::string_view name) const {
    return std::ranges::find(disabled, name) != disabled.end();
  }

  /// The gating rule: disabled -> skip; required -> run; else by opt level.
  inline bool pass_enabled(const PassInfo& info) const {
    if (is_disabled(info.name)) return false;
    if (is_required(info.name)) return true;
    return opt_level >= info.opt_level;
  }

  /// The threads a run under this context uses for function passes: its
  /// `threads` config key, 0 (the default) for one per hardware thread.
  std::size_t threads() const {
    const std::int64_t threads = config.get(config::threads);
    return threads > 0 ? static_cast<std::size_t>(threads) : support::hardware_threads();
  }

  /// A copy of this context, to change a few settings and keep the others.
  PassContext derive() const { return *this; }
  /// A copy with `instrument` added after the others.
  PassContext with_instrument(std::shared_ptr<Instrument> instrument) const {
    PassContext ctx = *this;
    ctx.instruments.push_back(std::move(instrument));
    return ctx;
  }

  /// Tells every instrument that the context is entered (`enter_context`),
  /// in order. If one throws, as TVM's InstrumentEnterPassContext
  /// (src/ir/transform.cc): the context's instruments are cleared, those
  /// already entered exit in order, and the exception goes on as it is.
  void enter_instruments() {
    std::size_t entered = 0;
    try {
      for (; entered < instruments.size(); ++entered) instruments[entered]->enter_context();
    } catch (...) {
      std::vector<std::shared_ptr<Instrument>> entered_ones(instruments.begin(),
                                                            instruments.begin() + static_cast<std::ptrdiff_t>(entered));
      instruments.clear();
      for (const auto& instrument : entered_ones) exit_reporting(*instrument);
      throw;
    }
  }
  /// Tells every instrument that the context is exited (`exit_context`), in
  /// order. If one throws, as TVM's InstrumentExitPassContext: the later ones
  /// are not told, the context's instruments are cleared, and the exception
  /// goes on as it is.
  void exit_instruments() {
    for (std::size_t i = 0; i < instruments.size(); ++i) {
      try {
        instruments[i]->exit_context();
      } catch (...) {
        instruments.clear();
        throw;
      }
    }
  }
  /// Replaces the instruments, as TVM's PassContext.override_instruments:
  /// the old ones exit, the new ones enter (either may throw, as above).
  void override_instruments(std::vector<std::shared_ptr<Instrument>> replacement) {
    exit_instruments();
    instruments = std::move(replacement);
    enter_instruments();
  }

  /// Makes this context the current one on this thread until the scope ends.
  /// Entering enters the instruments (`enter_instruments`); if one throws,
  /// the context is not made current. `exit()` makes the previous context
  /// current again and exits the instruments (`exit_instruments`), letting an
  /// exit hook's exception go on to the caller; a scope that ends without
  /// `exit()` does the same, but as a destructor cannot throw, an exit hook's
  /// exception becomes an error in the context's diagnostics instead.
  class Scope {
   public:
    explicit Scope(PassContext& ctx) : ctx_(ctx), previous_(top()) {
      ctx.enter_instruments();
      top() = &ctx;
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() {
      if (exited_) return;
      try {
        exit();
      } catch (const std::exception& error) {
        ctx_.report_exit_failure(error.what());
      } catch (...) {
        ctx_.report_exit_failure("unknown exception");
      }
    }
    /// Leaves the context; at most once.
    void exit() {
      if (exited_) return;
      exited_ = true;
      top() = previous_;
      ctx_.exit_instruments();
    }

   private:
    PassContext& ctx_;
    PassContext* previous_;
    bool exited_ = false;
  };

  /// Makes a context current on this thread without entering it (no instrument
  /// hooks): for worker threads that act for a caller inside its scope.
  class Binding {
   public:
    explicit Binding(PassContext& ctx) : previous_(top()) { top() = &ctx; }
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;
    ~Binding() { top() = previous_; }

   private:
    PassContext* previous_;
  };

  [[nodiscard]] Scope enter() & { return Scope(*this); }
  /// A temporary context would be gone while it is current: name the context
  /// first (`PassContext ctx{...}; auto scope = ctx.enter();`).
  Scope enter() && = delete;

  /// The innermost entered context on this thread, or the default context.
  static PassContext& current() {
    PassContext* ctx = top();
    return ctx ? *ctx : default_context();
  }

 private:
  /// An exit hook's exception that cannot be thrown (a scope's destructor,
  /// an enter that already failed) is an error in the diagnostics.
  void exit_reporting(Instrument& instrument) noexcept {
    try {
      instrument.exit_context();
    } catch (const std::exception& error) {
      report_exit_failure(error.what());
    } catch (...) {
      report_exit_failure("unknown exception");
    }
  }
  void report_exit_failure(std::string_view what) noexcept {
    try {
      diagnostics->error({}, "instrument failed on exit: " + std::string(what));
    } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory while reporting
    }
  }
  static PassContext*& top() {
    thread_local PassContext* innermost = nullptr;
    return innermost;
  }
  static PassContext& default_context() {
    thread_local PassContext fallback;
    return fallback;
  }
};

}  // namespace passline

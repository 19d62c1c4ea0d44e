// PassContext: the settings a pipeline runs under, and the gating rule.
//
// Contexts nest in a thread-local stack (`auto scope = ctx.enter();`), so that code
// deep inside a pipeline asks `PassContext::current()` instead of threading
// settings through every call. The gating rule lives here once and is used by
// static and runtime pipelines alike.
module;
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>
export module passline:context;
import :pass_info;

export namespace passline {

class PassContext {
 public:
  /// Passes run when `opt_level >= info.opt_level` (TVM's default is 2).
  int opt_level = 2;
  /// Passes that run whatever the opt level.
  std::vector<std::string> required = {};
  /// Passes that never run.
  std::vector<std::string> disabled = {};

  inline bool is_required(std::string_view name) const {
    return std::ranges::find(required, name) != required.end();
  }
  inline bool is_disabled(std::string_view name) const {
    return std::ranges::find(disabled, name) != disabled.end();
  }

  /// Whether the context names passes to require or disable. When it does
  /// not, a pass runs iff the opt level admits it (or a pass that requires it).
  inline bool names_passes() const { return !required.empty() || !disabled.empty(); }

  /// The gating rule: disabled -> skip; required -> run; else by opt level.
  inline bool pass_enabled(const PassInfo& info) const {
    if (is_disabled(info.name)) return false;
    if (is_required(info.name)) return true;
    return opt_level >= info.opt_level;
  }

  /// Makes this context the current one on this thread until the scope ends.
  class Scope {
   public:
    explicit Scope(PassContext& ctx) : previous_(top()) { top() = &ctx; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { top() = previous_; }

   private:
    PassContext* previous_;
  };

  [[nodiscard]] Scope enter() { return Scope(*this); }

  /// The innermost entered context on this thread, or the default context.
  static PassContext& current() {
    PassContext* ctx = top();
    return ctx ? *ctx : default_context();
  }

 private:
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

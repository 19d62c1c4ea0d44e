// Instruments: observers of pass execution that may veto a pass.
//
// The hooks are those of TVM's PassInstrument, and each one is told where the
// pass stands: how deep, under which pipeline, its place in the run, and why it
// runs (listed in a pipeline, or pulled in because another pass requires it).
// The IR is shown read-only through an IRView, so one instrument serves any IR.
module;
#include <cstddef>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
export module passline:instrument;
import :pass_info;
import :ir_view;
import :value;

export namespace passline {

/// Where a pass stands when an instrument sees it.
struct PassPlace {
  /// 0 for a pass run directly, 1 inside one pipeline, and so on.
  std::size_t depth = 0;
  /// The name of the pipeline that runs it; empty at the top.
  std::string_view parent = {};
  /// Its number in this run, counting from 1 every pass that reached the gate.
  std::size_t sequence = 0;
  /// The pass that required it, when it runs as a prerequisite; empty when listed.
  std::string_view required_by = {};
  /// Why it runs here: listed, required by `required_by` (which it had not
  /// run for), or re-run for it because `invalidated_by` did not preserve it.
  RunReason reason = RunReason::listed;
  std::string_view invalidated_by = {};
  /// Whether it is a pipeline, whose passes the instrument sees one by one too.
  bool pipeline = false;
  /// The values of its options, as pipeline text would set them; empty for
  /// a pass of a static pipeline, which runs with its defaults.
  using Options = std::span<const std::pair<std::string, Value>>;
  Options options = {};
};

/// Override the hooks you need; the defaults observe nothing and veto nothing.
class Instrument {
 public:
  virtual ~Instrument() = default;
  /// When a context holding the instrument is entered, and exited.
  virtual void enter_context() {}
  virtual void exit_context() {}
  /// Asked of every instrument before a pass that the gating rule admits; the
  /// answers are ANDed. Not asked for passes the context requires.
  virtual bool should_run(const PassInfo&, IRView, const PassPlace&) { return true; }
  /// Around a pass that runs: before it with its input, after it with its output.
  virtual void before_pass(const PassInfo&, IRView, const PassPlace&) {}
  virtual void after_pass(const PassInfo&, IRView, const PassPlace&) {}
  /// Instead of `after_pass` when the pass threw. The IR is the pass's input
  /// when some instrument of the run `wants_failed_input()`, else empty.
  virtual void after_failed_pass(const PassInfo&, IRView, const PassPlace&, std::exception_ptr) {}
  /// Whether `after_failed_pass` needs the failed pass's input. Off by
  /// default: saying yes makes a run keep a copy of every pass's input, and
  /// so a pass can no longer transform an IR it alone holds in place.
  virtual bool wants_failed_input() const { return false; }
  /// Whether the instrument hears of each function that a function pass runs
  /// on: `before_function` and `after_function` (after also when it threw),
  /// called on the thread that runs the function, so from several threads at
  /// once when functions run in parallel. Off by default: it costs nothing then.
  virtual bool wants_functions() const { return false; }
  /// Around the computation of an analysis result (not a look-up of a cached
  /// one), on the thread that asked for it: `unit` is empty for a module
  /// analysis, else the function's name (`#index` when functions have none).
  /// After it also when the computation threw.
  virtual void before_analysis(const AnalysisInfo&, std::string_view /*unit*/) {}
  virtual void after_analysis(const AnalysisInfo&, std::string_view /*unit*/) {}
  virtual void before_function(const PassInfo&, std::string_view /*function*/) {}
  virtual void after_function(const PassInfo&, std::string_view /*function*/) {}
};

}  // namespace passline

namespace passline::detail {

/// An instrument hook's exception on its way out of a run. The passes it
/// leaves through do not claim it (an instrument's failure is not the
/// pipeline's, TVM's rule), and the run that began outside every pass, or
/// the compiled form, rethrows what it carries: the caller gets the hook's
/// exception as itself, from whichever thread the hook ran on.
struct InstrumentFailure {
  std::exception_ptr cause;
};

/// Calls `hook`, an instrument's; what it throws goes on as an InstrumentFailure.
template <class Hook>
void call_hook(Hook&& hook) {
  try {
    hook();
  } catch (const InstrumentFailure&) {
    throw;
  } catch (...) {
    throw InstrumentFailure{std::current_exception()};
  }
}

/// The exception in flight as instruments are shown it: a hook's own, unwrapped.
inline std::exception_ptr exception_in_flight() {
  try {
    throw;
  } catch (const InstrumentFailure& failure) {
    return failure.cause;
  } catch (...) {
    return std::current_exception();
  }
}

/// Rethrows the exception in flight, a hook's as itself.
[[noreturn]] inline void rethrow_unwrapped() { std::rethrow_exception(exception_in_flight()); }

}  // namespace passline::detail

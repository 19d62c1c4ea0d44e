// The carrier types of passline's compile-time diagnostics.
//
// A rejected pipeline fails exactly one `static_assert`, whose first line reads
// `static assertion failed due to requirement 'passline::compile_error<C>'`,
// where the carrier C names the culprits: the pass types involved and, where a
// name matters, the name. The message after it says how to fix the pipeline.
// These types are never defined: they exist to be printed.
module;
#include <cstddef>
export module passline:diagnostics;
import :pass_info;

// Internal to the library: the names appear in its errors, and no user writes them.
namespace passline {

/// False for every carrier: `static_assert(compile_error<C>, ...)` always fires.
template <class Carrier>
inline constexpr bool compile_error = false;

/// `Pass` requires the pass named `Name`, and no earlier pass of the pipeline is named so.
template <class Pass, fixed_string Name>
struct missing_required_pass;

/// `Pass` requires `Provider`, which the pipeline runs only after `Pass`.
template <class Pass, class Provider>
struct required_pass_runs_after_its_user;

/// `Pass` requires the pass named `Name`; neither the pipeline nor the catalog has one.
template <class Pass, fixed_string Name>
struct unknown_required_pass;

/// `Pass` requires `Provider`, which ran earlier, but `Breaker` ran in between
/// and does not preserve it.
template <class Pass, class Provider, class Breaker>
struct required_pass_broken_by;

/// `Pass` requires both `Provider` and `Breaker`, and `Breaker` does not
/// preserve `Provider`: no order satisfies both.
template <class Pass, class Provider, class Breaker>
struct conflicting_required_passes;

/// Two different pass types declare the same name.
template <class First, class Second>
struct duplicate_pass_name;

/// Each pass requires the next one, and the last requires the first.
template <class... Cycle>
struct dependency_cycle;

/// The compiled form disables `Provider`, which the kept pass `Pass` requires.
template <class Pass, class Provider>
struct required_pass_is_disabled;

/// `T` has no `static constexpr passline::PassInfo info`.
template <class T>
struct not_a_pass;

/// `Pass` cannot be default-constructed, so a pipeline cannot make one.
template <class Pass>
struct pass_is_not_default_constructible;

/// `Pass` has a PassInfo but no call operator that runs it on `IR`.
template <class Pass, class IR>
struct pass_cannot_run_on;

}  // namespace passline

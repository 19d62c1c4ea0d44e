// IRTraits: what passline needs to know about an IR, specialized by the IR.
//
// The library never asks an IR type for members of its own: an IR opts in by
// specializing `passline::IRTraits<IR>`, and each part is optional. The function
// part lets function passes run on each function of a module. The identity
// test tells whether a pass handed back the IR it was given. Printing and
// fingerprints let instruments show and compare the IR.
module;
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
export module passline:ir_traits;

export namespace passline {

/// Specialize for your IR. Every part is optional.
///
/// Functions (for function passes):
///   using Function = ...;
///   static std::size_t function_count(const IR&);
///   static const Function& function(const IR&, std::size_t index);
///   static void replace_function(IR&, std::size_t index, Function);
///   static bool skips_optimization(const Function&);
///   static Function take_function(IR&, std::size_t index);  // optional: see below
///   static std::string_view function_name(const Function&);  // optional: for traces
/// `take_function` moves a function out for a function pass, leaving in the
/// IR what the passes of other functions may read of it (its name and
/// attributes, say) but not its body, so that a pass holding the only
/// reference may transform the body in place. Without it, passes get copies.
/// Identity (whether a pass handed back the IR it was given; the run never
/// needs it: required passes are decided from PassInfo::preserves):
///   static bool identical(const IR& before, const IR& after);  // cheap, e.g. a pointer compare
/// Presentation (for instruments):
///   static std::string print(const IR&);
///   static void print_into(const IR&, std::string& out);      // optional: `out` replaced, its room reused
///   static std::uint64_t fingerprint(const IR&);                // structural hash
///   static std::optional<std::uint64_t> cached_fingerprint(const IR&);  // optional: see below
/// `cached_fingerprint` is the fingerprint when it is at hand without a walk
/// of the IR, else nullopt. It suits an IR whose print also fingerprints what
/// it prints: `--print-changed` then prints an IR it cannot tell unchanged
/// first and reads its fingerprint after, one walk instead of two.
template <class IR>
struct IRTraits {};

/// An IR whose IRTraits describe its functions.
template <class IR>
concept HasFunctions =
    requires { typename IRTraits<IR>::Function; } &&
    requires(IR& ir, const IR& cir, typename IRTraits<IR>::Function fn, std::size_t i) {
      { IRTraits<IR>::function_count(cir) } -> std::convertible_to<std::size_t>;
      { IRTraits<IR>::function(cir, i) } -> std::convertible_to<const typename IRTraits<IR>::Function&>;
      IRTraits<IR>::replace_function(ir, i, std::move(fn));
      { IRTraits<IR>::skips_optimization(std::as_const(fn)) } -> std::convertible_to<bool>;
    };

}  // namespace passline

// Internal to the library.
namespace passline {

/// An IR whose functions can be moved out for function passes.
template <class IR>
concept TakesFunctions = HasFunctions<IR> && requires(IR& ir, std::size_t i) {
  { IRTraits<IR>::take_function(ir, i) } -> std::convertible_to<typename IRTraits<IR>::Function>;
};

/// An IR whose functions have names, for instruments that follow functions.
template <class IR>
concept NamesFunctions = HasFunctions<IR> && requires(const typename IRTraits<IR>::Function& fn) {
  { IRTraits<IR>::function_name(fn) } -> std::convertible_to<std::string_view>;
};

}  // namespace passline

export namespace passline {

/// An IR that IRTraits can print.
template <class IR>
concept Printable = requires(const IR& ir) {
  { IRTraits<IR>::print(ir) } -> std::convertible_to<std::string>;
};

/// An IR that IRTraits can fingerprint.
template <class IR>
concept Fingerprintable = requires(const IR& ir) {
  { IRTraits<IR>::fingerprint(ir) } -> std::convertible_to<std::uint64_t>;
};

}  // namespace passline

// What the library asks of IRTraits besides, not exported.
namespace passline {

/// The function type of an IR with functions.
template <HasFunctions IR>
using FunctionOf = typename IRTraits<IR>::Function;

/// An IR with an identity test, its own or its `operator==`.
template <class IR>
concept HasIdentity = requires(const IR& a, const IR& b) {
  { IRTraits<IR>::identical(a, b) } -> std::convertible_to<bool>;
} || std::equality_comparable<IR>;

/// An IR that IRTraits can print into a string it is given, reusing its room.
template <class IR>
concept PrintsInto = Printable<IR> && requires(const IR& ir, std::string& out) { IRTraits<IR>::print_into(ir, out); };

/// An IR that can say whether its fingerprint is at hand.
template <class IR>
concept CachesFingerprint = Fingerprintable<IR> && requires(const IR& ir) {
  { IRTraits<IR>::cached_fingerprint(ir) } -> std::convertible_to<std::optional<std::uint64_t>>;
};

}  // namespace passline

export namespace passline {

/// True when `after` is `before`, unchanged: the IR's identity test.
template <HasIdentity IR>
bool identical(const IR& before, const IR& after) {
  if constexpr (requires { IRTraits<IR>::identical(before, after); }) {
    return IRTraits<IR>::identical(before, after);
  } else {
    return before == after;
  }
}

}  // namespace passline

// IRTraits: what passline needs to know about an IR, specialized by the IR.
//
// The library never asks an IR type for members of its own: an IR opts in by
// specializing `passline::IRTraits<IR>`. The function part (below) lets function
// passes run on each function of a module; an IR without it has module passes only.
module;
#include <concepts>
#include <cstddef>
#include <utility>
export module passline:ir_traits;

export namespace passline {

/// Specialize for your IR. For function passes, provide:
///   using Function = ...;
///   static std::size_t function_count(const IR&);
///   static const Function& function(const IR&, std::size_t index);
///   static void replace_function(IR&, std::size_t index, Function);
///   static bool skips_optimization(const Function&);
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

/// The function type of an IR with functions.
template <HasFunctions IR>
using FunctionOf = typename IRTraits<IR>::Function;

}  // namespace passline

// What makes a type a pass: a PassInfo and a call operator of the right shape.
//
// Concepts rather than a base class: passes stay plain value types that the
// compiler can inline through, and the type-erased `Pass<IR>` is built on top.
// Two shapes, as in TVM: a module pass maps the whole IR; a function pass maps
// one function of it and the library runs it on every function.
module;
#include <concepts>
#include <utility>
export module passline:concepts;
import :pass_info;
import :context;
import :ir_traits;

// Internal to the library.
namespace passline {

/// A type that declares `static constexpr passline::PassInfo info`.
template <class P>
concept HasPassInfo = requires {
  { P::info } -> std::convertible_to<const PassInfo&>;
};

}  // namespace passline

export namespace passline {

/// A module pass: `IR operator()(IR, PassContext&) const`.
template <class P, class IR>
concept ModulePass = HasPassInfo<P> && std::default_initializable<P> &&
                     requires(const P& pass, IR ir, PassContext& ctx) {
                       { pass(std::move(ir), ctx) } -> std::same_as<IR>;
                     };

/// A function pass: `Function operator()(Function, const IR&, PassContext&) const`,
/// where `Function` is `IRTraits<IR>::Function`.
template <class P, class IR>
concept FunctionPass =
    HasPassInfo<P> && std::default_initializable<P> && HasFunctions<IR> &&
    requires(const P& pass, FunctionOf<IR> fn, const IR& ir, PassContext& ctx) {
      { pass(std::move(fn), ir, ctx) } -> std::same_as<FunctionOf<IR>>;
    };

}  // namespace passline

namespace passline {

/// A module pass or a function pass over `IR`.
template <class P, class IR>
concept PassFor = ModulePass<P, IR> || FunctionPass<P, IR>;

}  // namespace passline

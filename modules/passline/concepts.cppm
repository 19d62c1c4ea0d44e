// What makes a type a pass: a PassInfo and a call operator of the right shape.
//
// Concepts rather than a base class: passes stay plain value types that the
// compiler can inline through, and the type-erased `Pass<IR>` is built on top.
module;
#include <concepts>
#include <utility>
export module passline:concepts;
import :pass_info;
import :context;

export namespace passline {

/// A type that declares `static constexpr passline::PassInfo info`.
template <class P>
concept HasPassInfo = requires {
  { P::info } -> std::convertible_to<const PassInfo&>;
};

/// A module pass: `IR operator()(IR, PassContext&) const`.
template <class P, class IR>
concept ModulePass = HasPassInfo<P> && std::default_initializable<P> &&
                     requires(const P& pass, IR ir, PassContext& ctx) {
                       { pass(std::move(ir), ctx) } -> std::same_as<IR>;
                     };

}  // namespace passline

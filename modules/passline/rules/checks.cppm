// Internal: turns an analysis finding into exactly one static_assert. Not API.
//
// An `if constexpr` ladder picks the first problem of a pipeline and fires one
// static_assert on `compile_error<Carrier>`, so that the error's first line names
// the culprits (see `:diagnostics`) and its message says how to fix it.
module;
#include <boost/hana.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
export module passline:checks;
import :pass_info;
import :concepts;
import :diagnostics;
import :analysis;

namespace hana = boost::hana;

namespace passline::detail {

enum class Shape { ok, no_info, not_default_constructible, cannot_run };

/// What is wrong with P as a pass over IR. A variable template: cheaper to
/// instantiate a thousand times than a function.
template <class IR, class P>
inline constexpr Shape shape_of =
    !HasPassInfo<P>                  ? Shape::no_info
    : !ConstantInfo<P>               ? Shape::ok  // its own error was reported where it is declared
    : !std::default_initializable<P> ? Shape::not_default_constructible
    : !PassFor<P, IR>                ? Shape::cannot_run
                                     : Shape::ok;

/// The position of the first type that is not a pass over IR, or the length.
template <class IR, class... Ts>
constexpr std::size_t first_bad_shape(TypeList<Ts...>) {
  constexpr std::array<Shape, sizeof...(Ts) + 1> shapes{shape_of<IR, Ts>..., Shape::no_info};
  std::size_t i = 0;
  while (shapes[i] == Shape::ok) ++i;
  return i;
}

template <class P, std::size_t Requirement>
constexpr auto required_name = [] {
  constexpr std::string_view name = P::info.required[Requirement];
  return to_fixed_string<name.size()>(name);
}();

/// The carrier that names a type that is not a pass over IR.
template <class IR, class P>
constexpr auto shape_carrier() {
  constexpr Shape shape = shape_of<IR, P>;
  if constexpr (shape == Shape::no_info) {
    return hana::type_c<not_a_pass<P>>;
  } else if constexpr (shape == Shape::not_default_constructible) {
    return hana::type_c<pass_is_not_default_constructible<P>>;
  } else if constexpr (shape == Shape::cannot_run) {
    return hana::type_c<pass_cannot_run_on<P, IR>>;
  } else {
    return hana::type_c<void>;
  }
}

/// The carrier that names the culprits of a finding about the type tuple
/// `Types`, or void for none.
template <class Types, Finding F>
constexpr auto finding_carrier() {
  if constexpr (F.problem == Problem::duplicate_name) {
    return hana::type_c<duplicate_pass_name<type_at<Types, F.pass>, type_at<Types, F.other>>>;
  } else if constexpr (F.problem == Problem::missing) {
    using P = type_at<Types, F.pass>;
    return hana::type_c<missing_required_pass<P, required_name<P, F.requirement>>>;
  } else if constexpr (F.problem == Problem::after_user) {
    return hana::type_c<
        required_pass_runs_after_its_user<type_at<Types, F.pass>, type_at<Types, F.other>>>;
  } else if constexpr (F.problem == Problem::self_requirement) {
    return hana::type_c<dependency_cycle<type_at<Types, F.pass>>>;
  } else if constexpr (F.problem == Problem::unknown) {
    using P = type_at<Types, F.pass>;
    return hana::type_c<unknown_required_pass<P, required_name<P, F.requirement>>>;
  } else if constexpr (F.problem == Problem::broken) {
    return hana::type_c<required_pass_broken_by<type_at<Types, F.pass>, type_at<Types, F.other>,
                                                type_at<Types, F.breaker>>>;
  } else if constexpr (F.problem == Problem::conflict) {
    return hana::type_c<conflicting_required_passes<type_at<Types, F.pass>, type_at<Types, F.other>,
                                                    type_at<Types, F.breaker>>>;
  } else if constexpr (F.problem == Problem::disabled_required) {
    return hana::type_c<required_pass_is_disabled<type_at<Types, F.pass>, type_at<Types, F.other>>>;
  } else {
    return hana::type_c<void>;
  }
}

/// A pass that holds a pipeline of its own (a fixed point's body) names the
/// first problem of that pipeline over IR as `P::body_carrier<IR>`.
template <class P>
concept HoldsPipeline = requires { P::holds_pipeline; };

/// The first problem of the pipelines the passes of `Leaves` hold, or void.
template <class IR, class... Ls>
constexpr auto held_carrier(TypeList<Ls...>) {
  constexpr std::array<bool, sizeof...(Ls) + 1> holds{HoldsPipeline<Ls>..., false};
  if constexpr (std::ranges::find(holds, true) == holds.end()) {
    return hana::type_c<void>;
  } else {
    auto carrier_of = []<class L>(hana::basic_type<L>) {
      if constexpr (HoldsPipeline<L>) {
        return hana::type_c<typename L::template body_carrier<IR>>;
      } else {
        return hana::type_c<void>;
      }
    };
    constexpr auto carriers = hana::make_tuple(carrier_of(hana::type_c<Ls>)...);
    constexpr auto found = hana::find_if(carriers, [](auto carrier) {
      return hana::bool_c<!std::is_void_v<typename decltype(carrier)::type>>;
    });
    return found.value_or(hana::type_c<void>);
  }
}

/// The carrier for the first problem of a static pipeline over IR: the shape of
/// each pass, then names and ordering, then the pipelines its passes hold;
/// void when there is none.
template <class IR, class Leaves, Openness Open>
constexpr auto pipeline_carrier() {
  constexpr std::size_t bad = first_bad_shape<IR>(Leaves{});
  if constexpr (bad < size_of<Leaves>) {
    return shape_carrier<IR, type_at<Leaves, bad>>();
  } else {
    constexpr auto order = finding_carrier<Leaves, check_order(infos_of(Leaves{}), type_ids_of(Leaves{}), Open)>();
    if constexpr (!std::is_void_v<typename decltype(order)::type>) {
      return order;
    } else {
      return held_carrier<IR>(Leaves{});
    }
  }
}

template <class Carrier>
inline constexpr Problem problem_of = Problem::none;
template <class P, fixed_string N>
inline constexpr Problem problem_of<missing_required_pass<P, N>> = Problem::missing;
template <class P, class Q>
inline constexpr Problem problem_of<required_pass_runs_after_its_user<P, Q>> = Problem::after_user;
template <class P, fixed_string N>
inline constexpr Problem problem_of<unknown_required_pass<P, N>> = Problem::unknown;
template <class P, class Q>
inline constexpr Problem problem_of<duplicate_pass_name<P, Q>> = Problem::duplicate_name;
template <class... Ps>
inline constexpr Problem problem_of<dependency_cycle<Ps...>> = Problem::cycle;
template <class P, class Q>
inline constexpr Problem problem_of<required_pass_is_disabled<P, Q>> = Problem::disabled_required;
template <class P, class Q, class B>
inline constexpr Problem problem_of<required_pass_broken_by<P, Q, B>> = Problem::broken;
template <class P, class Q, class B>
inline constexpr Problem problem_of<conflicting_required_passes<P, Q, B>> = Problem::conflict;

template <class Carrier>
inline constexpr Shape shape_problem_of = Shape::ok;
template <class P>
inline constexpr Shape shape_problem_of<not_a_pass<P>> = Shape::no_info;
template <class P>
inline constexpr Shape shape_problem_of<pass_is_not_default_constructible<P>> =
    Shape::not_default_constructible;
template <class P, class IR>
inline constexpr Shape shape_problem_of<pass_cannot_run_on<P, IR>> = Shape::cannot_run;

/// Fires the one static_assert for `Carrier`; nothing for void. Its template
/// argument is the carrier alone, so the error never repeats the pipeline.
template <class Carrier>
constexpr void diagnose() {
  if constexpr (shape_problem_of<Carrier> == Shape::no_info) {
    static_assert(compile_error<Carrier>,
                  "every element of a pipeline must declare "
                  "`static constexpr passline::PassInfo info` (or be a pipeline)");
  } else if constexpr (shape_problem_of<Carrier> == Shape::not_default_constructible) {
    static_assert(compile_error<Carrier>,
                  "a static pipeline makes its passes itself: give the pass a default "
                  "constructor, or hold a configured pass in a runtime passline::Pass<IR>");
  } else if constexpr (shape_problem_of<Carrier> == Shape::cannot_run) {
    static_assert(compile_error<Carrier>,
                  "the pass's call operator fits neither shape: a module pass has "
                  "`IR operator()(IR, passline::PassContext&) const`, a function pass "
                  "`Function operator()(Function, const IR&, passline::PassContext&) const` "
                  "with Function = passline::IRTraits<IR>::Function");
  } else if constexpr (problem_of<Carrier> == Problem::duplicate_name) {
    static_assert(compile_error<Carrier>,
                  "two different pass types declare the same PassInfo::name; "
                  "pass names are unique: rename one of them");
  } else if constexpr (problem_of<Carrier> == Problem::missing) {
    static_assert(compile_error<Carrier>,
                  "no earlier pass of the pipeline provides a pass it requires: add the "
                  "required pass before it, or let passline::ResolvedSequential insert it");
  } else if constexpr (problem_of<Carrier> == Problem::after_user) {
    static_assert(compile_error<Carrier>,
                  "the pipeline runs a required pass only after the pass that requires it: "
                  "move it before its user, or let passline::ResolvedSequential insert it");
  } else if constexpr (problem_of<Carrier> == Problem::unknown) {
    static_assert(compile_error<Carrier>,
                  "neither the pipeline nor the catalog has a pass of the required name: add "
                  "its type to the passline::Catalog, or fix the name in PassInfo::required");
  } else if constexpr (problem_of<Carrier> == Problem::cycle) {
    static_assert(compile_error<Carrier>,
                  "these passes require each other in a cycle (each requires the next, the "
                  "last the first; a single pass requires itself): remove one requirement");
  } else if constexpr (problem_of<Carrier> == Problem::broken) {
    static_assert(compile_error<Carrier>,
                  "a pass between them does not preserve what the required pass established: run "
                  "the required pass again before its user, declare `.preserves` on the pass in "
                  "between if it keeps it, or let passline::ResolvedSequential insert the re-run");
  } else if constexpr (problem_of<Carrier> == Problem::conflict) {
    static_assert(compile_error<Carrier>,
                  "the pass requires two passes, and the second does not preserve the first, so "
                  "no order satisfies both: declare `.preserves` on the second if it keeps the "
                  "first, or drop one requirement");
  } else if constexpr (problem_of<Carrier> == Problem::disabled_required) {
    static_assert(compile_error<Carrier>,
                  "the compiled form disables a pass that a kept pass requires: "
                  "do not disable it, or disable its user too");
  }
}

/// The whole check of a static pipeline over IR. At most one static_assert fires.
template <class IR, class Leaves, Openness Open = Openness::closed>
using pipeline_carrier_t = typename decltype(pipeline_carrier<IR, Leaves, Open>())::type;

}  // namespace passline::detail

// Fixed points: run a pipeline until the IR stops changing, at most N rounds.
//
//   using Cleanup = passline::FixedPoint<4, passline::Sequential<SimplifyExpr, DeadCodeElimination>>;
//   passline::Pass<IR> cleanup = passline::fixed_point(pipeline, 4);
//
// A round that hands back an IR identical to the one it got (the IR's
// identity test, IRTraits<IR>::identical or operator==) ends the loop. Each
// round keeps the IR it started from, to compare with: for an IR whose parts
// are shared (the reference IR) that costs no copy of them, but the passes of
// the loop cannot rewrite those parts in place.
//
// The compiler checks a static body as it runs: after what the pipeline
// around it provides, twice in a row, so that a pass late in the body that
// breaks what an early pass requires from outside the loop is reported (the
// second round would run the early pass on an IR whose requirement no longer
// holds).
module;
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
export module passline:fixed_point;
import :pass_info;
import :context;
import :concepts;
import :ir_traits;
import :analysis;
import :checks;
import :pass;
import :sequential;

namespace passline::detail {

/// Runs `round(ir)` until it hands back an identical IR, at most `max_rounds` times.
template <class IR, class Round>
IR repeat_until_unchanged(IR ir, std::size_t max_rounds, Round&& round) {
  for (std::size_t k = 0; k < max_rounds; ++k) {
    IR before = ir;
    ir = round(std::move(ir));
    if (passline::identical(before, ir)) break;
  }
  return ir;
}

/// What the pipeline around a fixed point provides to its body: the I-th
/// name the body requires and does not hold, as a pass that ran before the
/// loop. Only the compile-time check of the body sees it.
template <class Body, std::size_t I>
struct ProvidedBeforeTheLoop {
  static constexpr PassInfo info{.name = Body::info.required[I]};
  template <class IR>
  IR operator()(IR ir, PassContext&) const {
    return ir;
  }
};

/// The body as the check reads it: what is provided before the loop, then
/// two rounds.
template <class Body, std::size_t... I>
auto checked_rounds(std::index_sequence<I...>) {
  using Leaves = decltype(flatten_passes<Body>());
  return boost::mp11::mp_append<TypeList<ProvidedBeforeTheLoop<Body, I>...>, Leaves, Leaves>{};
}

}  // namespace passline::detail

export namespace passline {

/// The static pipeline `Body` run until the IR stops changing, at most
/// `MaxRounds` rounds. It is one pass of an enclosing pipeline, named `Name`.
template <std::size_t MaxRounds, class Body, fixed_string Name = "FixedPoint">
  requires detail::StaticPipeline<Body>
struct FixedPoint {
  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = 0,
      .required = Body::info.required,
      .summary = "runs its pipeline until the IR stops changing",
  };

  FixedPoint() = default;
  explicit FixedPoint(Body pipeline) : body(std::move(pipeline)) {}

  /// The first problem of the body over IR (checked as it runs: after what
  /// the pipeline around it provides, twice in a row), or void. A pipeline
  /// that holds the fixed point reports it among its own.
  static constexpr bool holds_pipeline = true;
  template <class IR>
  using body_carrier = detail::pipeline_carrier_t<
      IR, decltype(detail::checked_rounds<Body>(std::make_index_sequence<Body::info.required.size()>{}))>;

  template <class IR>
  IR operator()(IR ir, PassContext& ctx) const {
    static_assert(HasIdentity<IR>,
                  "a fixed point must tell an unchanged IR: give IRTraits<IR>::identical (or operator==)");
    using Carrier = body_carrier<IR>;
    if constexpr (std::is_void_v<Carrier>) {
      return detail::repeat_until_unchanged(std::move(ir), MaxRounds,
                                            [&](IR input) { return body.run(std::move(input), ctx); });
    } else {
      detail::diagnose<Carrier>();
      return ir;
    }
  }

  Body body{};
};

/// The runtime pass `body` run until the IR stops changing, at most
/// `max_rounds` rounds, as one pass named `name`.
template <class IR>
  requires HasIdentity<IR>
Pass<IR> fixed_point(Pass<IR> body, std::size_t max_rounds, std::string_view name = "FixedPoint") {
  const PassInfo info{.name = name,
                      .required = body.info().required,
                      .summary = "runs its pass until the IR stops changing"};
  return module_pass<IR>(info, [body = std::move(body), max_rounds](IR ir, PassContext& ctx) {
    return detail::repeat_until_unchanged(std::move(ir), max_rounds,
                                          [&](IR input) { return body(std::move(input), ctx); });
  });
}

}  // namespace passline

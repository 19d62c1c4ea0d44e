// Static pipelines: `Sequential<A, B, C>` is itself a pass whose passes are types.
//
// The compiler checks a pipeline where it is run: each element must be a pass
// over the IR, names must be unique, and every required pass must come earlier
// (nested Sequentials are flattened for this, so an inner pipeline may rely on
// an outer one). One static_assert reports the first problem.
//
// At run time the PassContext gates each pass by the rule the runtime layer
// uses, required passes included: a pass that a running pass requires runs too,
// whatever its opt level, and a disabled one is an error. The lowest level at
// which each pass runs is computed at compile time, so under a context that
// names no passes the gate is one comparison per pass.
module;
#include <boost/hana.hpp>

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
export module passline:sequential;
import :pass_info;
import :context;
import :concepts;
import :analysis;
import :checks;
import :invoke;
import :error;

namespace hana = boost::hana;

namespace passline::detail {

/// Runs the passes for which `runs(I)` holds, in order. The braced list
/// sequences the calls without nesting, whatever their number.
template <class IR, class... Ls, std::size_t... I, class Runs>
IR run_where(TypeList<Ls...>, std::index_sequence<I...>, Runs runs, IR ir, PassContext& ctx) {
  (void)std::initializer_list<int>{
      (runs(I) ? void(ir = invoke_pass(Ls{}, std::move(ir), ctx)) : void(), 0)...};
  return ir;
}

/// Which passes run under a context that names passes: those the gating rule
/// admits and every pass they require; a required pass that the context
/// disables is an error naming both.
template <std::size_t N, std::size_t R>
std::array<bool, N> requirement_mask(const std::array<PassInfo, N>& infos,
                                     const ProviderTable<N, R>& table, const PassContext& ctx) {
  const RunPlan<N> plan = close_over_requirements(
      infos, table, [&](const PassInfo& info) { return ctx.pass_enabled(info); },
      [&](std::string_view name) { return ctx.is_disabled(name); });
  if (plan.finding.problem != Problem::none) {
    throw PipelineError(fmt::format("pass '{}' requires '{}', which the pass context disables",
                                    infos[plan.finding.pass].name, infos[plan.finding.other].name));
  }
  return plan.runs;
}

}  // namespace passline::detail

export namespace passline {

/// A static pipeline. Its PassInfo requires what its passes require and no
/// earlier pass of it provides, so an enclosing pipeline can check it.
template <class... Passes>
struct Sequential {
  /// The passes, as a Hana type tuple (nested pipelines stay nested).
  static constexpr auto passes = hana::tuple_t<Passes...>;

  static constexpr PassInfo info{
      .name = "Sequential",
      .opt_level = 0,
      .required = std::span<const std::string_view>(
          detail::PipelineFacts<Passes...>::external.first.data(),
          detail::PipelineFacts<Passes...>::external.second),
      .summary = "runs its passes in order",
  };

  /// Checks the pipeline over IR at compile time, then runs it under `ctx`.
  template <class IR>
  IR operator()(IR ir, PassContext& ctx) const {
    using Carrier = detail::pipeline_carrier_t<IR, typename detail::PipelineFacts<Passes...>::Leaves>;
    if constexpr (std::is_void_v<Carrier>) {
      return run(std::move(ir), ctx);
    } else {
      detail::diagnose<Carrier>();
      return ir;
    }
  }

  /// Runs the pipeline under `PassContext::current()`.
  template <class IR>
  IR operator()(IR ir) const {
    return (*this)(std::move(ir), PassContext::current());
  }

  /// Runs without the compile-time checks: how an enclosing pipeline, which has
  /// checked the whole, runs this one. Nested pipelines run flattened.
  template <class IR>
  static IR run(IR ir, PassContext& ctx) {
    using Facts = detail::PipelineFacts<Passes...>;
    constexpr auto positions = std::make_index_sequence<Facts::size>{};
    if (!ctx.names_passes()) {
      auto reaches = [&](std::size_t i) { return ctx.opt_level >= Facts::levels[i]; };
      return detail::run_where(Facts::leaves, positions, reaches, std::move(ir), ctx);
    }
    const auto runs = detail::requirement_mask(Facts::infos, Facts::providers, ctx);
    auto marked = [&](std::size_t i) { return runs[i]; };
    return detail::run_where(Facts::leaves, positions, marked, std::move(ir), ctx);
  }
};

}  // namespace passline

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

template <class... Ps>
struct PipelineFacts {
  using Leaves = decltype(flatten_passes<Ps...>());
  static constexpr Leaves leaves{};
  static constexpr auto infos = infos_of(leaves);
  static constexpr std::size_t size = infos.size();
  static constexpr std::size_t requirement_count = total_requirements(infos);
  static constexpr auto external = external_requirements<requirement_count>(infos);
  static constexpr auto providers = providers_of<requirement_count>(infos);
  static constexpr auto levels = effective_levels(infos, providers);
};

/// Runs the passes whose effective level the context's opt level reaches.
/// The braced list sequences the calls without nesting, whatever their number.
template <const auto& Levels, class IR, class... Ls, std::size_t... I>
IR run_by_level(TypeList<Ls...>, std::index_sequence<I...>, IR ir, PassContext& ctx) {
  (void)std::initializer_list<int>{
      (ctx.opt_level >= Levels[I] ? void(ir = invoke_pass(Ls{}, std::move(ir), ctx)) : void(), 0)...};
  return ir;
}

/// Runs the passes that `runs` marks.
template <class IR, class... Ls, std::size_t... I, std::size_t N>
IR run_marked(TypeList<Ls...>, std::index_sequence<I...>, const std::array<bool, N>& runs, IR ir,
              PassContext& ctx) {
  (void)std::initializer_list<int>{
      (runs[I] ? void(ir = invoke_pass(Ls{}, std::move(ir), ctx)) : void(), 0)...};
  return ir;
}

/// Which passes run under a context that names passes: those the gating rule
/// admits, and every pass they require, transitively. A required pass that the
/// context disables is an error naming both.
template <std::size_t N, std::size_t R>
std::array<bool, N> requirement_mask(const std::array<PassInfo, N>& infos,
                                     const ProviderTable<N, R>& table, const PassContext& ctx) {
  std::array<bool, N> runs{};
  for (std::size_t i = N; i-- > 0;) {
    runs[i] = runs[i] || ctx.pass_enabled(infos[i]);
    if (!runs[i]) continue;
    for (std::size_t k = table.offsets[i]; k < table.offsets[i + 1]; ++k) {
      const PassInfo& provider = infos[table.providers[k]];
      if (ctx.is_disabled(provider.name)) {
        throw PipelineError(fmt::format("pass '{}' requires '{}', which the pass context disables",
                                        infos[i].name, provider.name));
      }
      runs[table.providers[k]] = true;
    }
  }
  return runs;
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
      return detail::run_by_level<Facts::levels>(Facts::leaves, positions, std::move(ir), ctx);
    }
    const auto runs = detail::requirement_mask(Facts::infos, Facts::providers, ctx);
    return detail::run_marked(Facts::leaves, positions, runs, std::move(ir), ctx);
  }
};

}  // namespace passline

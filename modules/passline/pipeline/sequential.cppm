// Static pipelines: `Sequential<A, B, C>` is itself a pass whose passes are types.
//
// The compiler checks a pipeline where it is run: each element must be a pass
// over the IR, names must be unique, and every required pass must come earlier
// (nested Sequentials are flattened for this, so an inner pipeline may rely on
// an outer one). One static_assert reports the first problem.
//
// At run time the pipeline runs its plan (`:plan`), the one a runtime
// pipeline of the same passes runs: the PassContext gates each pass by the
// same rule, required passes included (a pass that a running pass requires
// runs too, whatever its opt level, and a disabled one is an error), with the
// same hooks and errors. Runtime slots (`Slot`) are filled when the pipeline
// is constructed.
module;
#include <boost/hana.hpp>


#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
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
import :node;
import :plan;
import :run;
import :analysis_manager;
import :pass;
import :slot;

namespace hana = boost::hana;

namespace passline::detail {

/// Position of each leaf among the slots (meaningful for slots only), and their number.
template <class... Ls>
constexpr auto slot_positions(TypeList<Ls...>) {
  constexpr std::array<bool, sizeof...(Ls) + 1> is_slot{RuntimeSlot<Ls>..., false};
  std::array<std::size_t, sizeof...(Ls) + 1> position{};
  std::size_t count = 0;
  for (std::size_t i = 0; i < sizeof...(Ls); ++i) position[i] = is_slot[i] ? count++ : 0;
  position[sizeof...(Ls)] = count;
  return position;
}

template <class... Ls>
constexpr auto first_slot(TypeList<Ls...>) {
  constexpr std::array<bool, sizeof...(Ls)> is_slot{RuntimeSlot<Ls>...};
  return std::ranges::find(is_slot, true) - is_slot.begin();
}

/// The passes filling a pipeline's slots; empty when it has none.
template <class Leaves, std::size_t Count = slot_positions(Leaves{})[size_of<Leaves>]>
struct SlotFillers {
  static constexpr std::size_t count = 0;
};

template <class Leaves, std::size_t Count>
  requires(Count > 0)
struct SlotFillers<Leaves, Count> {
  static constexpr std::size_t count = Count;
  using IR = typename type_at<Leaves, first_slot(Leaves{})>::slot_ir;
  std::array<std::optional<Pass<IR>>, Count> passes{};
};

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

  using Facts = detail::PipelineFacts<Passes...>;
  using Fillers = detail::SlotFillers<typename Facts::Leaves>;
  /// The number of runtime slots, over nested pipelines too.
  static constexpr std::size_t slot_count = Fillers::count;
  Sequential() = default;
  /// Fills the runtime slots, in the order they appear in the flattened pipeline.
  template <class... Fill>
    requires(sizeof...(Fill) > 0 && sizeof...(Fill) == slot_count)
  explicit Sequential(Fill... fill) {
    std::size_t i = 0;
    ((fillers_.passes[i++] = Pass<typename Fillers::IR>(std::move(fill))), ...);
  }

  /// Checks the pipeline over IR at compile time, then runs it under `ctx`.
  template <class IR>
  IR operator()(IR ir, PassContext& ctx) const {
    return checked_run<Sequential>(*this, std::move(ir), ctx);
  }

  /// Runs the pipeline under `PassContext::current()`.
  template <class IR>
  IR operator()(IR ir) const {
    return (*this)(std::move(ir), PassContext::current());
  }

  /// Runs without the compile-time checks: the plan a runtime pipeline of
  /// the same passes runs, made once per context settings.
  template <class IR>
  IR run(IR ir, PassContext& ctx) const {
    return run_as<Sequential>(*this, std::move(ir), ctx);
  }

  /// The pass at position I of the flattened pipeline: a slot with its pass.
  template <std::size_t I>
  auto element() const {
    return leaf<detail::type_at<typename Facts::Leaves, I>, I>();
  }

  /// `run` and the call operator for the pipeline `Self` (this one, or one
  /// that names it): it stands under `Self::info.name`.
  template <class Self, class IR>
  static IR checked_run(const Self& self, IR ir, PassContext& ctx) {
    using Carrier = detail::pipeline_carrier_t<IR, typename Facts::Leaves>;
    if constexpr (std::is_void_v<Carrier>) {
      return run_as<Self>(self, std::move(ir), ctx);
    } else {
      detail::diagnose<Carrier>();
      return ir;
    }
  }

  template <class Self, class IR>
  static IR run_as(const Self& self, IR ir, PassContext& ctx) {
    if constexpr (slot_count == 0) {
      // One node, and so one cached plan, per pipeline type.
      static const std::shared_ptr<const detail::PassNode<IR>> node = detail::static_node<IR>(Self{});
      return detail::run_node(*node, std::move(ir), ctx);
    } else {
      return detail::run_node(*detail::static_node<IR>(self), std::move(ir), ctx);
    }
  }

 private:
  template <class L, std::size_t I>
  L leaf() const {
    if constexpr (detail::RuntimeSlot<L>) {
      constexpr std::size_t position = detail::slot_positions(typename Facts::Leaves{})[I];
      const auto& filler = fillers_.passes[position];
      return filler ? L(*filler) : L();
    } else {
      return L{};
    }
  }

  [[no_unique_address]] Fillers fillers_{};
};

/// A static pipeline under a name of its own: `Named<"Cleanup", Sequential<A, B>>`
/// stands as `Cleanup` in timings, traces, plans and error paths, where an
/// unnamed one stands as `Sequential`.
template <fixed_string Name, class Pipeline>
  requires requires { Pipeline::slot_count; }
struct Named : Pipeline {
  static constexpr PassInfo info = [] {
    PassInfo declared = Pipeline::info;
    declared.name = Name.view();
    return declared;
  }();

  using Pipeline::Pipeline;

  template <class IR>
  IR operator()(IR ir, PassContext& ctx) const {
    return Pipeline::template checked_run<Named>(*this, std::move(ir), ctx);
  }
  template <class IR>
  IR operator()(IR ir) const {
    return (*this)(std::move(ir), PassContext::current());
  }
  template <class IR>
  IR run(IR ir, PassContext& ctx) const {
    return Pipeline::template run_as<Named>(*this, std::move(ir), ctx);
  }
};

}  // namespace passline

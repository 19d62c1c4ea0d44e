// Slot: a place in a static pipeline for a pass chosen at run time.
//
//   using Lowering = passline::Sequential<InferType, passline::Slot<Module, "Target">, DCE>;
//   Lowering pipeline(target_passes);    // fills the slot when the pipeline is built
//
// The compiler checks the static passes around the slot as usual; what the
// slot's pass requires is checked when it runs, against the passes that ran
// before it in the same run, static or not.
module;
#include <optional>
#include <utility>
#include <fmt/format.h>
export module passline:slot;
import :pass_info;
import :context;
import :pass;
import :error;

export namespace passline {

template <class IR, fixed_string Name = "Slot">
struct Slot {
  using slot_ir = IR;
  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = 0,
      .summary = "a pass chosen when the pipeline is built",
  };

  Slot() = default;
  Slot(Pass<IR> filler) : pass(std::move(filler)) {}

  IR operator()(IR ir, PassContext& ctx) const {
    if (!pass) throw PipelineError(fmt::format("slot '{}' of a static pipeline was never filled", info.name));
    return (*pass)(std::move(ir), ctx);
  }

  std::optional<Pass<IR>> pass;
};

}  // namespace passline

namespace passline::detail {

/// A slot of a static pipeline.
template <class T>
concept RuntimeSlot = requires { typename T::slot_ir; };

}  // namespace passline::detail

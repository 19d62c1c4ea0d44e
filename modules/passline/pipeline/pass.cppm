// Pass<IR>: a type-erased, immutable pass value, cheap to copy.
//
// It is how passes chosen at run time (by name, from pipeline text) are held.
// Any static pass or static pipeline converts to one; so does a callable with a
// PassInfo (`module_pass`, `function_pass`: TVM's CreateModulePass and
// CreateFunctionPass), and `sequential` makes a runtime pipeline of them.
//
// Running a Pass runs its plan (`:plan`): the passes the gating rule of the
// context admits, with the required passes that do not hold inserted before
// their users (found in the registry when the pipeline does not list them),
// under the context's instruments.
module;
#include <boost/core/type_name.hpp>
#include <boost/hana.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
export module passline:pass;
import :pass_info;
import :context;
import :concepts;
import :ir_traits;
import :invoke;
import :analysis;
import :checks;
import :node;
import :plan;
import :run;
import :options;
import :text_format;
import :value;

namespace hana = boost::hana;

export namespace passline {
template <class IR>
class Pass;
}

namespace passline::detail {

/// How the library reaches the node behind a Pass, which users do not see.
struct NodeAccess {
  template <class IR>
  static const std::shared_ptr<const PassNode<IR>>& node(const Pass<IR>& pass) {
    return pass.node_;
  }
  template <class IR>
  static Pass<IR> pass(std::shared_ptr<const PassNode<IR>> node) {
    return Pass<IR>(std::move(node));
  }
};

/// `object` kept for a runner, as an untyped pointer that deletes it as a T.
template <class T>
std::shared_ptr<const void> kept(T object) {
  return std::shared_ptr<const void>(new T(std::move(object)), [](const void* p) { delete static_cast<const T*>(p); });
}

/// The runner of a static pass: a stateless pass is made where it runs, as
/// the compiled form makes it; one with state (option values) is kept.
template <class IR, class P>
std::shared_ptr<const Runner<IR>> static_runner(P pass) {
  if constexpr (std::is_empty_v<P>) {
    return std::make_shared<const Runner<IR>>(
        [](const Runner<IR>&, IR ir, PassContext& ctx) { return invoke_pass(P{}, std::move(ir), ctx); },
        !ModulePass<P, IR>);
  } else {
    return std::make_shared<const Runner<IR>>(
        [](const Runner<IR>& runner, IR ir, PassContext& ctx) {
          return invoke_pass(runner.template pass<P>(), std::move(ir), ctx);
        },
        !ModulePass<P, IR>, kept(std::move(pass)));
  }
}

template <class IR, class P>
std::shared_ptr<const PassNode<IR>> static_node(P pass);

/// The node of pass L at position I of the flattened static pipeline `pipeline`.
template <class IR, class L, std::size_t I, class P>
std::shared_ptr<const PassNode<IR>> leaf_node(const P& pipeline) {
  if constexpr (requires { typename L::slot_ir; }) {  // a Slot
    const L slot = pipeline.template element<I>();
    if (slot.pass) return NodeAccess::node(*slot.pass);
    return static_node<IR>(slot);  // running it says it was never filled
  } else {
    return static_node<IR>(L{});
  }
}

/// The node of a static pass, or of a static pipeline: one plans as its leaves
/// (nested static pipelines run flattened, under its name), with its slots'
/// passes in their places.
template <class IR, class P>
std::shared_ptr<const PassNode<IR>> static_node(P pass) {
  if constexpr (StaticPipeline<P>) {
    using Leaves = decltype(flatten_passes<P>());
    Pipeline<IR> pipeline{.passes = {},
                          .kind = requires { P::decided; } ? PipelineKind::compiled : PipelineKind::sequence,
                          .source = nullptr};
    // A braced list, not a fold: a fold of a thousand passes nests too deep.
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      pipeline.passes = {leaf_node<IR, type_at<Leaves, I>, I>(pass)...};
    }(std::make_index_sequence<size_of<Leaves>>{});
    return std::make_shared<const PassNode<IR>>(P::info, std::move(pipeline));
  } else {
    auto node = std::make_shared<PassNode<IR>>(P::info, static_runner<IR>(pass));
    node->options = option_values(pass);
    return node;
  }
}

/// Checks a static pass or pipeline that becomes a runtime pass: whether it
/// may. A pipeline's passes may require passes it does not hold: the run
/// resolves those, as for any runtime pass. Every other problem is reported,
/// in one error, as it is for a static pipeline run alone.
template <class IR, class P>
constexpr bool open_pipeline_ok() {
  using Leaves = decltype(flatten_passes<P>());
  using Carrier = pipeline_carrier_t<IR, Leaves, Openness::open>;
  if constexpr (!std::is_void_v<Carrier>) diagnose<Carrier>();
  return std::is_void_v<Carrier>;
}

/// A callable pass as its runner keeps it: the callable, and for a function
/// pass its PassInfo, for instruments that follow functions.
template <class Call>
struct Callable {
  std::unique_ptr<OwnedInfo> info;
  Call call;
};

/// The node of a callable pass described by `info` (its strings copied): a
/// module pass `IR(IR, PassContext&)`, or a function pass.
template <class IR, class Call>
std::shared_ptr<const PassNode<IR>> callable_node(const PassInfo& info, Call call) {
  constexpr bool on_module = std::is_invocable_r_v<IR, const Call&, IR, PassContext&>;
  Callable<Call> kept_call{.info = on_module ? nullptr : std::make_unique<OwnedInfo>(info), .call = std::move(call)};
  auto runner = std::make_shared<const Runner<IR>>(
      [](const Runner<IR>& runner, IR ir, PassContext& ctx) {
        const Callable<Call>& callable = runner.template pass<Callable<Call>>();
        if constexpr (on_module) {
          return callable.call(std::move(ir), ctx);
        } else {
          return run_on_functions(callable.info->info, callable.call, std::move(ir), ctx);
        }
      },
      !on_module, kept(std::move(kept_call)));
  return std::make_shared<const PassNode<IR>>(std::make_unique<OwnedInfo>(info), std::move(runner));
}

/// The unqualified name of a type (Boost's spelling, without its scopes).
template <class T>
std::string type_name() {
  std::string name = boost::core::type_name<T>();
  const std::size_t scope = name.rfind("::", name.find('<'));
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

}  // namespace passline::detail

export namespace passline {

template <class IR>
class Pass {
 public:
  /// From a static pass type of either shape, or a static pipeline.
  template <PassFor<IR> P>
  Pass(P pass) {
    // After the one error a problem gives, nothing more is made of the pass.
    if constexpr (detail::open_pipeline_ok<IR, P>()) node_ = detail::static_node<IR>(std::move(pass));
  }

  /// A module pass from a callable `IR(IR, PassContext&)` and the PassInfo that
  /// describes it. The PassInfo's strings are copied: they may be run-time data.
  Pass(const PassInfo& info, std::function<IR(IR, PassContext&)> run)
      : node_(detail::callable_node<IR>(info, std::move(run))) {}

  const PassInfo& info() const { return node_->info; }

  /// Whether this is a pipeline (runtime or static) with passes of its own.
  bool is_pipeline() const { return node_->pipeline() != nullptr; }

  /// The passes of a pipeline, in order; empty for a single pass.
  std::vector<Pass> passes() const {
    std::vector<Pass> result;
    if (const auto* pipeline = node_->pipeline()) {
      for (const auto& pass : pipeline->passes) result.push_back(Pass(pass));
    }
    return result;
  }

  /// The values of the pass's options, in declaration order.
  const std::vector<std::pair<std::string, Value>>& options() const { return node_->options; }

  /// The pass as canonical pipeline text: `A,B{x=1},seq(C,D)`.
  std::string text() const { return detail::node_text(*node_, true); }

  /// Runs the pass under `ctx` (the gating rule applies to the pass itself too).
  IR operator()(IR ir, PassContext& ctx) const { return detail::run_node(*node_, std::move(ir), ctx); }

  /// Runs the pass under `PassContext::current()`.
  IR operator()(IR ir) const { return (*this)(std::move(ir), PassContext::current()); }

  /// The steps the pass runs under `ctx`, in order, with why each required
  /// pass runs where it does (`plan_text` prints them). Errors are those a
  /// run would raise before its first pass: a requirement missing, disabled,
  /// in a cycle or in conflict.
  std::vector<PlannedStep> plan(const PassContext& ctx) const {
    const std::shared_ptr<const detail::Plan<IR>> plan = node_->plan_for(ctx);
    std::vector<PlannedStep> steps;
    for (const detail::PlanStep<IR>& step : plan->steps) {
      if (step.kind == detail::PlanStep<IR>::Kind::close) continue;
      steps.push_back({.pass = detail::step_text(*step.node),
                       .depth = step.depth,
                       .pipeline = step.kind == detail::PlanStep<IR>::Kind::open,
                       .reason = step.reason,
                       .required_by = std::string(step.required_by),
                       .invalidated_by = std::string(step.invalidated_by)});
    }
    return steps;
  }

 private:
  friend struct detail::NodeAccess;
  explicit Pass(std::shared_ptr<const detail::PassNode<IR>> node) : node_(std::move(node)) {}

  std::shared_ptr<const detail::PassNode<IR>> node_;
};

/// A module pass from `fn: IR(IR, PassContext&)` (TVM's CreateModulePass).
template <class IR, class Fn>
  requires std::is_invocable_r_v<IR, const Fn&, IR, PassContext&>
Pass<IR> module_pass(const PassInfo& info, Fn fn) {
  return detail::NodeAccess::pass(detail::callable_node<IR>(info, std::move(fn)));
}

/// A function pass from `fn: Function(Function, const IR&, PassContext&)`
/// (TVM's CreateFunctionPass): it runs on every function that does not skip
/// optimization, possibly in parallel. With `const IR&`, the module a call
/// sees holds the names and attributes of the functions but, where IRTraits
/// moves functions out (`take_function`), not their bodies; a `fn` that
/// takes the module as `std::shared_ptr<const IR>` sees it whole, as it was
/// before the pass, and may keep it.
template <class IR, class Fn>
  requires HasFunctions<IR> &&
           (std::is_invocable_r_v<FunctionOf<IR>, const Fn&, FunctionOf<IR>, const IR&, PassContext&> ||
            detail::KeepsModule<Fn, IR>)
Pass<IR> function_pass(const PassInfo& info, Fn fn) {
  return detail::NodeAccess::pass(detail::callable_node<IR>(info, std::move(fn)));
}

/// A module pass named after its type, as LLVM names passes: `struct Hoist`
/// becomes the pass "Hoist".
template <class IR, class Fn>
  requires std::is_class_v<Fn> && std::is_invocable_r_v<IR, const Fn&, IR, PassContext&>
Pass<IR> named_pass(Fn fn, int opt_level = 0) {
  const std::string name = detail::type_name<Fn>();
  return module_pass<IR>(PassInfo{.name = name, .opt_level = opt_level}, std::move(fn));
}

/// How a runtime pipeline describes itself. Its required passes (TVM's
/// `Sequential(required=...)`) run before it where they do not hold, as a
/// pass's do; the pipeline keeps its own copy of the names.
struct SequentialInfo {
  std::string_view name = "Sequential";
  int opt_level = 0;
  std::string_view summary = "runs its passes in order";
  std::span<const std::string_view> required = {};
};

}  // namespace passline

namespace passline::detail {

/// A runtime pipeline of `passes`, whose passes find their requirements in
/// `source` (null: where the pipeline around it finds them).
template <class IR>
Pass<IR> make_pipeline(std::vector<Pass<IR>> passes, const SequentialInfo& info, const PassSource<IR>* source,
                       PipelineKind kind = PipelineKind::sequence) {
  Pipeline<IR> pipeline{.passes = {}, .kind = kind, .source = source};
  for (const Pass<IR>& pass : passes) pipeline.passes.push_back(NodeAccess::node(pass));
  return NodeAccess::pass(std::make_shared<const PassNode<IR>>(
      std::make_unique<OwnedInfo>(
          PassInfo{.name = info.name, .opt_level = info.opt_level, .required = info.required, .summary = info.summary}),
      std::move(pipeline)));
}

}  // namespace passline::detail

export namespace passline {

/// A runtime pipeline of `passes`. Required passes missing from it are found
/// where the pipeline around it finds them; at the top, in the process-wide
/// registry (`Registry<IR>::global()`). See also `Registry::sequential`.
template <class IR>
Pass<IR> sequential(std::vector<Pass<IR>> passes, const SequentialInfo& info = {}) {
  return detail::make_pipeline<IR>(std::move(passes), info, nullptr);
}

}  // namespace passline

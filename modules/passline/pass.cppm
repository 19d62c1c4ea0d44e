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
import :plan;
import :options;
import :text_format;
import :value;

namespace hana = boost::hana;

namespace passline::detail {

template <class IR, class P>
struct StaticNode final : PassNode<IR> {
  explicit StaticNode(P p) : PassNode<IR>(P::info), pass(std::move(p)) {
    this->jumps = jumps_of<IR, StaticNode>;
    this->options = option_values(pass);
    if constexpr (!StaticPipeline<P>) this->function_pass = !ModulePass<P, IR>;
    if constexpr (StaticPipeline<P>) {
      // A static pipeline plans as its leaves (nested static pipelines run
      // flattened, under its name), with its slots' passes in their places.
      this->sequence = true;
      this->decided = requires { P::decided; };
      using Leaves = decltype(flatten_passes<P>());
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (this->children.push_back(leaf_node<type_at<Leaves, I>, I>()), ...);
      }(std::make_index_sequence<size_of<Leaves>>{});
    }
  }
  IR run(IR ir, PassContext& ctx) const override {
    if constexpr (StaticPipeline<P>) {
      return pass.run(std::move(ir), ctx);
    } else {
      return invoke_pass(pass, std::move(ir), ctx);
    }
  }

  template <class L, std::size_t I>
  std::shared_ptr<const PassNode<IR>> leaf_node() const {
    if constexpr (requires { typename L::slot_ir; }) {  // a Slot
      const L slot = pass.template element<I>();
      if (slot.pass) return slot.pass->shared_node();
      return std::make_shared<const StaticNode<IR, L>>(slot);  // running it says it was never filled
    } else {
      return std::make_shared<const StaticNode<IR, L>>(L{});
    }
  }

  P pass;
};

/// Checks a static pipeline that becomes a runtime pass. Its passes may require
/// passes it does not hold: the run resolves those, as for any runtime pass.
/// Every other problem is reported as it is for a static pipeline run alone.
template <class IR, class P>
constexpr bool check_open_pipeline() {
  if constexpr (StaticPipeline<P>) {
    using Carrier = pipeline_carrier_t<IR, decltype(flatten_passes<P>()), Openness::open>;
    if constexpr (!std::is_void_v<Carrier>) diagnose<Carrier>();
  }
  return true;
}

template <class IR, class Call>
struct CallableNode final : PassNode<IR> {
  CallableNode(const PassInfo& info, Call fn) : PassNode<IR>(std::make_unique<OwnedInfo>(info)), call(std::move(fn)) {
    this->jumps = jumps_of<IR, CallableNode>;
    this->function_pass = !std::is_invocable_r_v<IR, const Call&, IR, PassContext&>;
  }
  IR run(IR ir, PassContext& ctx) const override {
    if constexpr (std::is_invocable_r_v<IR, const Call&, IR, PassContext&>) {
      return call(std::move(ir), ctx);
    } else {
      return run_on_functions(this->info, call, std::move(ir), ctx);
    }
  }
  Call call;
};

/// A pass under another name or with option values stamped on it: how a
/// registry hands out what its factories made. Runs what it wraps.
template <class IR>
struct RenamedNode final : PassNode<IR> {
  RenamedNode(const PassInfo& info, std::shared_ptr<const PassNode<IR>> wrapped, std::string registered,
              std::vector<std::pair<std::string, Value>> values)
      : PassNode<IR>(std::make_unique<OwnedInfo>(info)), inner(std::move(wrapped)) {
    this->children = inner->children;
    this->sequence = inner->sequence;
    this->decided = inner->decided;
    this->function_pass = inner->function_pass;
    this->source = inner->source;
    this->registered_as = std::move(registered);
    this->options = std::move(values);
    this->jumps = jumps_of<IR, RenamedNode>;
  }
  IR run(IR ir, PassContext& ctx) const override { return inner->run(std::move(ir), ctx); }
  std::shared_ptr<const PassNode<IR>> inner;
};

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
  using Node = detail::PassNode<IR>;

  /// From a static pass type of either shape, or a static pipeline.
  template <PassFor<IR> P>
  Pass(P pass) : node_(std::make_shared<const detail::StaticNode<IR, P>>(std::move(pass))) {
    static_assert(detail::check_open_pipeline<IR, P>());
  }

  /// A module pass from a callable `IR(IR, PassContext&)` and the PassInfo that
  /// describes it. The PassInfo's strings are copied: they may be run-time data.
  Pass(const PassInfo& info, std::function<IR(IR, PassContext&)> run)
      : node_(std::make_shared<const detail::CallableNode<IR, std::function<IR(IR, PassContext&)>>>(info,
                                                                                                     std::move(run))) {}

  /// The pass behind a node (how registries and pipelines hand out passes).
  explicit Pass(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

  const PassInfo& info() const { return node_->info; }

  /// Whether this is a pipeline (runtime or static) with passes of its own.
  bool is_pipeline() const { return node_->sequence; }

  /// The passes of a pipeline, in order; empty for a single pass.
  std::vector<Pass> passes() const {
    std::vector<Pass> result;
    for (const auto& child : node_->children) result.emplace_back(child);
    return result;
  }

  /// The values of the pass's options, in declaration order.
  const std::vector<std::pair<std::string, Value>>& options() const { return node_->options; }

  /// The pass as canonical pipeline text: `A,B{x=1},seq(C,D)`.
  std::string text() const { return detail::node_text(*node_, true); }

  /// Runs the pass under `ctx` (the gating rule applies to the pass itself too).
  IR operator()(IR ir, PassContext& ctx) const { return detail::run_node(*node_, std::move(ir), ctx); }

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

  /// Runs the pass under `PassContext::current()`.
  IR operator()(IR ir) const { return (*this)(std::move(ir), PassContext::current()); }

  const Node& node() const { return *node_; }
  const std::shared_ptr<const Node>& shared_node() const { return node_; }

 private:
  std::shared_ptr<const Node> node_;
};

/// A module pass from `fn: IR(IR, PassContext&)` (TVM's CreateModulePass).
template <class IR, class Fn>
  requires std::is_invocable_r_v<IR, const Fn&, IR, PassContext&>
Pass<IR> module_pass(const PassInfo& info, Fn fn) {
  return Pass<IR>(std::make_shared<const detail::CallableNode<IR, Fn>>(info, std::move(fn)));
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
  return Pass<IR>(std::make_shared<const detail::CallableNode<IR, Fn>>(info, std::move(fn)));
}

/// A module pass named after its type, as LLVM names passes: `struct Hoist`
/// becomes the pass "Hoist".
template <class IR, class Fn>
  requires std::is_class_v<Fn> && std::is_invocable_r_v<IR, const Fn&, IR, PassContext&>
Pass<IR> named_pass(Fn fn, int opt_level = 0) {
  const std::string name = detail::type_name<Fn>();
  return module_pass<IR>(PassInfo{.name = name, .opt_level = opt_level}, std::move(fn));
}

/// How a runtime pipeline describes itself.
struct SequentialInfo {
  std::string_view name = "Sequential";
  int opt_level = 0;
  std::string_view summary = "runs its passes in order";
};

namespace detail {

template <class IR>
Pass<IR> make_sequential(std::vector<Pass<IR>> passes, const SequentialInfo& info, const PassSource<IR>* source,
                         bool transparent = false) {
  auto node = std::make_shared<PassNode<IR>>(
      std::make_unique<OwnedInfo>(PassInfo{.name = info.name, .opt_level = info.opt_level, .summary = info.summary}));
  node->transparent = transparent;
  node->sequence = true;
  node->source = source;
  for (Pass<IR>& pass : passes) node->children.push_back(pass.shared_node());
  return Pass<IR>(std::shared_ptr<const PassNode<IR>>(std::move(node)));
}

}  // namespace detail

/// A runtime pipeline of `passes`. Required passes missing from it are found in
/// the process-wide registry (`Registry<IR>::global()`); see also
/// `Registry::sequential`.
template <class IR>
Pass<IR> sequential(std::vector<Pass<IR>> passes, const SequentialInfo& info = {}) {
  return detail::make_sequential<IR>(std::move(passes), info, nullptr);
}

}  // namespace passline

// Internal: the runtime pass node, and the plan a node runs by. Not part of the API.
//
// A runtime pass (`Pass<IR>`) is a PassNode: its PassInfo, and either a leaf
// (a `Runner`, the one function its pass type compiles to) or a pipeline of
// nodes. A node is planned under a context (`:plan`) and its plan run by one
// loop (`:run`).
module;
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
export module passline:node;
import :pass_info;
import :context;
import :value;
import :requirements;

namespace passline::detail {

/// A PassInfo whose strings the node owns, for passes described at run time.
struct OwnedInfo {
  explicit OwnedInfo(const PassInfo& source)
      : name(source.name), summary(source.summary), required(source.required.begin(), source.required.end()),
        preserves(source.preserves.begin(), source.preserves.end()) {
    required_views.assign(required.begin(), required.end());
    preserves_views.assign(preserves.begin(), preserves.end());
    info = PassInfo{.name = name,
                    .opt_level = source.opt_level,
                    .required = required_views,
                    .summary = summary,
                    .optional = source.optional,
                    .preserves = preserves_views};
  }
  OwnedInfo(const OwnedInfo&) = delete;
  OwnedInfo& operator=(const OwnedInfo&) = delete;
  std::string name;
  std::string summary;
  std::vector<std::string> required;
  std::vector<std::string> preserves;
  std::vector<std::string_view> required_views;
  std::vector<std::string_view> preserves_views;
  PassInfo info;
};

template <class IR>
struct PassNode;
template <class IR>
struct Plan;

/// What a leaf pass runs: a function of the pass's type, called with the
/// pass object it keeps (none for a stateless static pass). One class for
/// every pass, so a pipeline of a thousand static passes instantiates a
/// function per pass and nothing more.
template <class IR>
class Runner {
 public:
  using Call = IR (*)(const Runner& runner, IR ir, PassContext& ctx);

  Runner(Call call, bool functions, std::shared_ptr<const void> pass = nullptr)
      : on_functions(functions), call_(call), pass_(std::move(pass)) {}

  IR run(IR ir, PassContext& ctx) const { return call_(*this, std::move(ir), ctx); }

  /// The pass object it keeps, as the type its call knows it by.
  template <class P>
  const P& pass() const {
    return *static_cast<const P*>(pass_.get());
  }

  /// A function pass: it drops the analysis results of the functions it ran on only.
  const bool on_functions;

 private:
  Call call_;
  std::shared_ptr<const void> pass_;
};

/// Where a plan finds required passes by name: a registry.
template <class IR>
class PassSource {
 public:
  /// The pass registered as `name` with its default options, or null.
  virtual std::shared_ptr<const PassNode<IR>> find_node(std::string_view name) const = 0;
  virtual std::vector<std::string_view> node_names() const = 0;

 protected:
  ~PassSource() = default;
};

/// The process-wide registry of IR (`Registry<IR>::global()`, defined with
/// the registry): where a pipeline built without a registry of its own finds
/// the passes its passes require.
template <class IR>
const PassSource<IR>& process_registry();

/// How a pipeline stands in a run.
enum class PipelineKind : unsigned char {
  /// A pipeline: gated as a pass, and reported to instruments around its passes.
  sequence,
  /// One whose passes were chosen at compile time (`Compiled`): the context gates none of them.
  compiled,
  /// The list of pipeline text: its passes stand where it stands, as if run
  /// one by one; no pass of its own, so nothing gates it.
  list,
};

template <class IR>
struct Pipeline {
  std::vector<std::shared_ptr<const PassNode<IR>>> passes;
  PipelineKind kind = PipelineKind::sequence;
  /// Where its passes find their requirements; null: where the pipeline around it finds them.
  const PassSource<IR>* source = nullptr;
};

/// What a plan depends on besides the pipeline: the context's gating settings,
/// and whether it has instruments.
struct PlanKey {
  int opt_level = 0;
  bool watched = false;
  std::vector<std::string> required;
  std::vector<std::string> disabled;

  static PlanKey of(const PassContext& ctx) {
    return {.opt_level = ctx.opt_level,
            .watched = !ctx.instruments.empty(),
            .required = ctx.required,
            .disabled = ctx.disabled};
  }
  bool matches(const PassContext& ctx) const {
    return opt_level == ctx.opt_level && watched == !ctx.instruments.empty() && required == ctx.required &&
           disabled == ctx.disabled;
  }
};

/// A runtime pass: its PassInfo, and either a leaf that runs or a pipeline of passes.
template <class IR>
struct PassNode {
  using Body = std::variant<std::shared_ptr<const Runner<IR>>, Pipeline<IR>>;
  using Options = std::vector<std::pair<std::string, Value>>;

  PassNode(const PassInfo& static_info, Body what) : info(static_info), body(std::move(what)) {}
  PassNode(std::unique_ptr<OwnedInfo> owned, Body what)
      : info(owned->info), storage(std::move(owned)), body(std::move(what)) {}
  PassNode(const PassNode&) = delete;
  PassNode& operator=(const PassNode&) = delete;

  /// The same pass described by `described`, printed as `printed` (a
  /// pipeline registered by name) or with `values` (a pass made with options).
  std::shared_ptr<const PassNode> renamed(const PassInfo& described, std::string printed, Options values) const {
    auto node = std::make_shared<PassNode>(std::make_unique<OwnedInfo>(described), body);
    node->printed_as = std::move(printed);
    node->options = std::move(values);
    return node;
  }

  const Runner<IR>* leaf() const {
    const auto* runner = std::get_if<0>(&body);
    return runner ? runner->get() : nullptr;
  }
  const Pipeline<IR>* pipeline() const { return std::get_if<1>(&body); }

  PassInfo info;
  std::unique_ptr<OwnedInfo> storage = nullptr;
  /// Option values, for printing the pass as pipeline text.
  Options options = {};
  /// When set, the pass prints as this name (a pipeline registered by name).
  std::string printed_as = {};
  Body body;

  /// The plan for the last context settings it ran under.
  std::shared_ptr<const Plan<IR>> plan_for(const PassContext& ctx) const;

 private:
  mutable std::mutex plan_mutex_;
  mutable std::shared_ptr<const Plan<IR>> plan_;
};

/// One step of a plan: run a pass, open a pipeline, or close one.
template <class IR>
struct PlanStep {
  enum class Kind : unsigned char { pass, open, close };
  const PassNode<IR>* node = nullptr;
  /// What a pass step runs.
  const Runner<IR>* runner = nullptr;
  Kind kind = Kind::pass;
  RunReason reason = RunReason::listed;
  std::size_t depth = 0;
  /// The step that opens the pipeline around this one; `npos` at the top.
  std::size_t parent = npos;
  /// For an open step, its close step; for a close step, its open step.
  std::size_t match = npos;
  std::string_view required_by = {};
  std::string_view invalidated_by = {};
};

template <class IR>
struct Plan {
  PlanKey key;
  std::vector<PlanStep<IR>> steps;
  /// Required passes found in a registry, which the plan keeps alive.
  std::vector<std::shared_ptr<const PassNode<IR>>> found;
};

}  // namespace passline::detail

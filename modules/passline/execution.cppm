// Internal: one run of a runtime pipeline. Not part of the API.
//
// A run owns what lives only while a pipeline runs: which required passes are
// satisfied (they ran in this run and the IR is identical since), the path of
// enclosing pipelines for instruments and error messages, and the chain of
// passes being resolved, to name a cycle. Static pipelines run inside a run
// report each of their passes to it, so requirements hold across the boundary.
//
// The common case, a plain context and passes without requirements, costs a
// comparison and a virtual call per pass: no copies of the IR, no bookkeeping.
module;
#include <optional>
#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <range/v3/algorithm/find.hpp>
export module passline:execution;
import :pass_info;
import :context;
import :instrument;
import :ir_traits;
import :ir_view;
import :value;
import :error;
import :suggest;

namespace passline::detail {

/// A PassInfo whose strings the node owns, for passes described at run time.
struct OwnedInfo {
  explicit OwnedInfo(const PassInfo& source)
      : name(source.name), summary(source.summary), required(source.required.begin(), source.required.end()) {
    views.assign(required.begin(), required.end());
    info = PassInfo{
        .name = name, .opt_level = source.opt_level, .required = views, .summary = summary, .optional = source.optional};
  }
  OwnedInfo(const OwnedInfo&) = delete;
  OwnedInfo& operator=(const OwnedInfo&) = delete;
  std::string name;
  std::string summary;
  std::vector<std::string> required;
  std::vector<std::string_view> views;
  PassInfo info;
};

template <class IR>
struct PassNode;
template <class IR>
class Execution;

/// A child of a pipeline.
template <class IR>
using Link = std::shared_ptr<const PassNode<IR>>;

/// What threaded dispatch carries from pass to pass.
template <class IR>
struct Chain {
  IR ir;
  Execution<IR>* run;
};

/// Runs the pass at `it`, then jumps to the next admitted one.
template <class IR>
using Step = void (*)(const Link<IR>* it, const Link<IR>* end, Chain<IR>* chain);

template <class IR, class Node>
void threaded_step(const Link<IR>* it, const Link<IR>* end, Chain<IR>* chain);

/// Where a run finds required passes by name: a registry.
template <class IR>
class PassSource {
 public:
  virtual ~PassSource() = default;
  /// The pass registered as `name` with its default options, or null.
  virtual std::shared_ptr<const PassNode<IR>> find_node(std::string_view name) const = 0;
  virtual std::vector<std::string_view> node_names() const = 0;
};

/// The source of last resort: the process-wide registry, once it exists.
template <class IR>
const PassSource<IR>*& global_source() {
  static const PassSource<IR>* source = nullptr;
  return source;
}

/// A runtime pass: a leaf that runs, or a pipeline of nodes.
template <class IR>
struct PassNode {
  explicit PassNode(const PassInfo& static_info) : info(static_info) {}
  explicit PassNode(std::unique_ptr<OwnedInfo> owned) : info(owned->info), storage(std::move(owned)) {}
  virtual ~PassNode() = default;
  /// Runs a leaf. Pipelines are walked by the run, never called.
  virtual IR run(IR ir, PassContext&) const { return ir; }

  PassInfo info;
  std::unique_ptr<OwnedInfo> storage = nullptr;
  /// Children of a pipeline, in order.
  std::vector<std::shared_ptr<const PassNode>> children = {};
  bool pipeline = false;
  /// Prints as `seq(...)` of its children: runtime and static pipelines.
  bool sequence = false;
  /// False for static pipelines, whose passes note themselves when they run.
  bool notes = true;
  /// Whether some pass here requires another, so runs must track satisfaction.
  bool tracks = false;
  /// Where this pipeline's passes find their requirements; null: the enclosing one's.
  const PassSource<IR>* source = nullptr;
  /// Option values, for printing the pass as pipeline text.
  std::vector<std::pair<std::string, Value>> options = {};
  /// When set, the pass prints as this name (a pipeline registered by name).
  std::string registered_as = {};
  /// The list of pipeline text: its passes stand at the top, as if run one by
  /// one, so it is no pass of its own to instruments or in error paths.
  bool transparent = false;
  /// How threaded dispatch runs this node: set by each node type to a step
  /// that calls its `run` directly.
  Step<IR> step = &threaded_step<IR, PassNode>;
};

template <class IR>
class Execution {
 public:
  Execution(PassContext& ctx, bool tracks)
      : ctx_(ctx), plain_(ctx.is_plain()), tracks_(tracks), fast_(plain_ && !tracks_),
        observed_(!plain_ && !tracks_ && !ctx.names_passes()), outer_(active()) {
    active() = this;
    for (const auto& instrument : ctx.instruments) {
      watchers_.push_back(instrument.get());
      keeps_input_ = keeps_input_ || instrument->wants_failed_input();
    }
  }
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  ~Execution() { active() = outer_; }

  /// The run in progress on this thread, if any.
  static Execution*& active() {
    thread_local Execution* current = nullptr;
    return current;
  }

  PassContext& context() const { return ctx_; }

  /// Gates `node`, resolves its requirements, and runs it with its instrument hooks.
  template <class Node = PassNode<IR>>
  inline IR run(const PassNode<IR>& node, IR ir) {
    if (plain_ ? ctx_.opt_level < node.info.opt_level : !ctx_.pass_enabled(node.info)) return ir;
    return run_admitted<Node>(node, std::move(ir), {});
  }

  /// Runs one pass of a static pipeline, which has already gated it and
  /// ordered its requirements; `call` runs it. A whole static pipeline that
  /// opened this run reports itself here too (`is_pipeline`): its passes note
  /// themselves when they run.
  template <class Call>
  inline IR run_static(const PassInfo& info, Call&& call, IR ir, bool is_pipeline = false) {
    const PassPlace place = next_place({}, is_pipeline);
    if (!plain_ && !admitted_by_instruments(info, ir, place)) return ir;
    return run_with_hooks(info, place, std::move(ir), !is_pipeline, [&](IR input) { return call(std::move(input)); });
  }

  /// The name a static pipeline's passes stand under: the name of the pass
  /// that runs it (`O2`, as registered), else its own. Taken once: a pipeline
  /// that one of its passes runs stands under its own name.
  std::string_view enclosing_name(std::string_view own) {
    const std::string_view name = running_.empty() ? own : running_;
    running_ = {};
    return name;
  }

  /// Static pipelines report their name here so their passes stand under it.
  struct Enclosing {
    Enclosing(Execution& run, std::string_view name) : run_(run) { run_.path_.push_back(name); }
    Enclosing(const Enclosing&) = delete;
    Enclosing& operator=(const Enclosing&) = delete;
    ~Enclosing() { run_.path_.pop_back(); }
    Execution& run_;
  };

 private:
  /// A step under instruments alone: no pass named by the context, no
  /// requirement to track. The hooks are called from each pass's own step,
  /// where every call site has one usual target.
  template <class Node>
  [[gnu::noinline]] void step_observed(const PassNode<IR>& node, Chain<IR>& chain) {
    if (ctx_.opt_level < node.info.opt_level) return;
    const PassPlace place = next_place({}, node.sequence, node.options);
    if (!ask_instruments(node.info, chain.ir, place)) return;
    notify_before(node.info, chain.ir, place);
    try {
      chain.ir = guarded(node.info, [&] { return call<Node>(node, keeps_input_ ? IR(chain.ir) : std::move(chain.ir)); });
    } catch (...) {
      after_failed(node.info, keeps_input_ ? IRView(chain.ir) : IRView(), place);
      throw;
    }
    notify_after(node.info, chain.ir, place);
  }

  template <class Node>
  [[gnu::noinline]] void step_watched(const PassNode<IR>& node, Chain<IR>& chain) {
    chain.ir = run<Node>(node, std::move(chain.ir));
  }

  /// Runs a leaf: directly when its type is known, else by its virtual `run`.
  template <class Node>
  inline IR call(const PassNode<IR>& node, IR ir) {
    struct Running {  // the leaf that runs, for a static pipeline inside it to stand under
      Running(std::string_view& at, std::string_view name) : slot(at), outer(at) { slot = name; }
      ~Running() { slot = outer; }
      std::string_view& slot;
      std::string_view outer;
    } running(running_, node.info.name);
    if constexpr (std::is_same_v<Node, PassNode<IR>>) {
      return node.run(std::move(ir), ctx_);
    } else {
      return static_cast<const Node&>(node).Node::run(std::move(ir), ctx_);
    }
  }

  template <class Node = PassNode<IR>>
  inline IR run_admitted(const PassNode<IR>& node, IR ir, std::string_view required_by) {
    if (node.transparent) return run_children(node, std::move(ir));
    const PassPlace place = next_place(required_by, node.pipeline || node.sequence, node.options);
    if (!plain_ && !admitted_by_instruments(node.info, ir, place)) return ir;
    if (!node.info.required.empty()) ir = satisfy_requirements(node, std::move(ir));
    if (node.pipeline) {
      return run_with_hooks(node.info, place, std::move(ir), false,
                            [&](IR input) { return run_children(node, std::move(input)); });
    }
    return run_with_hooks(node.info, place, std::move(ir), node.notes,
                          [&](IR input) { return call<Node>(node, std::move(input)); });
  }

  inline IR run_children(const PassNode<IR>& node, IR ir) {
    std::optional<Enclosing> enclosing;
    if (!node.transparent) enclosing.emplace(*this, node.info.name);
    const PassSource<IR>* outer_source = source_;
    if (node.source) source_ = node.source;
    // Threaded dispatch: each pass's step jumps to the next pass from its own
    // code, so every indirect jump has one usual target and is predicted,
    // where a loop's single call site would mispredict.
    const Link<IR>* begin = node.children.data();
    const Link<IR>* end = begin + node.children.size();
    begin = next_admitted(begin, end);
    if (begin != end) {
      Chain<IR> chain{std::move(ir), this};
      (*begin)->step(begin, end, &chain);
      ir = std::move(chain.ir);
    }
    source_ = outer_source;
    return ir;
  }

  template <class I, class N>
  friend void threaded_step(const Link<I>*, const Link<I>*, Chain<I>*);

  /// The next pass to step to: on the fast path, the next the opt level
  /// admits; otherwise the next, which its step gates.
  inline const Link<IR>* next_admitted(const Link<IR>* it, const Link<IR>* end) const {
    if (!fast_) return it;
    while (it != end && ctx_.opt_level < (*it)->info.opt_level) ++it;
    return it;
  }

  /// One step of threaded dispatch: a pipeline runs as usual, a pass of type
  /// Node is called without a virtual call.
  template <class Node>
  [[gnu::always_inline]] inline void step(const PassNode<IR>& node, Chain<IR>& chain) {
    if (!fast_) [[unlikely]] {
      if (observed_ && !node.pipeline) return step_observed<Node>(node, chain);
      step_watched<Node>(node, chain);
    } else if (node.pipeline) [[unlikely]] {
      chain.ir = run_admitted(node, std::move(chain.ir), {});
    } else {
      ++sequence_;
      chain.ir = guarded(node.info, [&] { return call<Node>(node, std::move(chain.ir)); });
    }
  }

  inline PassPlace next_place(std::string_view required_by, bool pipeline, PassPlace::Options options = {}) {
    return PassPlace{.depth = path_.size(),
                     .parent = path_.empty() ? std::string_view() : path_.back(),
                     .sequence = ++sequence_,
                     .required_by = required_by,
                     .pipeline = pipeline,
                     .options = options};
  }

  /// Every instrument is asked, and all must agree; passes the context requires are not asked about.
  inline bool admitted_by_instruments(const PassInfo& info, const IR& ir, const PassPlace& place) {
    return watchers_.empty() || ctx_.is_required(info.name) || ask_instruments(info, ir, place);
  }

  inline bool ask_instruments(const PassInfo& info, const IR& ir, const PassPlace& place) {
    bool admitted = true;
    try {
      for (Instrument* instrument : watchers_) admitted = instrument->should_run(info, IRView(ir), place) && admitted;
    } catch (...) {
      hook_failed();
    }
    return admitted;
  }

  /// Before hooks, in order. If one throws, the instruments whose before hook
  /// ran hear `after_failed_pass`, so that what they pair (a timer, a trace
  /// span) is closed, and the exception goes on as itself.
  inline void notify_before(const PassInfo& info, const IR& ir, const PassPlace& place) {
    std::size_t told = 0;
    try {
      for (; told < watchers_.size(); ++told) watchers_[told]->before_pass(info, IRView(ir), place);
    } catch (...) {
      close_quietly(0, told, info, place);
      hook_failed();
    }
  }

  /// After hooks, in order. If one throws, the instruments after it, which
  /// had their before hook, hear `after_failed_pass` instead.
  inline void notify_after(const PassInfo& info, const IR& ir, const PassPlace& place) {
    std::size_t told = 0;
    try {
      for (; told < watchers_.size(); ++told) watchers_[told]->after_pass(info, IRView(ir), place);
    } catch (...) {
      close_quietly(told + 1, watchers_.size(), info, place);
      hook_failed();
    }
  }

  /// `after_failed_pass` for instruments [from, to) while a hook's exception
  /// is in flight; what they throw in turn is dropped for the first one.
  [[gnu::noinline]] void close_quietly(std::size_t from, std::size_t to, const PassInfo& info, const PassPlace& place) {
    for (std::size_t k = from; k < to; ++k) {
      try {
        watchers_[k]->after_failed_pass(info, IRView(), place, std::current_exception());
      } catch (...) {  // NOLINT(bugprone-empty-catch): the first exception is the one reported
      }
    }
  }

  /// An instrument's exception is the instrument's, not a failure of the
  /// pipeline around it (TVM's rule): noted, so that `guarded` lets it pass.
  [[noreturn]] [[gnu::noinline]] void hook_failed() {
    passing_ = std::current_exception();
    throw;
  }

  /// Runs `body` between the before and after hooks, notes the result for
  /// required passes (`notes`: a pass, not a pipeline whose passes note
  /// themselves), and turns a failure into a PassError naming the path.
  template <class Body>
  inline IR run_with_hooks(const PassInfo& info, const PassPlace& place, IR ir, bool notes, Body&& body) {
    const bool watched = !watchers_.empty();
    const bool compares = tracks_ && notes && HasIdentity<IR>;
    if (!watched && !compares) {
      IR output = guarded(info, [&] { return body(std::move(ir)); });
      if (tracks_ && notes) note_ran(info.name, true);
      return output;
    }
    notify_before(info, ir, place);
    // The run keeps the input only when it must: to compare with the output,
    // or to show an instrument after a failure. Otherwise the pass owns it,
    // and may transform it in place.
    const bool holds = compares || keeps_input_;
    IR output = [&] {
      try {
        return guarded(info, [&] { return body(holds ? IR(ir) : std::move(ir)); });
      } catch (...) {
        after_failed(info, holds ? IRView(ir) : IRView(), place);
        throw;
      }
    }();
    if (tracks_ && notes) note_ran(info.name, compares ? changed(ir, output) : true);
    notify_after(info, output, place);
    return output;
  }

  /// Tells every instrument that the pass failed on `input`; call it from a handler.
  [[gnu::noinline]] void after_failed(const PassInfo& info, IRView input, const PassPlace& place) {
    for (Instrument* instrument : watchers_) {
      instrument->after_failed_pass(info, input, place, std::current_exception());
    }
  }

  static bool changed(const IR& before, const IR& after) {
    if constexpr (HasIdentity<IR>) {
      return !passline::identical(before, after);
    } else {
      return true;
    }
  }

  /// Runs a pass (or a pipeline's passes), turning what it throws into a
  /// PassError that names it and its path, with the cause nested. Passed on
  /// as they are: a PassError from further in (it names its pass already),
  /// an instrument's exception, and a RequirementError (a pipeline that
  /// cannot run: a requirement missing, disabled or in a cycle).
  template <class Body>
  inline IR guarded(const PassInfo& info, Body&& body) {
    try {
      return body();
    } catch (const PassError&) {
      throw;
    } catch (const RequirementError&) {
      throw;
    } catch (...) {
      if (passing_ && std::current_exception() == passing_) throw;
      wrap_failure(info);
    }
  }

  [[noreturn]] [[gnu::noinline]] void wrap_failure(const PassInfo& info) {
    try {
      throw;
    } catch (const std::exception& error) {
      std::throw_with_nested(failure(info, error.what()));
    } catch (...) {
      std::throw_with_nested(failure(info, "unknown exception"));
    }
  }

  PassError failure(const PassInfo& info, std::string_view what) const {
    std::vector<std::string_view> names = path_;
    names.push_back(info.name);
    std::string path = join_names(names, "/");
    const std::string where = names.size() > 1 ? fmt::format(fmt::runtime(" (in {})"), path) : std::string();
    return PassError(fmt::format(fmt::runtime("pass '{}' failed{}: {}"), info.name, where, what), std::string(info.name), path);
  }

  // -- Required passes --------------------------------------------------------

  void note_ran(std::string_view name, bool changed_ir) {
    if (changed_ir) ++generation_;
    for (auto& [pass, generation] : ran_) {
      if (pass == name) {
        generation = generation_;
        return;
      }
    }
    ran_.emplace_back(std::string(name), generation_);
  }

  bool satisfied(std::string_view name) const {
    for (const auto& [pass, generation] : ran_) {
      if (pass == name) return generation == generation_;
    }
    return false;
  }

  IR satisfy_requirements(const PassNode<IR>& user, IR ir) {
    resolving_.push_back(user.info.name);
    for (std::string_view name : user.info.required) ir = satisfy(user.info.name, name, std::move(ir));
    resolving_.pop_back();
    return ir;
  }

  IR satisfy(std::string_view user, std::string_view name, IR ir) {
    if (satisfied(name)) return ir;
    if (ctx_.is_disabled(name)) {
      throw RequirementError(fmt::format(fmt::runtime("pass '{}' requires '{}', which the pass context disables"), user, name));
    }
    if (auto first = ranges::find(resolving_, name); first != resolving_.end()) {
      std::vector<std::string_view> cycle(first, resolving_.end());
      cycle.push_back(name);
      throw RequirementError(fmt::format(fmt::runtime("required passes form a cycle: {}"), join_names(cycle, " -> ")));
    }
    const PassSource<IR>* source = source_ ? source_ : global_source<IR>();
    std::shared_ptr<const PassNode<IR>> node = source ? source->find_node(name) : nullptr;
    if (!node) {
      std::vector<std::string_view> chain = resolving_;
      chain.push_back(name);
      throw RequirementError(fmt::format(fmt::runtime("pass '{}' requires '{}', which is not registered{} (chain: {})"), user, name,
                                      source ? did_you_mean(name, source->node_names()) : std::string(),
                                      join_names(chain, " -> ")));
    }
    pulled_.push_back(node);
    return run_admitted(*node, std::move(ir), user);
  }

  PassContext& ctx_;
  bool plain_;
  bool tracks_;
  /// Nothing to watch and nothing required: the gate is the opt level alone.
  bool fast_;
  bool observed_;
  std::vector<Instrument*> watchers_;
  bool keeps_input_ = false;  // some instrument wants a failed pass's input
  Execution* outer_;
  const PassSource<IR>* source_ = nullptr;
  std::size_t sequence_ = 0;
  std::vector<std::string_view> path_;
  std::string_view running_ = {};  // the runtime leaf being called
  std::vector<std::string_view> resolving_;
  std::size_t generation_ = 0;
  std::vector<std::pair<std::string, std::size_t>> ran_;
  std::vector<std::shared_ptr<const PassNode<IR>>> pulled_;
  std::exception_ptr passing_;  // an instrument hook's exception in flight: passed on as it is
};

template <class IR, class Node>
void threaded_step(const Link<IR>* it, const Link<IR>* end, Chain<IR>* chain) {
  chain->run->template step<Node>(**it, *chain);
  it = chain->run->next_admitted(it + 1, end);
  if (it != end) [[clang::musttail]] return (*it)->step(it, end, chain);
}

}  // namespace passline::detail

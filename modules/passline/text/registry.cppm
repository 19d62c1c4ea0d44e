// Registry<IR>: passes by name, for pipeline text, drivers and required passes.
//
// Static pass types register by their PassInfo and their declared options;
// passes built at run time register a PassInfo, option declarations and a
// factory; pipelines (static or runtime) register under a name and are then
// used like passes (`O2` in pipeline text). A registry is also where a running
// pipeline finds the passes its passes require. A registry may be used from
// several threads at once, registrations included. A registry of an IR that
// IRTraits can print starts with `PrintIR` in it.
module;
#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <range/v3/algorithm/find_if.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/map.hpp>
#include <range/v3/view/transform.hpp>
export module passline:registry;
import :pass_info;
import :context;
import :concepts;
import :analysis;
import :node;
import :plan;
import :checks;
import :options;
import :value;
import :pass;
import :error;
import :ir_traits;
import passline.support;

namespace passline::detail {

// The messages of registry and pipeline-text errors, formatted outside the
// templates: fmt checks a literal format string at compile time only where
// its checker is reachable, which a template instantiated in an importer is not.
inline std::string unknown_pass(std::string_view pass, std::string_view suggestion) {
  return fmt::format("unknown pass '{}'{}", pass, suggestion);
}
inline std::string no_such_option(std::string_view pass, std::string_view option, std::string_view suggestion) {
  return fmt::format("pass '{}' has no option '{}'{}", pass, option, suggestion);
}
/// `given` is a value type ("an integer") or a quoted word from pipeline text.
inline std::string option_takes(std::string_view option, std::string_view pass, std::size_t takes,
                                std::string_view given) {
  return fmt::format("option '{}' of pass '{}' takes {}, not {}", option, pass, a_value_type(takes), given);
}
inline std::string registered_twice(std::string_view pass) { return fmt::format("pass '{}' is registered twice", pass); }

struct RegistryAccess;

/// What pipeline text needs of a registry, whatever its IR.
class PassCatalog {
 public:
  virtual bool contains(std::string_view name) const = 0;
  virtual std::vector<std::string_view> names() const = 0;
  virtual const std::vector<OptionSpec>& options_of(std::string_view name) const = 0;

 protected:
  ~PassCatalog() = default;
};

}  // namespace passline::detail

export namespace passline {

/// Option values by name, as a factory receives them: every declared option,
/// defaults filled in, in declaration order.
using OptionValues = std::vector<std::pair<std::string, Value>>;

/// What `--list-passes` shows about a registered name.
struct PassListing {
  std::string name;
  int opt_level = 0;
  std::vector<std::string> required = {};
  std::string summary = {};
  std::vector<OptionSpec> options = {};
  /// A pipeline registered under a name, rather than a single pass.
  bool pipeline = false;
};

/// PrintIR as a pass, as TVM has it: prints the IR where the pass stands in
/// a pipeline, to stderr under a header, and hands it on unchanged. For any
/// IR that IRTraits can print; every registry of such an IR has it as
/// `PrintIR`, so that pipeline text can say
/// `InferType,PrintIR{header=typed},FoldConstant`.
struct PrintIRPass {
  static constexpr PassInfo info{.name = "PrintIR",
                                 .opt_level = 0,
                                 .summary = "prints the IR to stderr and changes nothing",
                                 .optional = false,
                                 .preserves = preserves_all};
  std::string header = {};
  static constexpr auto options =
      passline::options(option<&PrintIRPass::header>("header", "a title for the dump: // *** PrintIR: <header> ***"));

  template <Printable IR>
  IR operator()(IR ir, PassContext&) const {
    const std::string title = header.empty() ? std::string("PrintIR") : "PrintIR: " + support::printable(header, 200);
    const std::string text = IRTraits<IR>::print(ir);
    fmt::print(stderr, "// *** {} ***\n", title);
    std::fwrite(text.data(), 1, text.size(), stderr);  // a large IR is not copied again
    if (!text.empty() && text.back() != '\n') std::fputc('\n', stderr);
    return ir;
  }
};

template <class IR>
class Registry final : private detail::PassSource<IR>, private detail::PassCatalog {
 public:
  using Factory = std::function<Pass<IR>(const OptionValues&)>;

  /// An empty registry, but for `PrintIR` when IRTraits can print the IR.
  Registry() {
    if constexpr (Printable<IR>) add<PrintIRPass>();
  }
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// The process-wide registry for IR, where required passes are found when a
  /// pipeline was not built from a registry of its own.
  static Registry& global() {
    static Registry registry;
    return registry;
  }

  /// Registers the static pass type P under its PassInfo's name, with its options.
  template <PassFor<IR> P>
    requires(!detail::StaticPipeline<P>)
  Registry& add() {
    add_entry(P::info, detail::option_specs<P>(), false, [](const OptionValues& values) {
      P pass{};
      for (const auto& [name, value] : values) detail::set_option(pass, name, value);
      return Pass<IR>(std::move(pass));
    });
    return *this;
  }

  /// A type that is not a pass over this registry's IR (a pass of another
  /// IR, say): one error that says why, as a pipeline would give.
  template <class P>
    requires(!PassFor<P, IR> && !detail::StaticPipeline<P>)
  Registry& add() {
    using Carrier = typename decltype(detail::shape_carrier<IR, P>())::type;
    detail::diagnose<Carrier>();
    return *this;
  }

  /// Registers a static pipeline, or any pass, under `name`.
  template <PassFor<IR> P>
  Registry& add(std::string_view name) {
    return add(name, Pass<IR>(P{}));
  }

  /// Registers a pass built at run time: its PassInfo, the options its factory
  /// reads, and the factory.
  Registry& add(const PassInfo& info, std::vector<OptionSpec> options, Factory factory) {
    add_entry(info, std::move(options), false, std::move(factory));
    return *this;
  }

  /// Registers a pipeline (or a pass) under `name`; it prints as `name`.
  Registry& add(std::string_view name, Pass<IR> pipeline) {
    const PassInfo info{.name = name,
                        .opt_level = pipeline.info().opt_level,
                        .required = pipeline.info().required,
                        .summary = pipeline.info().summary};
    add_entry(info, {}, true, [pipeline](const OptionValues&) { return pipeline; });
    return *this;
  }

  /// Whether a pass is registered as `name`.
  bool contains(std::string_view name) const override {
    std::shared_lock lock(mutex_);
    return entries_.contains(name);
  }

  /// The pass registered as `name` with `options` set (the others keep their
  /// defaults). Unknown names and options, and values of the wrong type, are
  /// errors that suggest what was meant.
  Pass<IR> create(std::string_view name, const OptionValues& options = {}) const {
    const Entry& entry = at(name);
    OptionValues values;
    for (const OptionSpec& spec : entry.options) values.emplace_back(spec.name, spec.default_value);
    for (const auto& [option, value] : options) {
      auto slot = ranges::find_if(values, [&](const auto& v) { return v.first == option; });
      if (slot == values.end()) {
        throw RegistryError(
            detail::no_such_option(name, option, support::did_you_mean(option, detail::option_names(entry.options))));
      }
      if (slot->second.index() != value.index()) {
        throw RegistryError(detail::option_takes(option, name, slot->second.index(), a_value_type(value.index())));
      }
      slot->second = value;
    }
    return stamp(entry, entry.factory(values), std::move(values));
  }

  /// The options of the pass registered as `name`.
  const std::vector<OptionSpec>& options_of(std::string_view name) const override { return at(name).options; }

  /// Every registered name with what it is, sorted by name.
  std::vector<PassListing> list() const {
    std::shared_lock lock(mutex_);
    return entries_ | ranges::views::values | ranges::views::transform([](const std::unique_ptr<Entry>& entry) {
             return PassListing{
                 .name = entry->info.name,
                 .opt_level = entry->info.info.opt_level,
                 .required = entry->info.required,
                 .summary = entry->info.summary,
                 .options = entry->options,
                 .pipeline = entry->pipeline,
             };
           })
           | ranges::to<std::vector>();
  }

  /// The registered names, sorted.
  std::vector<std::string_view> names() const override {
    std::shared_lock lock(mutex_);
    return entries_ | ranges::views::keys
           | ranges::views::transform([](const std::string& name) { return std::string_view(name); })
           | ranges::to<std::vector>();
  }

  /// A runtime pipeline whose passes find their requirements in this registry.
  Pass<IR> sequential(std::vector<Pass<IR>> passes, const SequentialInfo& info = {}) const {
    return detail::make_pipeline(std::move(passes), info, this);
  }


 private:
  friend struct detail::RegistryAccess;

  std::shared_ptr<const detail::PassNode<IR>> find_node(std::string_view name) const override {
    if (!contains(name)) return nullptr;
    return detail::NodeAccess::node(create(name));
  }
  std::vector<std::string_view> node_names() const override { return names(); }

  struct Entry {
    Entry(const PassInfo& pass_info, std::vector<OptionSpec> specs, bool is_pipeline, Factory make)
        : info(pass_info), options(std::move(specs)), pipeline(is_pipeline), factory(std::move(make)) {}
    detail::OwnedInfo info;
    std::vector<OptionSpec> options;
    bool pipeline;
    Factory factory;
  };

  void add_entry(const PassInfo& info, std::vector<OptionSpec> options, bool pipeline, Factory factory) {
    if (info.name == "seq") throw RegistryError("'seq' is reserved for nested pipelines in pipeline text");
    std::unique_lock lock(mutex_);
    if (entries_.contains(info.name)) throw RegistryError(detail::registered_twice(info.name));
    auto entry = std::make_unique<Entry>(info, std::move(options), pipeline, std::move(factory));
    std::string name = entry->info.name;
    entries_.emplace(std::move(name), std::move(entry));
  }

  /// Entries are never removed nor moved (each has its own allocation), so
  /// the one found stays valid once the lock is released.
  const Entry& at(std::string_view name) const {
    {
      std::shared_lock lock(mutex_);
      if (auto it = entries_.find(name); it != entries_.end()) return *it->second;
    }
    throw RegistryError(detail::unknown_pass(name, support::did_you_mean(name, names())));
  }

  /// The made pass, marked with how it prints: a registered pipeline by its
  /// name, a pass with the option values it was made with.
  static Pass<IR> stamp(const Entry& entry, Pass<IR> made, OptionValues values) {
    if (!entry.pipeline && made.options() == values) return made;
    return detail::NodeAccess::pass(detail::NodeAccess::node(made)->renamed(
        entry.info.info, entry.pipeline ? std::string(entry.info.name) : std::string(),
        entry.pipeline ? OptionValues{} : std::move(values)));
  }

  mutable std::shared_mutex mutex_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
};

}  // namespace passline

namespace passline::detail {

/// How the library reaches a registry as the source of required passes and
/// the catalog of pipeline text, which users do not see.
struct RegistryAccess {
  template <class IR>
  static const PassSource<IR>& source(const Registry<IR>& registry) {
    return registry;
  }
  template <class IR>
  static const PassCatalog& catalog(const Registry<IR>& registry) {
    return registry;
  }
};

template <class IR>
const PassSource<IR>& process_registry() {
  return RegistryAccess::source(Registry<IR>::global());
}

}  // namespace passline::detail

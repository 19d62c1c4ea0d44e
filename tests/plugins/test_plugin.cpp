// Test plugins, one per PASSLINE_PLUGIN_CASE: each error of
// passline::load_plugin, and a plugin with an instrument (plugin_test.cpp,
// cli.sh).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
import passline;
import passline.ir;

namespace {

using passline::ir::Module;

struct Renamed {
  static constexpr passline::PassInfo info{.name = "FoldConstant", .opt_level = 0, .summary = "a built-in's name"};
  Module operator()(Module module, passline::PassContext&) const { return module; }
};

struct Twin {
  static constexpr passline::PassInfo info{.name = "ExportAll", .opt_level = 0, .summary = "the example's name"};
  Module operator()(Module module, passline::PassContext&) const { return module; }
};

struct Lonely {
  static constexpr passline::PassInfo info{.name = "NeedsNobody",
                                           .opt_level = 0,
                                           .required = passline::needs<"NoSuchPass">,
                                           .summary = "requires a pass nobody registers"};
  Module operator()(Module module, passline::PassContext&) const { return module; }
};

struct Registered {
  static constexpr passline::PassInfo info{.name = "RegisteredFirst", .opt_level = 0, .summary = "then it throws"};
  Module operator()(Module module, passline::PassContext&) const { return module; }
};

/// Says on stderr after each pass that it saw it.
struct Seen final : passline::Instrument {
  void after_pass(const passline::PassInfo& pass, passline::IRView, const passline::PassPlace&) override {
    std::fprintf(stderr, "plugin instrument: after %.*s\n", static_cast<int>(pass.name.size()), pass.name.data());
  }
};

/// An IR that no program loads passes of.
struct OtherIR {};

}  // namespace

#define CASE(name) (PASSLINE_PLUGIN_CASE == PASSLINE_PLUGIN_##name)
#define PASSLINE_PLUGIN_no_entry 1
#define PASSLINE_PLUGIN_other_api 2
#define PASSLINE_PLUGIN_other_ir 3
#define PASSLINE_PLUGIN_other_build 4
#define PASSLINE_PLUGIN_throws 5
#define PASSLINE_PLUGIN_builtin_name 6
#define PASSLINE_PLUGIN_twin 7
#define PASSLINE_PLUGIN_missing_requirement 8
#define PASSLINE_PLUGIN_undefined_symbol 9
#define PASSLINE_PLUGIN_instrument 10

#if CASE(undefined_symbol)
void passline_test_function_nobody_defines();
#endif

namespace {

void register_passes([[maybe_unused]] passline::PluginRegistrar<Module>& plugin) {
#if CASE(throws)
  plugin.passes().add<Registered>();
  throw std::runtime_error("the plugin's registration gave up");
#elif CASE(builtin_name)
  plugin.passes().add<Renamed>();
#elif CASE(twin)
  plugin.passes().add<Twin>();
#elif CASE(missing_requirement)
  plugin.passes().add<Lonely>();
#elif CASE(undefined_symbol)
  passline_test_function_nobody_defines();
#elif CASE(instrument)
  plugin.add_instrument(std::make_shared<Seen>());
#endif
}

void register_other([[maybe_unused]] passline::PluginRegistrar<OtherIR>& plugin) {}

}  // namespace

#if !CASE(no_entry)
extern "C" const passline::PluginEntry* passline_plugin() {
#if CASE(other_ir)
  return passline::plugin_entry<OtherIR, register_other>("other-ir");
#else
  static passline::PluginEntry entry = *passline::plugin_entry<Module, register_passes>("bad");
#if CASE(other_api)
  ++entry.api_version;
#elif CASE(other_build)
  entry.build = "clang 1.0; libstdc++ 19970101 cxx11-abi 0; passline 0.0.1";
#endif
  return &entry;
#endif
}
#else
extern "C" int passline_plugin_is_not_here() { return 0; }
#endif

// passline::load_plugin: the example plugin's passes beside the program's,
// each error of a plugin that must not load, names registered twice,
// registries that do not see each other's plugins, and a plugin kept loaded
// while a pass it made lives. The plugins are built by this directory's
// CMakeLists.txt (test_plugin.cpp, one library per case) and by examples/.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>
import passline;
import passline.ir;
import passline.ir.passes;

namespace {

using passline::ir::Module;
using Registry = passline::Registry<Module>;

std::string plugin_path(const std::string& name) { return std::string(PASSLINE_TEST_PLUGIN_DIR) + "/" + name + ".so"; }
const std::string example = PASSLINE_EXAMPLE_PLUGIN;

/// A registry with the reference IR's passes, as a program's own.
std::unique_ptr<Registry> program_registry() {
  auto registry = std::make_unique<Registry>();
  passline::ir::register_passes(*registry);
  return registry;
}

Module parse(const char* text) { return passline::ir::parse(text, "test.ir"); }

constexpr const char* two_functions = R"(def @f(%x: i64) -> i64 { add(%x, mul(2, 3)) }
def @g(%y: i64) -> i64 { @f(%y) }
)";

/// The message of the PluginError that loading `path` into `registry` throws.
std::string load_error(const std::string& path, Registry& registry) {
  try {
    passline::load_plugin(path, registry);
  } catch (const passline::PluginError& error) {
    return error.what();
  }
  return "(loaded)";
}

TEST(Plugin, ExamplePassesRunBesideTheProgramsOwn) {
  auto registry = program_registry();
  const auto plugin = passline::load_plugin(example, *registry);
  EXPECT_EQ(plugin.name, "example");
  EXPECT_EQ(plugin.passes, (std::vector<std::string>{"CountFunctions", "ExportAll", "plugin-cleanup"}));
  const passline::Pass<Module> pipeline = passline::parse_pipeline("FoldConstant,ExportAll,CountFunctions", *registry);
  passline::PassContext ctx;
  // FoldConstant and CountFunctions require InferType, a pass of the program's:
  // the plan inserts it once, as ExportAll preserves it.
  EXPECT_EQ(passline::plan_text(pipeline.plan(ctx)),
            "InferType  (required by FoldConstant)\nFoldConstant\nExportAll\nCountFunctions{at-most=0}\n");
  const Module out = pipeline(parse(two_functions), ctx);
  for (const passline::ir::Function& function : out.functions) EXPECT_TRUE(function.exported) << function.name;
  ASSERT_EQ(ctx.statistics->counters().size(), 2u);  // FoldConstant's, and CountFunctions'
  EXPECT_EQ(ctx.statistics->counters()[0].pass, "CountFunctions");
  EXPECT_EQ(ctx.statistics->counters()[0].value, 2);
  // Its static pipeline of the program's passes and its own, registered as one pass.
  const Module cleaned = registry->create("plugin-cleanup")(parse(two_functions), ctx);
  EXPECT_EQ(passline::ir::print(cleaned), "#[export]\ndef @f(%x: i64) -> i64 {\n  add(%x, 6)\n}\n\n"
                                           "#[export]\ndef @g(%y: i64) -> i64 {\n  @f(%y)\n}\n");
}

TEST(Plugin, ListedWithThePluginThatRegisteredIt) {
  auto registry = program_registry();
  passline::load_plugin(example, *registry);
  for (const auto& listing : registry->list()) {
    const bool ours = listing.name == "ExportAll" || listing.name == "CountFunctions" || listing.name == "plugin-cleanup";
    EXPECT_EQ(listing.plugin, ours ? example : "") << listing.name;
  }
}

TEST(Plugin, RegistriesDoNotSeeEachOthersPlugins) {
  auto first = program_registry();
  auto second = program_registry();
  passline::load_plugin(example, *first);
  EXPECT_TRUE(first->contains("ExportAll"));
  EXPECT_FALSE(second->contains("ExportAll"));
  EXPECT_FALSE(Registry::global().contains("ExportAll"));
  // Loaded into the second too, it is the second's own: no name is taken twice.
  passline::load_plugin(example, *second);
  EXPECT_TRUE(second->contains("ExportAll"));
}

TEST(Plugin, TwoPluginsWithOneNameIsAnErrorNamingBoth) {
  auto registry = program_registry();
  passline::load_plugin(example, *registry);
  EXPECT_EQ(load_error(plugin_path("test_plugin_twin"), *registry),
            "cannot load plugin '" + plugin_path("test_plugin_twin") +
                "': it registers pass 'ExportAll', which plugin '" + example + "' registered");
  // The first plugin's pass is still the one registered.
  EXPECT_EQ(registry->list().size(), program_registry()->list().size() + 3);
}

TEST(Plugin, ANameOfTheProgramsIsAnError) {
  auto registry = program_registry();
  EXPECT_EQ(load_error(plugin_path("test_plugin_builtin_name"), *registry),
            "cannot load plugin '" + plugin_path("test_plugin_builtin_name") +
                "': it registers pass 'FoldConstant', which this program has already");
}

TEST(Plugin, ARegistrationThatThrowsRegistersNothing) {
  auto registry = program_registry();
  const std::size_t before = registry->list().size();
  EXPECT_EQ(load_error(plugin_path("test_plugin_throws"), *registry),
            "cannot load plugin '" + plugin_path("test_plugin_throws") +
                "': its registration failed: the plugin's registration gave up");
  EXPECT_FALSE(registry->contains("RegisteredFirst"));
  EXPECT_EQ(registry->list().size(), before);
}

struct BadPlugin {
  const char* library;
  const char* reason;
};

void PrintTo(const BadPlugin& plugin, std::ostream* out) { *out << plugin.library; }

class BadPlugins : public testing::TestWithParam<BadPlugin> {};

TEST_P(BadPlugins, EachIsOneErrorNamingThePluginAndWhy) {
  auto registry = program_registry();
  const std::size_t before = registry->list().size();
  const std::string path = plugin_path(GetParam().library);
  EXPECT_EQ(load_error(path, *registry), "cannot load plugin '" + path + "': " + GetParam().reason);
  EXPECT_EQ(registry->list().size(), before);
}

INSTANTIATE_TEST_SUITE_P(
    Plugin, BadPlugins,
    testing::Values(
        BadPlugin{"no_such_plugin", "no such file"},
        BadPlugin{"test_plugin_no_entry", "it has no entry point 'passline_plugin' (passline::plugin_entry makes one)"},
        BadPlugin{"test_plugin_other_api",
                  "it is for plugin API version 2, and this program loads version 1"},
        BadPlugin{"test_plugin_other_ir",
                  "its passes are for IR '(anonymous namespace)::OtherIR', not 'passline::ir::Module'"},
        BadPlugin{"test_plugin_undefined_symbol",
                  "it needs 'passline_test_function_nobody_defines()', which this program does not define"}),
    [](const testing::TestParamInfo<BadPlugin>& info) { return std::string(info.param.library); });

TEST(Plugin, AnotherBuildIsAnErrorSayingBoth) {
  auto registry = program_registry();
  const std::string path = plugin_path("test_plugin_other_build");
  const std::string error = load_error(path, *registry);
  EXPECT_TRUE(error.starts_with("cannot load plugin '" + path +
                                "': it was built with clang 1.0; libstdc++ 19970101 cxx11-abi 0; passline 0.0.1, "
                                "and this program with clang "))
      << error;
  EXPECT_TRUE(error.ends_with("; passline " PASSLINE_VERSION)) << error;
}

TEST(Plugin, NotASharedLibrary) {
  auto registry = program_registry();
  const std::string path = PASSLINE_TEST_NOT_A_LIBRARY;
  EXPECT_TRUE(load_error(path, *registry).starts_with("cannot load plugin '" + path + "': not a shared library ("));
}

TEST(Plugin, ARequirementNobodyProvidesNamesThePlugin) {
  auto registry = program_registry();
  const std::string path = plugin_path("test_plugin_missing_requirement");
  passline::load_plugin(path, *registry);
  passline::PassContext ctx;
  try {
    passline::parse_pipeline("FoldConstant,NeedsNobody", *registry)(parse(two_functions), ctx);
    FAIL() << "ran";
  } catch (const passline::RequirementError& error) {
    EXPECT_EQ(std::string(error.what()), "pass 'NeedsNobody' (of plugin '" + path +
                                             "') requires 'NoSuchPass', which is not registered (chain: NeedsNobody "
                                             "-> NoSuchPass)");
  }
}

TEST(Plugin, ItsInstrumentsAreHanded) {
  auto registry = program_registry();
  const auto plugin = passline::load_plugin(plugin_path("test_plugin_instrument"), *registry);
  ASSERT_EQ(plugin.instruments.size(), 1u);
  passline::PassContext ctx;
  ctx.instruments = plugin.instruments;
  testing::internal::CaptureStderr();
  passline::parse_pipeline("InferType", *registry)(parse(two_functions), ctx);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "plugin instrument: after InferType\n");
}

/// The analyses computed, by name.
struct AnalysesSeen final : passline::Instrument {
  std::vector<std::string> names;
  void after_analysis(const passline::AnalysisInfo& analysis, std::string_view) override {
    names.emplace_back(analysis.name);
  }
};

TEST(Plugin, ItsAnalysisIsCachedAsTheProgramsAre) {
  auto registry = program_registry();
  passline::load_plugin(example, *registry);
  passline::PassContext ctx;
  auto seen = std::make_shared<AnalysesSeen>();
  ctx.instruments.push_back(seen);
  // CountFunctions preserves everything: the second one finds the plugin's analysis cached.
  passline::parse_pipeline("CountFunctions,CountFunctions", *registry)(parse(two_functions), ctx);
  EXPECT_EQ(std::count(seen->names.begin(), seen->names.end(), "FunctionCount"), 1);
  EXPECT_EQ(ctx.statistics->counters()[0].value, 4);  // 2 functions, counted twice
}

/// Whether the library at `path` is loaded in this process.
bool loaded(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  ::dlclose(handle);
  return true;
}

TEST(Plugin, StaysLoadedForTheProcess) {
  std::optional<passline::Pass<Module>> pass;
  {
    auto registry = program_registry();
    passline::load_plugin(example, *registry);
    pass = registry->create("ExportAll");
  }
  EXPECT_TRUE(loaded(example));  // the registry is gone; the pass runs the plugin's code
  passline::PassContext ctx;
  const Module out = (*pass)(parse(two_functions), ctx);
  EXPECT_TRUE(out.functions[0].exported);
  pass.reset();
  EXPECT_TRUE(loaded(example));  // nothing of it is left, and it stays, as LLVM's and MLIR's plugins do
}

TEST(Plugin, AnExceptionFromItsPassIsReadAfterItsRegistryAndPassAreGone) {
  std::exception_ptr failure;
  {
    auto registry = program_registry();
    passline::load_plugin(example, *registry);
    const passline::Pass<Module> pass = passline::parse_pipeline("CountFunctions{at-most=1}", *registry);
    passline::PassContext ctx;
    try {
      (void)pass(parse(two_functions), ctx);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  // The exception's type and message are the plugin's code and data.
  ASSERT_TRUE(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1"), std::string::npos) << e.what();
  }
}

TEST(Plugin, ItsInstrumentOutlivesItsRegistry) {
  std::vector<std::shared_ptr<passline::Instrument>> instruments;
  {
    auto registry = program_registry();
    instruments = passline::load_plugin(plugin_path("test_plugin_instrument"), *registry).instruments;
  }
  ASSERT_FALSE(instruments.empty());
  passline::PassContext ctx;
  ctx.instruments = instruments;
  auto registry = program_registry();
  testing::internal::CaptureStderr();
  (void)passline::parse_pipeline("InferType", *registry)(parse(two_functions), ctx);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "plugin instrument: after InferType\n");
  instruments.clear();
  ctx.instruments.clear();
  EXPECT_TRUE(loaded(plugin_path("test_plugin_instrument")));
}

}  // namespace

namespace {

// A plugin loaded again (after its last pass went, or into another
// registry) declares its config keys again: the same key again is that key.
TEST(PluginConfigKeys, TheSameKeyAgainIsThatKey) {
  const auto first = passline::register_config<std::int64_t>("plugin-test.limit", 3, "a limit");
  const auto again = passline::register_config<std::int64_t>("plugin-test.limit", 3, "a limit");
  EXPECT_EQ(first.name.data(), again.name.data());
  EXPECT_THROW(passline::register_config<std::int64_t>("plugin-test.limit", 4, "a limit"), passline::ConfigError);
  EXPECT_THROW(passline::register_config<bool>("plugin-test.limit", false, "a limit"), passline::ConfigError);
}

}  // namespace

// Registry: static pass types by PassInfo with their options, runtime passes
// by name with a factory, named pipelines, look-up errors with suggestions.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>
import passline;
import passline.testing;

namespace printable {
/// An IR that IRTraits can print, and nothing more.
struct Text {
  std::string text;
};
}  // namespace printable

template <>
struct passline::IRTraits<printable::Text> {
  static std::string print(const printable::Text& ir) { return ir.text; }
};

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::Registry;
using passline::RegistryError;
using passline::Value;
using passline::testing::Step;
using passline::testing::Trace;
using Names = std::vector<std::string>;

struct Inline {
  static constexpr PassInfo info{.name = "Inline",
                                 .opt_level = 2,
                                 .required = passline::needs<"InferType">,
                                 .summary = "inlines small functions"};
  std::int64_t max_size = 32;
  bool recursive = false;
  double ratio = 0.5;
  std::string mode = "fast";
  static constexpr auto options = passline::options(
      passline::option<&Inline::max_size>("max-size", "largest callee inlined"),
      passline::option<&Inline::recursive>("recursive", "inline recursive calls"),
      passline::option<&Inline::ratio>("ratio", "growth allowed"),
      passline::option<&Inline::mode>("mode", "strategy"));
  Trace operator()(Trace trace, PassContext&) const {
    trace.ran.push_back("Inline:" + std::to_string(max_size) + ":" + mode);
    return trace;
  }
};

/// Registries are not copied: pipelines they build refer to them.
void fill(Registry<Trace>& registry) {
  registry.add<Step<"InferType">>().add<Step<"FoldConstant", 1, "InferType">>().add<Inline>();
}

TEST(Registry, CreatesStaticPassesByName) {
  Registry<Trace> registry;
  registry.add<Step<"InferType">>();
  Pass<Trace> pass = registry.create("InferType");
  EXPECT_EQ(pass.info().name, "InferType");
  PassContext ctx;
  EXPECT_EQ(pass(Trace{}, ctx).ran, (Names{"InferType"}));
}

TEST(Registry, SetsOptionsOfTheirTypes) {
  Registry<Trace> registry;
  registry.add<Inline>().add<Step<"InferType">>();
  Pass<Trace> pass = registry.create("Inline", {{"max-size", Value(std::int64_t{8})}, {"mode", Value(std::string("all"))}});
  EXPECT_EQ(pass.options(), (std::vector<std::pair<std::string, Value>>{{"max-size", Value(std::int64_t{8})},
                                                    {"recursive", Value(false)},
                                                    {"ratio", Value(0.5)},
                                                    {"mode", Value(std::string("all"))}}));
  PassContext ctx;
  EXPECT_EQ(registry.sequential({pass})(Trace{}, ctx).ran, (Names{"InferType", "Inline:8:all"}));
}

TEST(Registry, RegisteringANameTwiceIsAnError) {
  Registry<Trace> registry;
  registry.add<Step<"InferType">>();
  try {
    registry.add<Step<"InferType", 2>>();
    FAIL();
  } catch (const RegistryError& error) {
    EXPECT_STREQ(error.what(), "pass 'InferType' is registered twice");
  }
}

TEST(Registry, UnknownNameSuggestsTheClosest) {
  Registry<Trace> registry;
  fill(registry);
  try {
    (void)registry.create("FoldConstnt");
    FAIL();
  } catch (const RegistryError& error) {
    EXPECT_STREQ(error.what(), "unknown pass 'FoldConstnt' (did you mean 'FoldConstant'?)");
  }
  try {
    (void)registry.create("Zzzzzz");
    FAIL();
  } catch (const RegistryError& error) {
    EXPECT_STREQ(error.what(), "unknown pass 'Zzzzzz'");
  }
}

TEST(Registry, UnknownOptionAndWrongTypeAreErrors) {
  Registry<Trace> registry;
  fill(registry);
  try {
    (void)registry.create("Inline", {{"max-sise", Value(std::int64_t{1})}});
    FAIL();
  } catch (const RegistryError& error) {
    EXPECT_STREQ(error.what(), "pass 'Inline' has no option 'max-sise' (did you mean 'max-size'?)");
  }
  try {
    (void)registry.create("Inline", {{"max-size", Value(true)}});
    FAIL();
  } catch (const RegistryError& error) {
    EXPECT_STREQ(error.what(), "option 'max-size' of pass 'Inline' takes an int, not a bool");
  }
}

TEST(Registry, ListsNameLevelRequiredSummaryAndOptions) {
  Registry<Trace> registry;
  fill(registry);
  const auto listing = registry.list();
  ASSERT_EQ(listing.size(), 3u);
  EXPECT_EQ(listing[0].name, "FoldConstant");
  EXPECT_EQ(listing[0].opt_level, 1);
  EXPECT_EQ(listing[0].required, (Names{"InferType"}));
  EXPECT_EQ(listing[1].name, "InferType");
  const auto& inline_pass = listing[2];
  EXPECT_EQ(inline_pass.name, "Inline");
  EXPECT_EQ(inline_pass.summary, "inlines small functions");
  ASSERT_EQ(inline_pass.options.size(), 4u);
  EXPECT_EQ(inline_pass.options[0].name, "max-size");
  EXPECT_EQ(inline_pass.options[0].type_name(), "int");
  EXPECT_EQ(inline_pass.options[0].default_value, Value(std::int64_t{32}));
  EXPECT_EQ(inline_pass.options[0].description, "largest callee inlined");
  EXPECT_EQ(inline_pass.options[3].type_name(), "string");
  EXPECT_FALSE(inline_pass.pipeline);
}

TEST(Registry, RuntimePassWithAFactory) {
  Registry<Trace> registry;
  registry.add(PassInfo{.name = "Tag", .summary = "appends a tag"},
               {passline::OptionSpec{"tag", Value(std::string("x")), "what to append"}},
               [](const auto& options) {
                 const std::string tag = std::get<std::string>(options[0].second);
                 return Pass<Trace>(PassInfo{.name = "Tag"}, [tag](Trace t, PassContext&) {
                   t.ran.push_back(tag);
                   return t;
                 });
               });
  PassContext ctx;
  Pass<Trace> pass = registry.create("Tag", {{"tag", Value(std::string("hello"))}});
  EXPECT_EQ(pass(Trace{}, ctx).ran, (Names{"hello"}));
  EXPECT_EQ(pass.text(), "Tag{tag=hello}");
}

TEST(Registry, NamedPipelinePrintsAsItsName) {
  Registry<Trace> registry;
  fill(registry);
  registry.add("Cleanup", registry.sequential({registry.create("InferType"), registry.create("FoldConstant")}));
  Pass<Trace> cleanup = registry.create("Cleanup");
  EXPECT_EQ(cleanup.info().name, "Cleanup");
  EXPECT_TRUE(cleanup.is_pipeline());
  EXPECT_EQ(cleanup.text(), "Cleanup");
  PassContext ctx;
  EXPECT_EQ(cleanup(Trace{}, ctx).ran, (Names{"InferType", "FoldConstant"}));
  EXPECT_TRUE(registry.list()[0].pipeline);
}

TEST(Registry, SeqIsReserved) {
  Registry<Trace> registry;
  EXPECT_THROW(registry.add<Step<"seq">>(), RegistryError);
}

TEST(Registry, APrintableIRHasPrintIRWithoutRegisteringIt) {
  Registry<printable::Text> registry;
  EXPECT_EQ(registry.names(), (std::vector<std::string_view>{"PrintIR"}));
  const Pass<printable::Text> pass = passline::parse_pipeline("PrintIR{header=here}", registry);
  PassContext ctx;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(pass(printable::Text{"the program"}, ctx).text, "the program");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "// *** PrintIR: here ***\nthe program\n");
  // An IR that cannot print has no PrintIR to offer.
  EXPECT_FALSE(Registry<Trace>{}.contains("PrintIR"));
}

TEST(Registry, ParallelRegistrationsAndLookUpsAreSafe) {
  Registry<Trace> registry;
  fill(registry);
  constexpr int threads = 4;
  constexpr int per_thread = 50;
  std::vector<std::jthread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&registry, t] {
      for (int i = 0; i < per_thread; ++i) {
        const std::string name = "P" + std::to_string(t) + "_" + std::to_string(i);
        registry.add(PassInfo{.name = name}, {}, [name](const auto&) {
          return passline::module_pass<Trace>(PassInfo{.name = name}, [name](Trace trace, PassContext&) {
            trace.ran.push_back(name);
            return trace;
          });
        });
        PassContext ctx;
        EXPECT_EQ(registry.create(name)(Trace{}, ctx).ran, (Names{name}));
        EXPECT_EQ(registry.create("Inline").info().name, "Inline");
        EXPECT_GE(registry.list().size(), 3u);
      }
    });
  }
  workers.clear();
  EXPECT_EQ(registry.names().size(), 3u + threads * per_thread);
}

}  // namespace

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Compiled;
using passline::CompiledSequential;
using passline::PassContext;
using passline::Sequential;
using passline::testing::Step;
using passline::testing::Trace;

using Names = std::vector<std::string>;

struct InferType : Step<"InferType", 3> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : Step<"Inline", 2> {};
struct Simplify : passline::testing::Preserving<Step<"Simplify", 1>, "InferType"> {};
struct Verify : Step<"Verify", 0> {};

using Pipeline = Sequential<Verify, InferType, Simplify, FoldConstant, Inline>;

// Passes above the opt level vanish from the type...
static_assert(std::is_same_v<Compiled<1, Pipeline>, CompiledSequential<Verify, Simplify>>);
static_assert(std::is_same_v<Compiled<0, Pipeline>, CompiledSequential<Verify>>);
// ...except the ones a kept pass requires (InferType is level 3, FoldConstant needs it).
static_assert(std::is_same_v<Compiled<2, Pipeline>,
                             CompiledSequential<Verify, InferType, Simplify, FoldConstant, Inline>>);
// Disabled names vanish too.
static_assert(std::is_same_v<Compiled<3, Pipeline, "Inline", "Verify">,
                             CompiledSequential<InferType, Simplify, FoldConstant>>);
// Nested pipelines are flattened.
static_assert(std::is_same_v<Compiled<1, Sequential<Verify, Sequential<Simplify, Inline>>>,
                             CompiledSequential<Verify, Simplify>>);

// A required pass that runs again (Inline does not preserve InferType) is kept
// where a kept pass needs it, and only there.
struct Cse : Step<"Cse", 2, "InferType"> {};
using WithRerun = passline::ResolvedSequential<passline::Catalog<InferType>, FoldConstant, Inline, Cse>;
static_assert(std::is_same_v<WithRerun, Sequential<passline::Inserted<InferType>, FoldConstant, Inline,
                                                    passline::Inserted<InferType>, Cse>>);
static_assert(std::is_same_v<Compiled<2, WithRerun>, CompiledSequential<InferType, FoldConstant, Inline, InferType, Cse>>);
static_assert(std::is_same_v<Compiled<2, WithRerun, "Cse">, CompiledSequential<InferType, FoldConstant, Inline>>);
static_assert(std::is_same_v<Compiled<2, WithRerun, "FoldConstant">, CompiledSequential<Inline, InferType, Cse>>);
static_assert(std::is_same_v<Compiled<1, WithRerun>, CompiledSequential<>>);

TEST(Compiled, RunsItsPassesWithoutConsultingTheContext) {
  // A context that would disable everything: the compiled form does not ask it.
  PassContext ctx{.opt_level = 0, .disabled = {"Verify", "Simplify"}};
  Trace out = Compiled<1, Pipeline>{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (Names{"Verify", "Simplify"}));
}

TEST(Compiled, MatchesTheStaticPipelineAtTheSameLevel) {
  for (int level = 0; level <= 3; ++level) {
    PassContext ctx{.opt_level = level};
    Trace dynamic = Pipeline{}(Trace{}, ctx);
    Trace compiled;
    switch (level) {
      case 0: compiled = Compiled<0, Pipeline>{}(Trace{}, ctx); break;
      case 1: compiled = Compiled<1, Pipeline>{}(Trace{}, ctx); break;
      case 2: compiled = Compiled<2, Pipeline>{}(Trace{}, ctx); break;
      default: compiled = Compiled<3, Pipeline>{}(Trace{}, ctx); break;
    }
    EXPECT_EQ(dynamic, compiled) << "at opt level " << level;
  }
}

/// The passes that instruments hear about, in order.
struct Heard final : passline::Instrument {
  Names events;
  void before_pass(const passline::PassInfo& info, passline::IRView, const passline::PassPlace&) override {
    events.push_back("before " + std::string(info.name));
  }
  void after_pass(const passline::PassInfo& info, passline::IRView, const passline::PassPlace&) override {
    events.push_back("after " + std::string(info.name));
  }
};

// One rule wherever it stands: the compiled form decided at compile time
// which passes run, so a context's opt level and disabled passes never gate
// them, alone or nested in a static or a runtime pipeline, or registered.
// Called alone it is the chain of calls, which no instrument hears; run by
// the pass manager, instruments hear each of its passes, as a pipeline's.
TEST(Compiled, OneRuleWhereverItStands) {
  using AtO3 = Compiled<3, Sequential<InferType, FoldConstant>>;  // both run, whatever the context says
  passline::Registry<Trace> registry;
  registry.add<AtO3>("AtO3").add<Verify>();
  const auto forms = [&](PassContext& ctx) {
    std::vector<Names> ran;
    ran.push_back(AtO3{}(Trace{}, ctx).ran);
    ran.push_back(Sequential<Verify, AtO3>{}(Trace{}, ctx).ran);
    ran.push_back(passline::Pass<Trace>(AtO3{})(Trace{}, ctx).ran);
    ran.push_back(passline::sequential<Trace>({Verify{}, AtO3{}})(Trace{}, ctx).ran);
    ran.push_back(passline::parse_pipeline<Trace>("Verify,AtO3", registry)(Trace{}, ctx).ran);
    return ran;
  };
  PassContext gated{.opt_level = 0, .disabled = {"FoldConstant", "InferType"}};
  const std::vector<Names> ran = forms(gated);
  EXPECT_EQ(ran[0], (Names{"InferType", "FoldConstant"}));  // alone
  EXPECT_EQ(ran[2], (Names{"InferType", "FoldConstant"}));  // as a runtime pass
  for (std::size_t form : {1, 3, 4}) {  // nested, after Verify
    EXPECT_EQ(ran[form], (Names{"Verify", "InferType", "FoldConstant"})) << "form " << form;
  }
  const auto heard = std::make_shared<Heard>();
  PassContext watched{.opt_level = 0, .disabled = {"FoldConstant"}};
  watched.instruments = {heard};
  EXPECT_EQ(AtO3{}(Trace{}, watched).ran, (Names{"InferType", "FoldConstant"}));
  EXPECT_TRUE(heard->events.empty());  // the chain of calls
  const Names pipeline{"before Sequential", "before InferType", "after InferType", "before FoldConstant",
                       "after FoldConstant", "after Sequential"};
  (void)passline::Pass<Trace>(AtO3{})(Trace{}, watched);
  EXPECT_EQ(heard->events, pipeline);
  heard->events.clear();
  (void)Sequential<AtO3>{}(Trace{}, watched);
  Names nested = pipeline;
  nested.insert(nested.begin(), "before Sequential");
  nested.push_back("after Sequential");
  EXPECT_EQ(heard->events, nested);
}

}  // namespace

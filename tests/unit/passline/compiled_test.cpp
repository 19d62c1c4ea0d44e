#include <gtest/gtest.h>

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

}  // namespace

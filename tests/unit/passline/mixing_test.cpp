// Static and runtime pipelines together: a runtime slot in a static pipeline,
// static pipelines in a runtime one, a static pipeline registered by name and
// used from pipeline text. Requirements are checked across the boundary.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::Registry;
using passline::Sequential;
using passline::Slot;
using passline::testing::Step;
using passline::testing::Trace;
using Names = std::vector<std::string>;

using InferType = Step<"InferType">;
using FoldConstant = Step<"FoldConstant", 1, "InferType">;
using DeadCode = Step<"DeadCodeElimination">;

Pass<Trace> runtime_pass(std::string name, std::vector<std::string_view> required = {}) {
  return Pass<Trace>(PassInfo{.name = name, .required = required}, [name](Trace t, PassContext&) {
    t.ran.push_back(name);
    return t;
  });
}

TEST(Mixing, StaticPipelineWithARuntimeSlot) {
  using Lowering = Sequential<InferType, Slot<Trace, "Target">, DeadCode>;
  static_assert(Lowering::slot_count == 1);
  const Lowering pipeline(runtime_pass("TargetLowering"));
  PassContext ctx;
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"InferType", "TargetLowering", "DeadCodeElimination"}));
}

TEST(Mixing, SlotRequirementsAreCheckedAgainstStaticPassesThatRanBefore) {
  Registry<Trace> registry;
  registry.add<InferType>();
  auto ran_type_inference = std::make_shared<int>(0);
  registry.add(PassInfo{.name = "Typer"}, {}, [ran_type_inference](const auto&) {
    return Pass<Trace>(PassInfo{.name = "Typer"}, [ran_type_inference](Trace t, PassContext&) {
      ++*ran_type_inference;
      t.ran.push_back("Typer");
      return t;
    });
  });
  // InferType ran just before the slot, and Trace's identity is `==`: the
  // slot's requirement is satisfied while the IR is unchanged... but every Step
  // appends to the trace, so here it must run again.
  using WithSlot = Sequential<InferType, Slot<Trace, "Target">>;
  const WithSlot pipeline(registry.sequential({runtime_pass("Lower", {"Typer"})}));
  PassContext ctx;
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"InferType", "Typer", "Lower"}));
  EXPECT_EQ(*ran_type_inference, 1);
}

TEST(Mixing, EmptySlotIsAnError) {
  using Lowering = Sequential<InferType, Slot<Trace, "Target">>;
  PassContext ctx;
  try {
    (void)Lowering{}(Trace{}, ctx);
    FAIL();
  } catch (const passline::PipelineError& error) {
    // The slot is a pass that fails: named with its path, as any pass is.
    EXPECT_STREQ(error.what(),
                 "pass 'Target' failed (in Sequential/Target): slot 'Target' of a static pipeline was never filled");
  }
}

TEST(Mixing, RuntimePipelineHoldingStaticPipelines) {
  const Pass<Trace> pipeline = passline::sequential<Trace>(
      {Sequential<InferType, FoldConstant>{}, runtime_pass("Custom"), Sequential<DeadCode>{}});
  PassContext ctx;
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"InferType", "FoldConstant", "Custom", "DeadCodeElimination"}));
  EXPECT_EQ(pipeline.text(), "seq(InferType,FoldConstant),Custom,seq(DeadCodeElimination)");
}

TEST(Mixing, StaticPipelineRegisteredByNameUsedFromText) {
  Registry<Trace> registry;
  registry.add<InferType>().add<FoldConstant>().add<DeadCode>();
  registry.add<Sequential<FoldConstant, DeadCode>>("Cleanup");
  const Pass<Trace> pipeline = passline::parse_pipeline("Cleanup,InferType", registry);
  EXPECT_EQ(pipeline.text(), "Cleanup,InferType");
  PassContext ctx;
  // The static pipeline requires InferType from outside: the run pulls it in first.
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"InferType", "FoldConstant", "DeadCodeElimination", "InferType"}));
}

/// A static pass that leaves the IR as it is.
struct Analyze {
  static constexpr PassInfo info{.name = "Analyze"};
  Trace operator()(Trace t, PassContext&) const { return t; }
};

TEST(Mixing, RuntimePassAfterAStaticPipelineSeesWhatRanInIt) {
  // A pass that keeps the IR as it is, so a requirement stays satisfied.
  auto runs = std::make_shared<int>(0);
  Registry<Trace> registry;
  registry.add(PassInfo{.name = "Analyze"}, {}, [runs](const auto&) {
    return Pass<Trace>(PassInfo{.name = "Analyze"}, [runs](Trace t, PassContext&) {
      ++*runs;
      return t;
    });
  });
  const Pass<Trace> pipeline =
      registry.sequential({Sequential<InferType, Analyze>{}, runtime_pass("User", {"Analyze"})});
  PassContext ctx;
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"InferType", "User"}));
  EXPECT_EQ(*runs, 0);  // satisfied by the static Analyze, not pulled from the registry
}

}  // namespace

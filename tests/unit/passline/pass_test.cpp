#include <gtest/gtest.h>

#include <string>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::testing::Step;
using passline::testing::Trace;

using Names = std::vector<std::string>;

TEST(Pass, FromStaticPassKeepsItsInfo) {
  Pass<Trace> pass = Step<"InferType", 0>{};
  EXPECT_EQ(pass.info().name, "InferType");
  PassContext ctx;
  EXPECT_EQ(pass(Trace{}, ctx).ran, (Names{"InferType"}));
}

TEST(Pass, FromCallableOwnsItsStrings) {
  std::string name = "Renamed";
  std::vector<std::string_view> required{"InferType"};
  Pass<Trace> pass(PassInfo{.name = name, .opt_level = 1, .required = required},
                   [](Trace t, PassContext&) {
                     t.ran.emplace_back("callable");
                     return t;
                   });
  name = "clobbered";
  required[0] = "clobbered";
  EXPECT_EQ(pass.info().name, "Renamed");
  EXPECT_EQ(pass.info().opt_level, 1);
  ASSERT_EQ(pass.info().required.size(), 1u);
  EXPECT_EQ(pass.info().required[0], "InferType");
  passline::Registry<Trace> registry;
  registry.add<Step<"InferType">>();
  PassContext ctx;
  EXPECT_EQ(registry.sequential({pass})(Trace{}, ctx).ran, (Names{"InferType", "callable"}));
}

TEST(Pass, CopiesShareOnePass) {
  Pass<Trace> a = Step<"A">{};
  Pass<Trace> b = a;
  EXPECT_EQ(&a.info(), &b.info());
}

TEST(Pass, StaticPipelineBecomesOnePass) {
  Pass<Trace> pipeline = passline::Sequential<Step<"A">, Step<"B">>{};
  PassContext ctx;
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"A", "B"}));
}

TEST(Pass, SequentialAppliesGating) {
  Pass<Trace> pipeline = passline::sequential<Trace>({Step<"A", 0>{}, Step<"B", 3>{}, Step<"C", 1>{}});
  PassContext ctx{.opt_level = 1};
  EXPECT_EQ(pipeline(Trace{}, ctx).ran, (Names{"A", "C"}));
}

}  // namespace

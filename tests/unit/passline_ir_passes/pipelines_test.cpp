// The standard pipelines are written once, as text: the static pipelines the
// text makes at compile time plan the same passes, in the same order and for
// the same reasons, as the text the registry reads at run time.
#include <gtest/gtest.h>

#include <string>
import passline;
import passline.ir;
import passline.pipelines;

namespace {

namespace ir = passline::ir;
namespace pipelines = passline::pipelines;

/// The level's plan, as --print-pipeline=expanded prints it: the static
/// pipeline its text makes at compile time against the same text read at
/// run time (as a pipeline of its own, `seq(text)`), and the named static
/// pipeline against the registry's.
template <class Level, const auto& Text>
void expect_same_plan() {
  for (int opt_level = 0; opt_level <= 3; ++opt_level) {
    passline::PassContext ctx;
    ctx.opt_level = opt_level;
    const auto plan = [&](const passline::Pass<ir::Module>& pass) { return passline::plan_text(pass.plan(ctx)); };
    const std::string text(Text.view());
    EXPECT_EQ(plan(pipelines::Passes::Pipeline<Text>{}),
              plan(passline::parse_pipeline("seq(" + text + ")", pipelines::registry())))
        << text << " at -O" << opt_level;
    EXPECT_EQ(plan(Level{}), plan(passline::parse_pipeline(std::string(Level::info.name), pipelines::registry())))
        << Level::info.name << " at -O" << opt_level;
  }
}

TEST(StandardPipelines, TheTypeAndTheTextPlanTheSamePasses) {
  expect_same_plan<pipelines::O0, pipelines::o0_text>();
  expect_same_plan<pipelines::O1, pipelines::o1_text>();
  expect_same_plan<pipelines::O2, pipelines::o2_text>();
  expect_same_plan<pipelines::O3, pipelines::o3_text>();
}

}  // namespace

// A pipeline as a tree of steps, and delta debugging over its passes.
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>
import passline.reduce;

namespace {

namespace rd = passline::reduce;

TEST(ReducePipeline, NestsKeepTheirPassesAndGoWithTheLast) {
  // builtin.module(func.func(cse,canonicalize{...}),symbol-dce), as MLIR's reader gives it.
  const std::vector<rd::Step> steps{
      {.text = "builtin.module",
       .nested = true,
       .inner = {{.text = "func.func",
                  .nested = true,
                  .inner = {{.text = "cse"}, {.text = "canonicalize{max-iterations=1 top-down=true}"}}},
                 {.text = "symbol-dce"}}}};
  EXPECT_EQ(rd::pass_texts(steps),
            (std::vector<std::string>{"cse", "canonicalize{max-iterations=1 top-down=true}", "symbol-dce"}));
  EXPECT_EQ(rd::pass_count(steps), 3u);
  EXPECT_EQ(rd::pipeline_text(steps),
            "builtin.module(func.func(cse,canonicalize{max-iterations=1 top-down=true}),symbol-dce)");
  EXPECT_EQ(rd::pipeline_text(rd::kept_steps(steps, {true, true, true})), rd::pipeline_text(steps));
  EXPECT_EQ(rd::pipeline_text(rd::kept_steps(steps, {false, true, true})),
            "builtin.module(func.func(canonicalize{max-iterations=1 top-down=true}),symbol-dce)");
  // A nest none of whose passes stay goes with them.
  EXPECT_EQ(rd::pipeline_text(rd::kept_steps(steps, {false, false, true})), "builtin.module(symbol-dce)");
  EXPECT_THROW((void)rd::kept_steps(steps, {true}), std::invalid_argument);
}

TEST(ReducePipeline, DeltaKeepsExactlyWhatTheFailureNeeds) {
  std::size_t runs = 0;
  auto still_fails = [&](const std::vector<bool>& keep) {
    ++runs;
    return keep[3] && keep[11];
  };
  for (const rd::Order order : {rd::Order::first_to_last, rd::Order::last_to_first}) {
    const std::vector<bool> kept = rd::delta(std::vector<bool>(16, true), still_fails, [] { return false; }, order);
    std::vector<bool> expected(16, false);
    expected[3] = expected[11] = true;
    EXPECT_EQ(kept, expected);
  }
  EXPECT_LT(runs, 2 * 16 * 16);
}

TEST(ReducePipeline, DeltaStopsWhenAskedAndKeepsWhatItHas) {
  const std::vector<bool> kept =
      rd::delta(std::vector<bool>(8, true), [](const std::vector<bool>&) { return true; }, [] { return true; });
  EXPECT_EQ(kept, std::vector<bool>(8, true));
}

}  // namespace

// Pipeline text as a tree, and delta debugging over its passes.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>
import passline.reduce;

namespace {

namespace rd = passline::reduce;

TEST(ReducePipeline, NestsAndOptionsSplitIntoPassesAndJoinBack) {
  const std::string text = "builtin.module(func.func(cse,canonicalize{max-iterations=1 top-down=true}),symbol-dce)";
  const std::vector<rd::Step> steps = rd::split_pipeline(text);
  EXPECT_EQ(rd::pass_texts(steps),
            (std::vector<std::string>{"cse", "canonicalize{max-iterations=1 top-down=true}", "symbol-dce"}));
  EXPECT_EQ(rd::join_pipeline(steps, {true, true, true}), text);
  EXPECT_EQ(rd::join_pipeline(steps, {false, true, true}),
            "builtin.module(func.func(canonicalize{max-iterations=1 top-down=true}),symbol-dce)");
  // A nest none of whose passes stay goes with them.
  EXPECT_EQ(rd::join_pipeline(steps, {false, false, true}), "builtin.module(symbol-dce)");
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

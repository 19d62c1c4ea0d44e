#include <gtest/gtest.h>

#include <string_view>
import passline;

namespace {

struct FoldConstant {
  static constexpr passline::PassInfo info{
      .name = "FoldConstant",
      .opt_level = 2,
      .required = passline::needs<"InferType">,
      .summary = "folds constants",
  };
};

// PassInfo is usable at compile time: the checks of static pipelines read it.
static_assert(FoldConstant::info.name == "FoldConstant");
static_assert(FoldConstant::info.opt_level == 2);
static_assert(FoldConstant::info.required.size() == 1);
static_assert(FoldConstant::info.requires_pass("InferType"));
static_assert(!FoldConstant::info.requires_pass("Inline"));
static_assert(passline::PassInfo{.name = "X"}.required.empty());

TEST(PassInfo, SameValueAtRunTime) {
  const passline::PassInfo& info = FoldConstant::info;
  EXPECT_EQ(info.name, "FoldConstant");
  EXPECT_EQ(info.opt_level, 2);
  ASSERT_EQ(info.required.size(), 1u);
  EXPECT_EQ(info.required[0], "InferType");
  EXPECT_EQ(info.summary, "folds constants");
}

TEST(PassInfo, NeedsSharesStorageForEqualLists) {
  // The same list of names is one array, wherever it is spelled.
  EXPECT_EQ((passline::needs<"A", "B">.data()), (passline::needs<"A", "B">.data()));
  EXPECT_EQ((passline::needs<"A", "B">.size()), 2u);
}

}  // namespace
